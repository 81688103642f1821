/** Listing records: filters, ordering, pagination, result_info; concurrency of writers; restart. */
import Cloudflare from 'cloudflare';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { api, createZone } from '../helpers/api.js';

type Any = any;

describe('record list', () => {
  let server: TestServer;
  let cf: Cloudflare;
  let zoneId: string;
  const Z = 'list.example';
  const list = async (query: string) => (await api(server, 'GET', `/zones/${zoneId}/dns_records?${query}`)).body;

  beforeAll(async () => {
    server = await startTestServer();
    cf = server.sdk();
    zoneId = await createZone(server, Z);
    const bodies = [
      { type: 'TXT', name: 'b', content: 'Token-1' },
      { type: 'A', name: 'b', content: '192.0.2.2', proxied: true },
      { type: 'A', name: 'a', content: '192.0.2.1' },
      { type: 'CNAME', name: 'c', content: `a.${Z}` },
      { type: 'MX', name: '@', content: `mail.${Z}`, priority: 5 },
    ];
    for (let i = 0; i < 20; i++) bodies.push({ type: 'TXT', name: `bulk${String(i).padStart(2, '0')}`, content: `v${i}` });
    for (const body of bodies) {
      const res = await api(server, 'POST', `/zones/${zoneId}/dns_records`, body);
      if (res.status !== 200) throw new Error(JSON.stringify(res.body));
    }
  });
  afterAll(async () => { await server.stop(); });

  it('orders by type then name by default, with exact result_info', async () => {
    const body = await list('per_page=100');
    const keys = body.result.map((r: Any) => `${r.type} ${r.name}`);
    expect(keys.slice(0, 5)).toEqual([`A a.${Z}`, `A b.${Z}`, `CNAME c.${Z}`, `MX ${Z}`, `TXT b.${Z}`]);
    expect(body.result_info).toEqual({ page: 1, per_page: 100, count: 25, total_count: 25, total_pages: 1 });
    const byName = await list('order=name&direction=desc&per_page=3');
    const names = byName.result.map((r: Any) => r.name);
    expect(names).toEqual([Z, `c.${Z}`, `bulk19.${Z}`]);
  });

  it('filters by name (relative, full, @, any case), type, content (case-insensitive, TXT unquoted), proxied', async () => {
    for (const q of ['name=b', `name=b.${Z}`, `name=B.${Z.toUpperCase()}.`, `name.exact=b.${Z}`]) {
      expect((await list(q)).result.map((r: Any) => r.type).sort()).toEqual(['A', 'TXT']);
    }
    expect((await list('name=@')).result.map((r: Any) => r.type)).toEqual(['MX']);
    expect((await list('type=CNAME')).result.map((r: Any) => r.name)).toEqual([`c.${Z}`]);
    expect((await list(`type=TXT&name=b.${Z}&content=token-1&per_page=1`)).result.map((r: Any) => r.content)).toEqual(['"Token-1"']);
    expect((await list(`content.exact=%22Token-1%22`)).result).toHaveLength(1);
    expect((await list('content=192.0.2.1')).result.map((r: Any) => r.name)).toEqual([`a.${Z}`]);
    expect((await list('proxied=true')).result.map((r: Any) => r.content)).toEqual(['192.0.2.2']);
    expect((await list('proxied=false')).result_info!.total_count).toBe(24);
    expect((await list('name=nothing')).result).toEqual([]);
    const sdk = await cf.dns.records.list({ zone_id: zoneId, name: { exact: `a.${Z}` }, type: 'A' } as Any);
    expect(sdk.result.map((r: Any) => r.content)).toEqual(['192.0.2.1']);
    const bad = await api(server, 'GET', `/zones/${zoneId}/dns_records?type=BOGUS&per_page=0`);
    expect(bad.status).toBe(400);
    expect(bad.body.errors.map((e) => e.code)).toEqual([1106, 1106]);
  });

  it('pages: result_info per page, [] past the end, and the SDK iterator terminates', async () => {
    const p3 = await list('per_page=10&page=3');
    expect(p3.result).toHaveLength(5);
    expect(p3.result_info).toEqual({ page: 3, per_page: 10, count: 5, total_count: 25, total_pages: 3 });
    const past = await list('per_page=10&page=4');
    expect(past.result).toEqual([]);
    expect(past.result_info).toEqual({ page: 4, per_page: 10, count: 0, total_count: 25, total_pages: 3 });
    const seen: string[] = [];
    for await (const r of cf.dns.records.list({ zone_id: zoneId, per_page: 7 } as Any)) seen.push((r as Any).id);
    expect(seen).toHaveLength(25);
    expect(new Set(seen).size).toBe(25);
  });
});

describe('concurrent writers', () => {
  it('never break the CNAME or duplicate rules', async () => {
    const server = await startTestServer();
    try {
      const zoneId = await createZone(server, 'race.example');
      const post = (body: object) => api(server, 'POST', `/zones/${zoneId}/dns_records`, body);
      const mixed = await Promise.all(Array.from({ length: 16 }, (_, i) => post(i % 2 === 0
        ? { type: 'CNAME', name: 'x', content: `t${i}.example.net` }
        : { type: 'A', name: 'x', content: `192.0.2.${i}` })));
      const ok = mixed.filter((r) => r.status === 200).map((r) => r.body.result.type as string);
      expect(ok.length).toBeGreaterThan(0);
      expect(ok.includes('CNAME') ? ok : ['CNAME']).toEqual(['CNAME']);
      const same = await Promise.all(Array.from({ length: 12 }, () => post({ type: 'TXT', name: 'dup', content: 'same' })));
      expect(same.filter((r) => r.status === 200)).toHaveLength(1);
      expect(same.filter((r) => r.status === 400).every((r) => r.body.errors[0]!.code === 81058)).toBe(true);
    } finally {
      await server.stop();
    }
  });
});

describe('restart', () => {
  it('keeps zones and records', async () => {
    const first = await startTestServer({ keepDataDir: true });
    const zoneId = await createZone(first, 'restart.example');
    const created = await first.sdk().dns.records.create({ zone_id: zoneId, type: 'TXT', name: 'keep', content: 'me', ttl: 300, comment: 'kept' } as Any) as Any;
    await first.stop();
    const second = await startTestServer({ dataDir: first.dataDir });
    try {
      const cf = second.sdk();
      expect((await cf.zones.get({ zone_id: zoneId })).name).toBe('restart.example');
      expect(await cf.dns.records.get(created.id, { zone_id: zoneId })).toEqual(created);
      const more = await cf.dns.records.create({ zone_id: zoneId, type: 'TXT', name: 'keep', content: 'more', ttl: 1 } as Any) as Any;
      expect(more.name).toBe('keep.restart.example');
    } finally {
      await second.stop();
      const fs = await import('node:fs');
      fs.rmSync(first.dataDir, { recursive: true, force: true });
    }
  });
});
