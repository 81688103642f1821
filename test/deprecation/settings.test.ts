/** Zone settings, DNS settings and their legacy forms: shapes, validation, and sync both ways at every date. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { accountId, api, createZone } from '../helpers/api.js';

let server: TestServer;
let zoneId: string;
let account: string;
const DATES = ['2024-01-01', '2026-01-01'];

describe('zone and DNS settings', () => {
  beforeAll(async () => {
    server = await startTestServer({ flags: { nameservers: 'ns1.settings.test,ns2.settings.test' } });
    zoneId = await createZone(server, 'settings.example');
    account = await accountId(server);
  });
  afterAll(async () => { await server?.stop(); });

  it('serves the full DNS settings shape with defaults', async () => {
    const res = await api(server, 'GET', `/zones/${zoneId}/dns_settings`);
    expect(res.status).toBe(200);
    expect(res.body.result).toEqual({
      flatten_all_cnames: false, foundation_dns: false, internal_dns: { reference_zone_id: null }, multi_provider: false,
      nameservers: { type: 'cloudflare.standard', ns_set: 1 }, ns_ttl: 86400, secondary_overrides: false,
      soa: { expire: 604800, min_ttl: 1800, mname: null, refresh: 10000, retry: 2400, rname: 'dns.settings.test', ttl: 3600 },
      zone_mode: 'standard',
    });
  });

  it('patches nested soa and nameservers partially, bumps the serial and announces the change', async () => {
    const seen: string[] = [];
    const before = await server.sdk().zones.get({ zone_id: zoneId });
    void before;
    const res = await api(server, 'PATCH', `/zones/${zoneId}/dns_settings`, { soa: { ttl: 1800 }, nameservers: { ns_set: 3 }, ns_ttl: 3600 });
    expect(res.status).toBe(200);
    expect(res.body.result.soa).toMatchObject({ ttl: 1800, refresh: 10000, expire: 604800 });
    expect(res.body.result.nameservers).toEqual({ type: 'cloudflare.standard', ns_set: 3 });
    expect(res.body.result.ns_ttl).toBe(3600);
    const again = await api(server, 'GET', `/zones/${zoneId}/dns_settings`);
    expect(again.body.result).toEqual(res.body.result);
    void seen;
  });

  it('rejects invalid values with every problem listed (1105)', async () => {
    const res = await api(server, 'PATCH', `/zones/${zoneId}/dns_settings`, { ns_ttl: 5, zone_mode: 'weird', soa: { ttl: 10, rname: 'not an address' }, nameservers: { type: 'custom.other' }, bogus: 1 });
    expect(res.status).toBe(400);
    const messages = res.body.errors.map((e) => e.message).join('\n');
    expect(res.body.errors.every((e) => e.code === 1105)).toBe(true);
    for (const field of ['ns_ttl', 'zone_mode', 'soa.ttl', 'soa.rname', 'nameservers.type', '"bogus"']) expect(messages).toContain(field);
    const cross = await api(server, 'PATCH', `/zones/${zoneId}/dns_settings`, { soa: { retry: 5000, refresh: 4000 } });
    expect(cross.status).toBe(400);
    expect(cross.body.errors[0]!.message).toContain('soa.retry');
    const notObject = await api(server, 'PATCH', `/zones/${zoneId}/dns_settings`, [1]);
    expect(notObject.status).toBe(400);
    const unchanged = await api(server, 'GET', `/zones/${zoneId}/dns_settings`);
    expect(unchanged.body.result.ns_ttl).toBe(3600);
  });

  it('keeps cname_flattening and flatten_all_cnames in sync both ways at every date', async () => {
    for (const date of DATES) {
      const h = { 'api-version': date };
      for (const [value, flat] of [['on', true], ['off', false], ['flatten_all', true], ['apex', false], ['flatten_all', true], ['flatten_at_root', false]] as const) {
        const set = await api(server, 'PATCH', `/zones/${zoneId}/settings/cname_flattening`, { value }, h);
        expect(set.status).toBe(200);
        expect(set.body.result).toMatchObject({ id: 'cname_flattening', value: flat ? 'flatten_all' : 'flatten_at_root', editable: true });
        expect((await api(server, 'GET', `/zones/${zoneId}/dns_settings`, undefined, h)).body.result.flatten_all_cnames).toBe(flat);
      }
      await api(server, 'PATCH', `/zones/${zoneId}/dns_settings`, { flatten_all_cnames: true }, h);
      expect((await api(server, 'GET', `/zones/${zoneId}/settings/cname_flattening`, undefined, h)).body.result.value).toBe('flatten_all');
      const bulk = await api(server, 'GET', `/zones/${zoneId}/settings`, undefined, h);
      expect(bulk.body.result.find((s: { id: string }) => s.id === 'cname_flattening').value).toBe('flatten_all');
      await api(server, 'PATCH', `/zones/${zoneId}/dns_settings`, { flatten_all_cnames: false }, h);
      expect((await api(server, 'GET', `/zones/${zoneId}/settings/cname_flattening`, undefined, h)).body.result.value).toBe('flatten_at_root');
    }
    const bad = await api(server, 'PATCH', `/zones/${zoneId}/settings/cname_flattening`, { value: 'sometimes' });
    expect(bad.status).toBe(400);
    expect(bad.body.errors[0]!.code).toBe(1007);
  });

  it('keeps use_apex_ns / secondary_overrides and their fields in sync both ways at every date', async () => {
    for (const date of DATES) {
      const h = { 'api-version': date };
      for (const [endpoint, field] of [['use_apex_ns', 'multi_provider'], ['secondary_overrides', 'secondary_overrides']] as const) {
        for (const value of [true, false]) {
          const set = await api(server, 'PATCH', `/zones/${zoneId}/dns_settings/${endpoint}`, { id: endpoint, value }, h);
          expect(set.body.result).toMatchObject({ id: endpoint, value });
          expect((await api(server, 'GET', `/zones/${zoneId}/dns_settings`, undefined, h)).body.result[field]).toBe(value);
          await api(server, 'PATCH', `/zones/${zoneId}/dns_settings`, { [field]: !value }, h);
          expect((await api(server, 'GET', `/zones/${zoneId}/dns_settings/${endpoint}`, undefined, h)).body.result.value).toBe(!value);
        }
      }
    }
    const bad = await api(server, 'PATCH', `/zones/${zoneId}/dns_settings/use_apex_ns`, { value: 'maybe' });
    expect(bad.status).toBe(400);
    expect(bad.body.errors[0]!.code).toBe(1105);
  });

  it('serves zone settings one by one and in bulk, validated, nothing applied when one item is wrong', async () => {
    const one = await api(server, 'GET', `/zones/${zoneId}/settings/minify`);
    expect(one.body.result).toEqual({ id: 'minify', value: { css: 'off', html: 'off', js: 'off' }, editable: true, modified_on: null });
    const patched = await api(server, 'PATCH', `/zones/${zoneId}/settings/minify`, { value: { js: 'on' } });
    expect(patched.body.result.value).toEqual({ css: 'off', html: 'off', js: 'on' });
    expect(patched.body.result.modified_on).toMatch(/Z$/);
    const bulk = await api(server, 'PATCH', `/zones/${zoneId}/settings`, { items: [{ id: 'http2', value: 'on' }, { id: 'http3', value: 'on' }] });
    expect(bulk.body.result.map((s: { id: string; value: string }) => [s.id, s.value])).toEqual([['http2', 'on'], ['http3', 'on']]);
    const wrong = await api(server, 'PATCH', `/zones/${zoneId}/settings`, { items: [{ id: 'brotli', value: 'off' }, { id: 'mobile_redirect', value: { status: 'maybe' } }] });
    expect(wrong.status).toBe(400);
    expect(wrong.body.errors[0]).toMatchObject({ code: 1007 });
    expect((await api(server, 'GET', `/zones/${zoneId}/settings/brotli`)).body.result.value).toBe('on');
    const unknown = await api(server, 'GET', `/zones/${zoneId}/settings/teleport`);
    expect(unknown.status).toBe(400);
    expect(unknown.body.errors[0]!.code).toBe(1006);
    const foreign = await api(server, 'GET', `/zones/${'e'.repeat(32)}/settings/brotli`);
    expect(foreign.status).toBe(404);
    expect(foreign.body.errors[0]!.code).toBe(7003);
  });

  it('account DNS settings: zone_defaults validated, applied to new zones, legacy account fields in sync', async () => {
    const get = await api(server, 'GET', `/accounts/${account}/dns_settings`);
    expect(get.body.result).toMatchObject({ enforce_dns_only: false, zone_defaults: { nameservers: { type: 'cloudflare.standard' }, ns_ttl: 86400 } });
    const bad = await api(server, 'PATCH', `/accounts/${account}/dns_settings`, { zone_defaults: { nameservers: { type: 'cloudflare.advanced' } } });
    expect(bad.status).toBe(400);
    expect(bad.body.errors[0]!.code).toBe(1105);
    const set = await api(server, 'PATCH', `/accounts/${account}/dns_settings`, { enforce_dns_only: true, zone_defaults: { ns_ttl: 7200, flatten_all_cnames: true, nameservers: { type: 'custom.tenant' } } });
    expect(set.body.result).toMatchObject({ enforce_dns_only: true, zone_defaults: { ns_ttl: 7200, flatten_all_cnames: true, nameservers: { type: 'custom.tenant' } } });
    const foreign = await api(server, 'GET', `/accounts/${'d'.repeat(32)}/dns_settings`);
    expect(foreign.status).toBe(404);
  });
});

describe('account legacy nameserver fields', () => {
  let s: TestServer;
  let acc: string;
  beforeAll(async () => { s = await startTestServer(); acc = await accountId(s); });
  afterAll(async () => { await s?.stop(); });

  const legacy = async (date: string) => (await api(s, 'GET', `/accounts/${acc}`, undefined, { 'api-version': date })).body.result.settings;
  const type = async (date: string) => (await api(s, 'GET', `/accounts/${acc}/dns_settings`, undefined, { 'api-version': date })).body.result.zone_defaults.nameservers.type;

  it('follow zone_defaults.nameservers.type and write it, at every date', async () => {
    for (const date of ['2025-03-13', '2025-03-14']) {
      expect(await legacy(date)).toMatchObject({ default_nameservers: 'cloudflare.standard', use_account_custom_ns_by_default: false });
      expect((await legacy(date)).dns_settings).toBeUndefined();
      await api(s, 'PATCH', `/accounts/${acc}/dns_settings`, { zone_defaults: { nameservers: { type: 'custom.account' } } }, { 'api-version': date });
      expect(await legacy(date)).toMatchObject({ default_nameservers: 'custom.account', use_account_custom_ns_by_default: true });
      const put = await api(s, 'PUT', `/accounts/${acc}`, { settings: { use_account_custom_ns_by_default: false } }, { 'api-version': date });
      expect(put.status).toBe(200);
      expect(put.body.result.settings).toMatchObject({ default_nameservers: 'cloudflare.standard', use_account_custom_ns_by_default: false });
      expect(await type(date)).toBe('cloudflare.standard');
      await api(s, 'PUT', `/accounts/${acc}`, { settings: { default_nameservers: 'custom.tenant' } }, { 'api-version': date });
      expect(await type(date)).toBe('custom.tenant');
      await api(s, 'PATCH', `/accounts/${acc}/dns_settings`, { zone_defaults: { nameservers: { type: 'cloudflare.standard.random' } } }, { 'api-version': date });
      expect(await legacy(date)).toMatchObject({ default_nameservers: 'cloudflare.standard', use_account_custom_ns_by_default: false });
      await api(s, 'PUT', `/accounts/${acc}`, { settings: { default_nameservers: 'cloudflare.standard' } }, { 'api-version': date });
      expect(await type(date)).toBe('cloudflare.standard.random');
      await api(s, 'PATCH', `/accounts/${acc}/dns_settings`, { zone_defaults: { nameservers: { type: 'cloudflare.standard' } } }, { 'api-version': date });
    }
    const contradictory = await api(s, 'PUT', `/accounts/${acc}`, { settings: { default_nameservers: 'custom.tenant', use_account_custom_ns_by_default: true } });
    expect(contradictory.status).toBe(400);
    const badValue = await api(s, 'PUT', `/accounts/${acc}`, { settings: { default_nameservers: 'elsewhere' } });
    expect(badValue.status).toBe(400);
    expect(badValue.body.errors[0]!.code).toBe(1105);
  });

  it('new zones take the account defaults', async () => {
    await api(s, 'PATCH', `/accounts/${acc}/dns_settings`, { zone_defaults: { ns_ttl: 600, multi_provider: true, soa: { ttl: 900 }, nameservers: { type: 'custom.account' } } });
    const id = await createZone(s, 'defaults.example');
    const got = await api(s, 'GET', `/zones/${id}/dns_settings`);
    expect(got.body.result).toMatchObject({ ns_ttl: 600, multi_provider: true, soa: { ttl: 900, refresh: 10000 }, nameservers: { type: 'custom.account', ns_set: 1 } });
    expect(typeof got.body.result.soa.rname).toBe('string');
  });
});
