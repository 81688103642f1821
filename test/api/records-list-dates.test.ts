/**
 * Date-dependent record behaviour through HTTP and the official SDK: the deprecated list filter forms on both
 * sides of 2025-02-21 (and of 2025-05-23 for comma lists), the SDK pinned to 2024-06-01 and to today seeing the
 * documented shapes, SRV `data.service/proto/name` around 2024-05-31, and the "at least one address record"
 * notice.
 */
import Cloudflare from 'cloudflare';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { api, createZone } from '../helpers/api.js';
import { createFixtureZone, key } from './list-language-fixture.js';

type Any = any;
const Z = 'dates.example';
const deprecationOf = (day: string) => `@${Date.parse(`${day}T00:00:00Z`) / 1000}`;

describe('records by api date', () => {
  let server: TestServer;
  let zoneId: string;
  const at = (day: string, query: string) => api(server, 'GET', `/zones/${zoneId}/dns_records?${query}`, undefined, { 'api-version': day });
  const keysAt = async (day: string, query: string) => {
    const res = await at(day, query);
    if (res.status !== 200) throw new Error(`${day} ${query}: ${JSON.stringify(res.body)}`);
    return res.body.result.map((r: Any) => key(r, Z)).sort();
  };
  const sdkAt = (apiVersion: string) => new Cloudflare({ apiEmail: server.email, apiKey: server.key, baseURL: server.apiBase, maxRetries: 0, apiVersion });

  beforeAll(async () => {
    server = await startTestServer();
    zoneId = await createFixtureZone(server, Z);
  });
  afterAll(async () => { await server.stop(); });

  it('honours name=contains:/starts_with:/ends_with: and content= forms before 2025-02-21, with a notice; reads them literally from then', async () => {
    const forms: [string, string[]][] = [
      ['name=contains:ww', ['A www', 'AAAA www', 'TXT _acme-challenge.www']],
      ['name=starts_with:WWW', ['A www', 'AAAA www']],
      [`name=ends_with:.www.${Z}`, ['TXT _acme-challenge.www']],
      ['content=contains:192.0.2.1', ['A api', 'A www']],
      ['content=starts_with:2001', ['AAAA www']],
      ['content=ends_with:~all', ['TXT @']],
      ['type=contains:AAA', ['AAAA www']],
    ];
    for (const [q, expected] of forms) {
      const before = await at('2025-02-20', q);
      expect(before.status, q).toBe(200);
      expect(before.body.result.map((r: Any) => key(r, Z)).sort(), q).toEqual(expected);
      expect(before.headers.get('deprecation'), q).toBe(deprecationOf('2025-02-21'));
      expect(before.headers.get('sunset'), q).toBe(new Date('2025-02-21T00:00:00Z').toUTCString());
      expect(before.headers.get('link'), q).toContain('/client/v4/deprecations/dns-records-list-filter-forms');
      expect(before.body.messages.some((m) => m.code === 7102 && /2025-02-21/.test(m.message)), q).toBe(true);
    }
    for (const [q] of forms.filter(([q]) => !q.startsWith('type='))) {
      const after = await at('2025-02-21', q);
      expect(after.status, q).toBe(200);
      expect(after.body.result, q).toEqual([]);
      expect(after.headers.get('deprecation'), q).toBeNull();
      expect(after.body.messages.some((m) => m.code === 7102), q).toBe(false);
    }
    const type = await at('2025-02-21', 'type=contains:AAA');
    expect(type.status).toBe(400);
    expect(type.body.errors[0]!.message).toMatch(/Invalid type "contains:AAA"/);
    // The new forms are not announced at any date.
    const current = await at('2025-02-20', 'name.contains=ww');
    expect(current.headers.get('deprecation')).toBeNull();
  });

  it('honours comma lists until 2025-05-23 (extended date), then reads them literally', async () => {
    for (const day of ['2025-02-20', '2025-02-21', '2025-05-22']) {
      const res = await at(day, 'name=api,shop');
      expect(res.body.result.map((r: Any) => key(r, Z)).sort(), day).toEqual(['A api', 'CNAME shop']);
      expect(res.headers.get('sunset'), day).toBe(new Date('2025-05-23T00:00:00Z').toUTCString());
      expect(res.body.messages.find((m) => m.code === 7102)!.message, day).toMatch(/multi-value.*2025-05-23/);
    }
    expect(await keysAt('2025-05-22', 'content=192.0.2.10,192.0.2.25')).toEqual(['A mail', 'A www']);
    for (const q of ['name=api,shop', 'content=192.0.2.10,192.0.2.25']) {
      const res = await at('2025-05-23', q);
      expect(res.body.result, q).toEqual([]);
      expect(res.headers.get('deprecation'), q).toBeNull();
    }
    expect(await keysAt('2025-05-23', 'name=api&name=shop&match=any')).toEqual(['A api', 'CNAME shop']);
  });

  it('the SDK sends the dotted filters, tag-match and match=any', async () => {
    const sdk = server.sdk();
    const list = async (params: Record<string, unknown>) =>
      (await sdk.dns.records.list({ zone_id: zoneId, ...params } as Any)).result.map((r: Any) => key(r, Z)).sort();
    expect(await list({ name: { contains: 'ww' }, tag: { exact: 'env:prod' }, match: 'any' })).toEqual(['A www', 'AAAA www', 'TXT _acme-challenge.www']);
    expect(await list({ name: { contains: 'ww' }, tag: { exact: 'env:prod' }, match: 'all' })).toEqual(['A www', 'AAAA www']);
    expect(await list({ name: { startswith: 'www' }, type: 'AAAA' })).toEqual(['AAAA www']);
    expect(await list({ name: { endswith: `.www.${Z}` } })).toEqual(['TXT _acme-challenge.www']);
    expect(await list({ content: { contains: 'spf1', startswith: 'v=spf1' } })).toEqual(['TXT @']);
    expect(await list({ comment: { present: 'yes' } })).toEqual(['A api', 'A www', 'TXT @']);
    expect(await list({ comment: { absent: 'yes' }, type: 'A' })).toEqual(['A mail']);
    expect(await list({ comment: { contains: 'server' } })).toEqual(['A api']);
    expect(await list({ tag: { present: 'team' } })).toEqual(['A www', 'CNAME shop']);
    expect(await list({ tag: { absent: 'env' }, type: 'A' })).toEqual(['A mail']);
    expect(await list({ tag: { startswith: 'team:sa', endswith: 'env:ing' }, tag_match: 'any' })).toEqual(['A api', 'CNAME shop']);
    expect(await list({ search: 'front' })).toEqual(['A www']);
    expect(await list({ proxied: true })).toEqual(['A www']);
    const ordered = await sdk.dns.records.list({ zone_id: zoneId, type: 'A', order: 'content', direction: 'desc' } as Any);
    expect(ordered.result.map((r: Any) => r.content)).toEqual(['192.0.2.25', '192.0.2.11', '192.0.2.10']);
    await expect(sdk.dns.records.list({ zone_id: zoneId, type: 'BOGUS' } as Any)).rejects.toMatchObject({ status: 400 });
  });

  it('the SDK pinned to 2024-06-01 and to today sees the documented record shapes and error forms', async () => {
    const old = sdkAt('2024-06-01');
    const now = sdkAt(new Date().toISOString().slice(0, 10));
    const [oldRec] = (await old.dns.records.list({ zone_id: zoneId, name: { exact: `api.${Z}` } } as Any)).result as Any[];
    expect(oldRec).toMatchObject({ zone_id: zoneId, zone_name: Z, locked: false, name: `api.${Z}` });
    const [newRec] = (await now.dns.records.list({ zone_id: zoneId, name: { exact: `api.${Z}` } } as Any)).result as Any[];
    expect(newRec.name).toBe(`api.${Z}`);
    for (const field of ['zone_id', 'zone_name', 'locked']) expect(newRec).not.toHaveProperty(field);

    const bad = { zone_id: zoneId, type: 'A', name: 'bad', content: '300.1.1.1' } as Any;
    const oldErr = await old.dns.records.create(bad).catch((e: Any) => e);
    expect(oldErr.status).toBe(400);
    expect(oldErr.errors[0]).toMatchObject({ code: 1004, message: 'DNS Validation Error' });
    expect(oldErr.errors[0].error_chain[0].code).toBe(9005);
    const newErr = await now.dns.records.create(bad).catch((e: Any) => e);
    expect(newErr.status).toBe(400);
    expect(newErr.errors[0].code).toBe(9005);
    expect(newErr.errors[0]).not.toHaveProperty('error_chain');

    // SRV: 2024-06-01 is past the end of data.service/proto/name: they are an error and never produced.
    const srvOld = await old.dns.records.create({ zone_id: zoneId, type: 'SRV', name: 'srv1', data: { service: '_sip', proto: '_tcp', priority: 1, weight: 2, port: 5060, target: `sip.${Z}` } } as Any).catch((e: Any) => e);
    expect(srvOld.status).toBe(400);
    expect(JSON.stringify(srvOld.errors)).toMatch(/9522/);
    const srv = await old.dns.records.create({ zone_id: zoneId, type: 'SRV', name: `_sip._tcp.srv1`, data: { priority: 1, weight: 2, port: 5060, target: `sip.${Z}` } } as Any) as Any;
    expect(srv.data).toEqual({ priority: 1, weight: 2, port: 5060, target: `sip.${Z}` });
  });

  it('SRV data.service/proto/name build the name and are produced before 2024-05-31; an error from that date', async () => {
    const body = { type: 'SRV', name: 'old-srv', data: { service: '_xmpp', proto: '_TCP', name: 'old-srv', priority: 5, weight: 10, port: 5222, target: `chat.${Z}` } };
    const before = await api(server, 'POST', `/zones/${zoneId}/dns_records`, body, { 'api-version': '2024-05-30' });
    expect(before.status, JSON.stringify(before.body)).toBe(200);
    expect(before.body.result.name).toBe(`_xmpp._tcp.old-srv.${Z}`);
    expect(before.body.result.data).toEqual({ priority: 5, weight: 10, port: 5222, target: `chat.${Z}`, service: '_xmpp', proto: '_tcp', name: `old-srv.${Z}` });
    const id = before.body.result.id as string;
    const readOld = await api(server, 'GET', `/zones/${zoneId}/dns_records/${id}`, undefined, { 'api-version': '2024-05-30' });
    expect(readOld.body.result.data).toMatchObject({ service: '_xmpp', proto: '_tcp', name: `old-srv.${Z}` });
    const readNew = await api(server, 'GET', `/zones/${zoneId}/dns_records/${id}`, undefined, { 'api-version': '2024-05-31' });
    expect(readNew.body.result.name).toBe(`_xmpp._tcp.old-srv.${Z}`);
    expect(readNew.body.result.data).toEqual({ priority: 5, weight: 10, port: 5222, target: `chat.${Z}` });
    const listed = await api(server, 'GET', `/zones/${zoneId}/dns_records?type=SRV&name.startswith=_xmpp`, undefined, { 'api-version': '2024-05-30' });
    expect(listed.body.result[0].data.service).toBe('_xmpp');

    const after = await api(server, 'POST', `/zones/${zoneId}/dns_records`, { ...body, name: 'new-srv', data: { ...body.data, name: 'new-srv' } }, { 'api-version': '2024-05-31' });
    expect(after.status).toBe(400);
    // 2024-05-31 is before 2024-10-01: the causes come wrapped in 1004's error_chain.
    expect(after.body.errors[0]!.code).toBe(1004);
    expect(after.body.errors[0]!.error_chain!.map((e) => e.code)).toEqual([9522, 9522, 9522]);
    const today = await api(server, 'POST', `/zones/${zoneId}/dns_records`, { ...body, name: 'new-srv', data: { ...body.data, name: 'new-srv' } });
    expect(today.status).toBe(400);
    expect(today.body.errors.map((e) => e.code)).toEqual([9522, 9522, 9522]);
    expect(today.body.errors[0]!.message).toMatch(/removed 2024-05-31/);
    // Before 2024-05-31 a mismatch between the fields and a full name is refused.
    const mismatch = await api(server, 'POST', `/zones/${zoneId}/dns_records`, { ...body, name: '_sip._tcp.other' }, { 'api-version': '2024-05-30' });
    expect(mismatch.status).toBe(400);
    expect(mismatch.body.errors[0]!.code).toBe(1004);
    expect(mismatch.body.errors[0]!.error_chain!.some((e) => e.code === 9523)).toBe(true);
  });

  it('a zone without A, AAAA or CNAME says so in its record list and DNS settings, until it has one', async () => {
    const bare = await createZone(server, 'noaddress.example');
    const notice = (res: { body: { messages: { code: number; message: string }[] } }) => res.body.messages.find((m) => m.code === 1120);
    const list = await api(server, 'GET', `/zones/${bare}/dns_records`);
    expect(list.status).toBe(200);
    expect(notice(list)!.message).toMatch(/noaddress\.example has no A, AAAA or CNAME record/);
    const settings = await api(server, 'GET', `/zones/${bare}/dns_settings`);
    expect(settings.status).toBe(200);
    expect(notice(settings)).toBeDefined();
    await api(server, 'POST', `/zones/${bare}/dns_records`, { type: 'TXT', name: '@', content: 'hello' });
    expect(notice(await api(server, 'GET', `/zones/${bare}/dns_records`))).toBeDefined();
    const created = await api(server, 'POST', `/zones/${bare}/dns_records`, { type: 'AAAA', name: 'v6', content: '2001:db8::5' });
    expect(created.status).toBe(200);
    expect(notice(await api(server, 'GET', `/zones/${bare}/dns_records`))).toBeUndefined();
    expect(notice(await api(server, 'GET', `/zones/${bare}/dns_settings`))).toBeUndefined();
    // The notice is about the zone, not the filtered page.
    expect(notice(await api(server, 'GET', `/zones/${bare}/dns_records?type=TXT`))).toBeUndefined();
    expect(notice(await api(server, 'GET', `/zones/${zoneId}/dns_records`))).toBeUndefined();
  });
});
