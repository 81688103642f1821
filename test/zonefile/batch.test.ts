/** `POST /zones/:zone_id/dns_records/batch` through the official SDK and raw requests. */
import Cloudflare from 'cloudflare';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { api, createZone } from '../helpers/api.js';

type Any = any;

describe('record batches', () => {
  let server: TestServer;
  let cf: Cloudflare;

  beforeAll(async () => {
    server = await startTestServer({ config: { plan: { recordsPerBatch: 5, recordsPerZone: 4 } } });
    cf = server.sdk();
  });
  afterAll(async () => { await server.stop(); });

  /** The zone's records as sortable strings, and its serial (from the export's SOA). */
  async function state(zoneId: string): Promise<{ records: string[]; serial: string }> {
    const list = (await cf.dns.records.list({ zone_id: zoneId, per_page: 100 } as Any)).result as Any[];
    const soa = /\tSOA\t\S+ \S+ (\d+) /.exec(await cf.dns.records.export({ zone_id: zoneId }))!;
    return { records: list.map((r) => `${r.id} ${r.name} ${r.type} ${r.content} ${r.ttl} ${r.modified_on}`).sort(), serial: soa[1]! };
  }

  it('runs deletes, patches, puts, posts in order in one transaction; later operations see earlier ones', async () => {
    const zoneId = await createZone(server, 'batch.example');
    const a = await cf.dns.records.create({ zone_id: zoneId, type: 'A', name: 'www', content: '192.0.2.1', ttl: 1 } as Any) as Any;
    const b = await cf.dns.records.create({ zone_id: zoneId, type: 'A', name: 'api', content: '192.0.2.2', ttl: 1 } as Any) as Any;
    const c = await cf.dns.records.create({ zone_id: zoneId, type: 'TXT', name: 'note', content: 'old', ttl: 1 } as Any) as Any;
    const before = await state(zoneId);

    const res = await cf.dns.records.batch({
      zone_id: zoneId,
      deletes: [{ id: a.id }],
      patches: [{ id: b.id, content: '192.0.2.22', comment: 'patched' } as Any],
      puts: [{ id: c.id, type: 'TXT', name: 'note', content: 'new', ttl: 300 } as Any],
      // A CNAME at www only works because the A record at www was deleted first.
      posts: [{ type: 'CNAME', name: 'www', content: 'api.batch.example', ttl: 1 } as Any, { type: 'A', name: 'new', content: '192.0.2.9', ttl: 1 } as Any],
    }) as Any;
    expect(res.deletes.map((r: Any) => [r.id, r.content])).toEqual([[a.id, '192.0.2.1']]);
    expect(res.patches.map((r: Any) => [r.id, r.content, r.comment])).toEqual([[b.id, '192.0.2.22', 'patched']]);
    expect(res.puts.map((r: Any) => [r.id, r.content, r.ttl])).toEqual([[c.id, '"new"', 300]]);
    expect(res.posts.map((r: Any) => [r.name, r.type])).toEqual([['www.batch.example', 'CNAME'], ['new.batch.example', 'A']]);
    expect(Object.keys(res)).toEqual(['deletes', 'patches', 'puts', 'posts']);

    const after = await state(zoneId);
    expect(after.records).toHaveLength(4);
    expect(Number(after.serial)).toBe(Number(before.serial) + 1);
    await expect(cf.dns.records.get(a.id, { zone_id: zoneId })).rejects.toBeInstanceOf(Cloudflare.NotFoundError);
  });

  it('a failing operation applies nothing and names its place', async () => {
    const zoneId = await createZone(server, 'atomic-batch.example');
    const a = await cf.dns.records.create({ zone_id: zoneId, type: 'A', name: 'www', content: '192.0.2.1', ttl: 1 } as Any) as Any;
    const b = await cf.dns.records.create({ zone_id: zoneId, type: 'A', name: 'api', content: '192.0.2.2', ttl: 1 } as Any) as Any;
    const before = await state(zoneId);

    const conflict = await api(server, 'POST', `/zones/${zoneId}/dns_records/batch`, {
      deletes: [{ id: b.id }],
      patches: [{ id: a.id, content: '192.0.2.50' }],
      posts: [{ type: 'A', name: 'ok', content: '192.0.2.3' }, { type: 'CNAME', name: 'www', content: 'x.example.net' }],
    });
    expect(conflict.status).toBe(400);
    expect(conflict.body.errors).toEqual([{ code: 81053, message: 'posts[1]: An A, AAAA, or CNAME record with that host already exists.' }]);
    expect(await state(zoneId)).toEqual(before);

    const missing = await cf.dns.records.batch({ zone_id: zoneId, posts: [{ type: 'A', name: 'x', content: '192.0.2.7' } as Any], deletes: [{ id: '0123456789abcdef0123456789abcdef' }] })
      .then(() => undefined, (e: unknown) => e) as Any;
    expect(missing).toBeInstanceOf(Cloudflare.NotFoundError);
    expect(missing.errors).toEqual([{ code: 81044, message: 'deletes[0]: Record does not exist.' }]);

    const invalid = await api(server, 'POST', `/zones/${zoneId}/dns_records/batch`, { puts: [{ id: a.id, type: 'A', name: 'www', content: 'not-an-ip' }] });
    expect(invalid.status).toBe(400);
    expect(invalid.body.errors[0].message).toMatch(/^puts\[0\]: /);
    expect(await state(zoneId)).toEqual(before);
  });

  it('wraps validation errors as 1004 with error_chain for api dates before 2024-10-01', async () => {
    const zoneId = await createZone(server, 'old-batch.example');
    const res = await api(server, 'POST', `/zones/${zoneId}/dns_records/batch`, { posts: [{ type: 'A', name: 'x', content: 'bad' }] }, { 'api-version': '2024-09-30' });
    expect(res.status).toBe(400);
    expect(res.body.errors[0].code).toBe(1004);
    expect(res.body.errors[0].error_chain![0]!.message).toMatch(/^posts\[0\]: /);
  });

  it('the zone quota counts the operations before it (batch and import alike)', async () => {
    const zoneId = await createZone(server, 'quota-batch.example');
    const five = Array.from({ length: 5 }, (_, i) => ({ type: 'A', name: `h${i}`, content: '192.0.2.1' }));
    const res = await api(server, 'POST', `/zones/${zoneId}/dns_records/batch`, { posts: five });
    expect(res.body.errors[0]).toEqual({ code: 81045, message: 'posts[4]: Record quota exceeded.' });
    const form = new FormData();
    form.append('file', five.map((r) => `${r.name} A ${r.content}`).join('\n'));
    const imp = await fetch(`${server.apiBase}/zones/${zoneId}/dns_records/import`, { method: 'POST', headers: { 'x-auth-email': server.email, 'x-auth-key': server.key }, body: form });
    expect(((await imp.json()) as Any).errors[0]).toEqual({ code: 81045, message: 'Zone file line 5: Record quota exceeded.' });
    expect((await cf.dns.records.list({ zone_id: zoneId } as Any)).result).toEqual([]);
    // Deleting first makes room within the same batch.
    const four = await cf.dns.records.batch({ zone_id: zoneId, posts: five.slice(0, 4) as Any }) as Any;
    const swap = await cf.dns.records.batch({ zone_id: zoneId, deletes: [{ id: four.posts[0].id }], posts: [five[4] as Any] }) as Any;
    expect(swap.posts[0].name).toBe('h4.quota-batch.example');
  });

  it('checks the body shape and the operation limit', async () => {
    const zoneId = await createZone(server, 'shape-batch.example');
    const notArray = await api(server, 'POST', `/zones/${zoneId}/dns_records/batch`, { posts: { type: 'A' } });
    expect(notArray.body.errors[0]).toEqual({ code: 1215, message: 'posts must be an array of objects' });
    const noId = await api(server, 'POST', `/zones/${zoneId}/dns_records/batch`, { patches: [{ content: 'x' }], deletes: [7] });
    expect(noId.body.errors.map((e) => e.message)).toEqual(['deletes[0] must be an object', 'patches[0] needs the "id" of the record to change']);
    const six = Array.from({ length: 6 }, (_, i) => ({ type: 'A', name: `h${i}`, content: '192.0.2.1' }));
    const tooMany = await api(server, 'POST', `/zones/${zoneId}/dns_records/batch`, { posts: six });
    expect(tooMany.body.errors[0]).toEqual({ code: 1216, message: 'The batch has 6 operations; at most 5 are allowed per request.' });
    expect((await cf.dns.records.list({ zone_id: zoneId } as Any)).result).toEqual([]);
    const empty = await cf.dns.records.batch({ zone_id: zoneId }) as Any;
    expect(empty).toEqual({ deletes: [], patches: [], puts: [], posts: [] });
  });
});
