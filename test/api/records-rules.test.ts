/** Record rules and errors as the SDK and raw clients see them. */
import Cloudflare from 'cloudflare';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { api, createZone } from '../helpers/api.js';

type Any = any;

/** The error codes a rejected SDK call carried. */
async function codes(p: Promise<unknown>): Promise<{ cls: string; codes: number[] }> {
  const err = await p.then(() => undefined, (e: unknown) => e);
  if (!(err instanceof Cloudflare.APIError)) throw new Error(`expected an API error, got ${String(err)}`);
  return { cls: err.constructor.name, codes: (err.errors as { code: number }[]).map((e) => e.code) };
}

describe('record rules', () => {
  let server: TestServer;
  let cf: Cloudflare;
  let zoneId: string;
  const Z = 'rules.example';
  const create = (body: Record<string, unknown>) => cf.dns.records.create({ zone_id: zoneId, ttl: 1, ...body } as Any) as Promise<Any>;

  beforeAll(async () => {
    server = await startTestServer({ config: { plan: { commentMaxLength: 20, tagsPerRecord: 2 } } });
    cf = server.sdk();
    zoneId = await createZone(server, Z);
  });
  afterAll(async () => { await server.stop(); });

  it('CNAME shares its name with nothing: 81053 / 81054; NS delegations: 81056', async () => {
    await create({ type: 'A', name: 'host', content: '192.0.2.1' });
    expect(await codes(create({ type: 'CNAME', name: 'host', content: 'x.example.net' }))).toEqual({ cls: 'BadRequestError', codes: [81053] });
    await create({ type: 'CNAME', name: 'alias', content: 'x.example.net' });
    expect((await codes(create({ type: 'TXT', name: 'alias', content: 'x' }))).codes).toEqual([81054]);
    expect((await codes(create({ type: 'CNAME', name: 'alias', content: 'y.example.net' }))).codes).toEqual([81053]);
    await create({ type: 'NS', name: 'sub', content: 'ns1.example.net' });
    expect((await codes(create({ type: 'A', name: 'sub', content: '192.0.2.9' }))).codes).toEqual([81056]);
    expect((await codes(create({ type: 'NS', name: 'host', content: 'ns1.example.net' }))).codes).toEqual([1112]);
    // Round robin is fine; an identical record is not.
    await create({ type: 'A', name: 'host', content: '192.0.2.2' });
    expect((await codes(create({ type: 'A', name: `HOST.${Z}`, content: '192.0.2.2' }))).codes).toEqual([81058]);
    const dupTxt = await codes(create({ type: 'TXT', name: 'host', content: 'v=1' }).then(() => create({ type: 'TXT', name: 'host', content: '"v=1"' })));
    expect(dupTxt.codes).toEqual([81058]);
  });

  it('an update that keeps its own name and value is not a duplicate of itself; a move onto a CNAME is refused', async () => {
    const r = await create({ type: 'A', name: 'self', content: '192.0.2.3' });
    const same = await cf.dns.records.update(r.id, { zone_id: zoneId, type: 'A', name: 'self', content: '192.0.2.3', ttl: 120 } as Any) as Any;
    expect(same.ttl).toBe(120);
    expect((await codes(cf.dns.records.edit(r.id, { zone_id: zoneId, name: 'alias' } as Any))).codes).toEqual([81054]);
  });

  it('proxied only on A, AAAA, CNAME (9004); proxied records are TTL Auto; a proxied CNAME must end at an address', async () => {
    expect((await codes(create({ type: 'TXT', name: 'p', content: 'x', proxied: true }))).codes).toEqual([9004]);
    const a = await create({ type: 'A', name: 'origin', content: '192.0.2.5', proxied: true, ttl: 3600 });
    expect(a).toMatchObject({ proxied: true, ttl: 1, proxiable: true });
    expect((await create({ type: 'CNAME', name: 'to-origin', content: `origin.${Z}`, proxied: true })).proxied).toBe(true);
    expect((await create({ type: 'CNAME', name: 'chain', content: `to-origin.${Z}`, proxied: true })).proxied).toBe(true);
    expect((await create({ type: 'CNAME', name: 'outside', content: 'cdn.example.net', proxied: true })).proxied).toBe(true);
    expect((await codes(create({ type: 'CNAME', name: 'dangling', content: `nothing.${Z}`, proxied: true }))).codes).toEqual([1109]);
    await create({ type: 'CNAME', name: 'loop1', content: `loop2.${Z}` });
    await create({ type: 'CNAME', name: 'loop2', content: `loop1.${Z}` });
    expect((await codes(create({ type: 'CNAME', name: 'loop0', content: `loop1.${Z}`, proxied: true }))).codes).toEqual([1109]);
    // DNS-only CNAMEs may dangle.
    expect((await create({ type: 'CNAME', name: 'dangling', content: `nothing.${Z}` })).proxied).toBe(false);
  });

  it('TTL, comment, tags and settings limits; every problem of a body at once', async () => {
    expect((await codes(create({ type: 'A', name: 't', content: '192.0.2.1', ttl: 59 }))).codes).toEqual([9021]);
    expect((await codes(create({ type: 'A', name: 't', content: '192.0.2.1', ttl: 86401 }))).codes).toEqual([9021]);
    expect((await codes(create({ type: 'A', name: 't', content: '192.0.2.1', comment: 'x'.repeat(21) }))).codes).toEqual([9313]);
    expect((await codes(create({ type: 'A', name: 't', content: '192.0.2.1', comment: 'a\nb' }))).codes).toEqual([9313]);
    expect((await codes(create({ type: 'A', name: 't', content: '192.0.2.1', tags: ['a:1', 'b:2', 'c:3'] }))).codes).toEqual([9300]);
    expect((await codes(create({ type: 'A', name: 't', content: '192.0.2.1', tags: ['no-colon', `${'n'.repeat(33)}:v`, `n:${'v'.repeat(101)}`] }))).codes).toEqual([9301, 9301, 9302]);
    expect((await codes(create({ type: 'A', name: 't', content: '192.0.2.1', settings: { flatten_cname: true } }))).codes).toEqual([1111]);
    const all = await codes(create({ type: 'A', name: 't', content: 'not-an-ip', ttl: 5, proxied: 'yes', comment: 'a\rb', tags: 'x' }));
    expect(all.codes).toEqual(expect.arrayContaining([9005, 9021, 1110, 9313, 9301]));
    expect(all.codes.length).toBeGreaterThanOrEqual(5);
    const soa = await api(server, 'POST', `/zones/${zoneId}/dns_records`, { type: 'SOA', name: '@', content: 'x' });
    expect(soa.status).toBe(400);
    expect(soa.body.errors[0]!.code).toBe(1108);
    expect(soa.body.errors[0]!.message).toContain('/zones/:zone_id/dns_settings');
  });

  it('comment and tags are stored with their modification times; settings are echoed', async () => {
    const r = await create({ type: 'CNAME', name: 'meta', content: 'x.example.net', comment: 'hi', tags: ['Team:DNS', 'team:DNS'], settings: { flatten_cname: true } });
    expect(r).toMatchObject({ comment: 'hi', tags: ['team:DNS'], settings: { flatten_cname: true } });
    expect(r.comment_modified_on).toBe(r.created_on);
    expect(r.tags_modified_on).toBe(r.created_on);
    const plain = await create({ type: 'CNAME', name: 'plain', content: 'x.example.net' });
    expect(plain.settings).toEqual({ flatten_cname: false });
    expect('comment_modified_on' in plain).toBe(false);
    expect(Object.keys(plain)).toEqual(['id', 'name', 'type', 'content', 'proxiable', 'proxied', 'ttl', 'settings', 'meta', 'comment', 'tags', 'created_on', 'modified_on']);
    const a = await create({ type: 'A', name: 'settings-a', content: '192.0.2.1', settings: { ipv4_only: true } });
    expect(a.settings).toEqual({ ipv4_only: true });
    // PATCH changes only what it is given.
    const patched = await cf.dns.records.edit(r.id, { zone_id: zoneId, ttl: 600 } as Any) as Any;
    expect(patched).toMatchObject({ ttl: 600, comment: 'hi', tags: ['team:DNS'], content: 'x.example.net', comment_modified_on: r.comment_modified_on });
    // PUT resets what it is not given.
    const put = await cf.dns.records.update(r.id, { zone_id: zoneId, type: 'CNAME', name: 'meta', content: 'x.example.net' } as Any) as Any;
    expect(put).toMatchObject({ ttl: 1, comment: null, tags: [], settings: { flatten_cname: false } });
    expect('tags_modified_on' in put).toBe(false);
  });

  it('unknown records: 404 81044 on get, edit, update and delete; ignored body fields', async () => {
    const missing = 'c'.repeat(32);
    for (const call of [
      () => cf.dns.records.get(missing, { zone_id: zoneId }),
      () => cf.dns.records.edit(missing, { zone_id: zoneId, ttl: 1 } as Any),
      () => cf.dns.records.update(missing, { zone_id: zoneId, type: 'A', name: 'x', content: '192.0.2.1' } as Any),
      () => cf.dns.records.delete(missing, { zone_id: zoneId }),
      () => cf.dns.records.get('not-hex!', { zone_id: zoneId }),
    ]) expect(await codes(call())).toEqual({ cls: 'NotFoundError', codes: [81044] });
    const res = await api(server, 'POST', `/zones/${zoneId}/dns_records`, { type: 'A', name: 'ignored', content: '192.0.2.1', zone_id: 'x', zone_name: 'y', locked: true, id: 'z' });
    const r = res.body.result;
    expect(r.id).toMatch(/^[0-9a-f]{32}$/);
    expect('locked' in r || 'zone_id' in r).toBe(false);
  });

  it('DELETE accepts no body, {} and an empty body with Content-Type: application/json', async () => {
    const ids = await Promise.all(['d1', 'd2', 'd3'].map(async (n) => (await create({ type: 'A', name: n, content: '192.0.2.1' })).id as string));
    const none = await api(server, 'DELETE', `/zones/${zoneId}/dns_records/${ids[0]}`);
    const empty = await api(server, 'DELETE', `/zones/${zoneId}/dns_records/${ids[1]}`, {});
    const blank = await api(server, 'DELETE', `/zones/${zoneId}/dns_records/${ids[2]}`, '', { 'content-type': 'application/json' });
    for (const [res, id] of [[none, ids[0]], [empty, ids[1]], [blank, ids[2]]] as const) {
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ result: { id }, success: true, errors: [], messages: [] });
    }
  });

  it('old api dates: zone_id/zone_name/locked in records, validation errors wrapped in 1004', async () => {
    const old = { 'api-version': '2024-06-01' };
    const res = await api(server, 'POST', `/zones/${zoneId}/dns_records`, { type: 'A', name: 'old', content: '192.0.2.1' }, old);
    expect(Object.keys(res.body.result).slice(0, 4)).toEqual(['id', 'zone_id', 'zone_name', 'name']);
    expect(res.body.result).toMatchObject({ zone_id: zoneId, zone_name: Z, locked: false });
    const bad = await api(server, 'POST', `/zones/${zoneId}/dns_records`, { type: 'A', name: 'old', content: 'x', ttl: 2 }, old);
    expect(bad.status).toBe(400);
    expect(bad.body.errors).toHaveLength(1);
    expect(bad.body.errors[0]).toMatchObject({ code: 1004, message: 'DNS Validation Error' });
    expect(bad.body.errors[0]!.error_chain!.map((e) => e.code)).toEqual([9005, 9021]);
    const current = await api(server, 'POST', `/zones/${zoneId}/dns_records`, { type: 'A', name: 'old', content: 'x' }, { 'api-version': '2025-01-01' });
    expect(current.body.errors[0]!.code).toBe(9005);
    const srv = await api(server, 'POST', `/zones/${zoneId}/dns_records`, { type: 'SRV', name: '_x._tcp', data: { priority: 1, weight: 2, port: 3, target: 't.example.net' } }, { 'api-version': '2024-01-01' });
    expect(srv.body.result.data).toMatchObject({ service: '_x', proto: '_tcp', name: Z });
  });

  it('refuses A/AAAA content in the service\'s own ranges and bodies that are not JSON objects', async () => {
    const a = await api(server, 'POST', `/zones/${zoneId}/dns_records`, { type: 'A', name: 'edge', content: '104.16.0.1' });
    expect(a.status).toBe(400);
    expect(a.body.errors[0]!.message).toContain('104.16.0.0/13');
    const aaaa = await api(server, 'POST', `/zones/${zoneId}/dns_records`, { type: 'AAAA', name: 'edge', content: '2606:4700::1' });
    expect(aaaa.status).toBe(400);
    const arr = await api(server, 'POST', `/zones/${zoneId}/dns_records`, [{ type: 'A' }]);
    expect(arr.body.errors[0]!.code).toBe(1104);
    const bad = await api(server, 'POST', `/zones/${zoneId}/dns_records`, '{"type":');
    expect(bad.body.errors[0]!.code).toBe(6007);
  });

  it('underscores in A names pass with a warning in messages', async () => {
    const res = await api(server, 'POST', `/zones/${zoneId}/dns_records`, { type: 'A', name: 'under_score', content: '192.0.2.1' });
    expect(res.status).toBe(200);
    expect(res.body.messages.length).toBeGreaterThan(0);
  });
});

describe('record quota', () => {
  it('refuses records beyond plan.recordsPerZone with 81045', async () => {
    const server = await startTestServer({ config: { plan: { recordsPerZone: 2 } } });
    try {
      const zoneId = await createZone(server, 'quota.example');
      const post = (n: string) => api(server, 'POST', `/zones/${zoneId}/dns_records`, { type: 'A', name: n, content: '192.0.2.1' });
      const first = await post('a');
      expect((await post('b')).status).toBe(200);
      const third = await post('c');
      expect(third.status).toBe(400);
      expect(third.body.errors[0]!.code).toBe(81045);
      await api(server, 'DELETE', `/zones/${zoneId}/dns_records/${first.body.result.id}`);
      expect((await post('c')).status).toBe(200);
    } finally {
      await server.stop();
    }
  });
});
