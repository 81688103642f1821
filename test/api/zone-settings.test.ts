/**
 * Zone settings through the official SDK (`zones.settings.get/edit`) and the bulk routes: production's list
 * with its defaults, every row of the catalogue readable and writable with its own default, production's
 * validation (enums, numbers, objects merged field by field), 1006 for an unknown name, 1007 for a bad value or a
 * setting that is not editable, nothing written when one bulk item is wrong; a second user and a token with
 * only Zone Settings Read are refused.
 */
import Cloudflare from 'cloudflare';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { api, createZone } from '../helpers/api.js';
import { addUser } from '../helpers/users.js';
import { ZONE_SETTING_ROWS } from '../../src/zones/settings/zone-setting-catalogue.js';

/** Production's bulk list (`zones_zone_settings_response_collection` of the published API description). */
const PRODUCTION_LIST = [
  '0rtt', 'advanced_ddos', 'always_online', 'always_use_https', 'automatic_https_rewrites', 'automatic_platform_optimization', 'brotli',
  'browser_cache_ttl', 'browser_check', 'cache_level', 'challenge_ttl', 'ciphers', 'cname_flattening', 'development_mode', 'early_hints',
  'edge_cache_ttl', 'email_obfuscation', 'h2_prioritization', 'hotlink_protection', 'http2', 'http3', 'image_resizing', 'ip_geolocation',
  'ipv6', 'max_upload', 'min_tls_version', 'minify', 'mirage', 'mobile_redirect', 'nel', 'opportunistic_encryption', 'opportunistic_onion',
  'orange_to_orange', 'origin_error_page_pass_thru', 'polish', 'prefetch_preload', 'proxy_read_timeout', 'pseudo_ipv4', 'response_buffering',
  'rocket_loader', 'security_header', 'security_level', 'server_side_exclude', 'sha1_support', 'sort_query_string_for_cache', 'ssl',
  'ssl_recommender', 'tls_1_2_only', 'tls_1_3', 'tls_client_auth', 'true_client_ip_header', 'waf', 'webp', 'websockets',
];

/** Permission groups "Zone Settings Read" and "Zone Settings Write" (production's ids). */
const SETTINGS_READ = '517b21aee92c4d89936c976ba6e4be55';
const SETTINGS_WRITE = '3030687196b94b638145a3953da2b699';

type Err = InstanceType<typeof Cloudflare.BadRequestError>;

describe('zone settings', () => {
  let server: TestServer;
  let cf: Cloudflare;
  let zoneId: string;
  beforeAll(async () => {
    server = await startTestServer();
    cf = server.sdk();
    zoneId = await createZone(server, 'zone-settings.example');
  });
  afterAll(async () => { await server.stop(); });

  it('lists production\'s settings with production\'s defaults', async () => {
    const res = await api(server, 'GET', `/zones/${zoneId}/settings`);
    expect(res.status).toBe(200);
    const list = res.body.result as Array<Record<string, unknown>>;
    expect(list.map((s) => s.id)).toEqual(PRODUCTION_LIST);
    const byId = Object.fromEntries(list.map((s) => [s.id, s]));
    expect(byId.always_online).toEqual({ id: 'always_online', value: 'on', editable: true, modified_on: null });
    expect(byId.advanced_ddos).toMatchObject({ value: 'off', editable: false });
    expect(byId.browser_cache_ttl!.value).toBe(14400);
    expect(byId.ssl!.value).toBe('flexible'); // a new zone has Universal SSL and Automatic SSL/TLS
    expect(await cf.zones.settings.get('ssl_automatic_mode', { zone_id: zoneId })).toMatchObject({ id: 'ssl_automatic_mode', value: 'auto' });
    expect(byId.min_tls_version!.value).toBe('1.0');
    expect(byId.security_level!.value).toBe('medium');
    expect(byId.ciphers!.value).toEqual([]);
    expect(byId.nel!.value).toEqual({ enabled: false });
    expect(byId.security_header!.value).toEqual({ strict_transport_security: { enabled: false, max_age: 0, include_subdomains: false, preload: false, nosniff: false } });
    expect(byId.ssl_recommender).toEqual({ id: 'ssl_recommender', enabled: false, editable: true, modified_on: null });
    expect(byId.development_mode).toMatchObject({ value: 'off', time_remaining: 0 });
    expect(byId.cname_flattening!.value).toBe('flatten_at_root');
  });

  it('every setting of the catalogue reads its default through the SDK and takes it back', async () => {
    const z = await createZone(server, 'every-setting.example');
    for (const row of ZONE_SETTING_ROWS) {
      if (row.scheduleId === 'zone-setting-privacy-pass') continue; // removed at today's api date (schedule-rows.test.ts)
      const got = await cf.zones.settings.get(row.id, { zone_id: z }) as Record<string, unknown>;
      expect(got[row.field], row.id).toEqual(row.default);
      if (!row.editable) continue;
      const edited = await cf.zones.settings.edit(row.id, { zone_id: z, [row.field]: row.default } as never) as Record<string, unknown>;
      expect(edited[row.field], row.id).toEqual(row.default);
      expect(edited.modified_on, row.id).toMatch(/Z$/);
    }
  });

  it('edits enums, numbers and objects (merged field by field) through the SDK', async () => {
    expect(await cf.zones.settings.edit('ssl', { zone_id: zoneId, value: 'strict' })).toMatchObject({ id: 'ssl', value: 'strict', editable: true });
    expect(await cf.zones.settings.edit('browser_cache_ttl', { zone_id: zoneId, value: 0 })).toMatchObject({ value: 0 });
    expect(await cf.zones.settings.edit('proxy_read_timeout', { zone_id: zoneId, value: 6000 })).toMatchObject({ value: 6000 });
    expect(await cf.zones.settings.edit('ciphers', { zone_id: zoneId, value: ['ECDHE-RSA-AES128-GCM-SHA256', 'AES128-SHA'] })).toMatchObject({ value: ['ECDHE-RSA-AES128-GCM-SHA256', 'AES128-SHA'] });
    const hsts = await cf.zones.settings.edit('security_header', { zone_id: zoneId, value: { strict_transport_security: { enabled: true, max_age: 31536000 } } });
    expect(hsts).toMatchObject({ value: { strict_transport_security: { enabled: true, max_age: 31536000, include_subdomains: false, preload: false, nosniff: false } } });
    const hsts2 = await cf.zones.settings.edit('security_header', { zone_id: zoneId, value: { strict_transport_security: { nosniff: true } } });
    expect(hsts2).toMatchObject({ value: { strict_transport_security: { enabled: true, max_age: 31536000, nosniff: true } } });
    const mobile = await cf.zones.settings.edit('mobile_redirect', { zone_id: zoneId, value: { status: 'on', mobile_subdomain: 'm' } as never });
    expect(mobile).toMatchObject({ value: { status: 'on', mobile_subdomain: 'm', strip_uri: false } });
    expect(await cf.zones.settings.edit('ssl_recommender', { zone_id: zoneId, enabled: true })).toMatchObject({ id: 'ssl_recommender', enabled: true });
    const dev = await cf.zones.settings.edit('development_mode', { zone_id: zoneId, value: 'on' }) as { value: string; time_remaining: number };
    expect(dev.value).toBe('on');
    expect(dev.time_remaining).toBeGreaterThan(10000);
    expect(dev.time_remaining).toBeLessThanOrEqual(10800);
    expect(await cf.zones.settings.get('ssl', { zone_id: zoneId })).toMatchObject({ value: 'strict' });
    // The zone object reports the seconds development mode has left.
    expect((await cf.zones.get({ zone_id: zoneId })).development_mode).toBeGreaterThan(10000);
  });

  it('refuses bad values (1007), a setting that is not editable (1007) and unknown names (1006)', async () => {
    const cases: Array<[string, unknown, string]> = [
      ['ssl', 'maximum', 'expected one of "off", "flexible", "full", "strict"'],
      ['browser_cache_ttl', 15, 'expected one of 0, 30, 60'],
      ['proxy_read_timeout', 6001, 'expected an integer from 1 to 6000'],
      ['min_tls_version', 1.2, 'expected one of "1.0", "1.1", "1.2", "1.3"'],
      ['minify', { css: 'on', jsx: 'on' }, 'unknown field "jsx"'],
      ['security_header', { strict_transport_security: { max_age: -1 } }, 'strict_transport_security: max_age: expected an integer from 0 to 31536000'],
      ['mobile_redirect', { mobile_subdomain: 'not a label' }, 'mobile_subdomain: expected a label (m) or null'],
      ['ciphers', ['AES128-SHA', 'AES128-SHA'], 'listed twice'],
      ['automatic_platform_optimization', { enabled: true }, 'missing cf, wordpress, wp_plugin, hostnames, cache_by_device_type'],
      ['advanced_ddos', 'on', 'Zone setting advanced_ddos is not editable for this zone'],
    ];
    for (const [id, value, message] of cases) {
      const err = await cf.zones.settings.edit(id, { zone_id: zoneId, value } as never).catch((e: unknown) => e);
      expect(err, id).toBeInstanceOf(Cloudflare.BadRequestError);
      expect((err as Err).errors[0]!.code, id).toBe(1007);
      expect((err as Err).errors[0]!.message, id).toContain(message);
    }
    const unknown = await cf.zones.settings.get('teleport', { zone_id: zoneId }).catch((e: unknown) => e);
    expect(unknown).toBeInstanceOf(Cloudflare.BadRequestError);
    expect((unknown as Err).errors).toEqual([{ code: 1006, message: 'Unrecognized zone setting name "teleport"' }]);
    const noValue = await api(server, 'PATCH', `/zones/${zoneId}/settings/ssl`, { valu: 'full' });
    expect(noValue.body.errors[0]).toMatchObject({ code: 1007, message: 'Invalid value for zone setting ssl: send {"value": <value>}' });
  });

  it('bulk PATCH applies every item or none', async () => {
    const z = await createZone(server, 'bulk-settings.example');
    const bad = await api(server, 'PATCH', `/zones/${z}/settings`, { items: [{ id: 'always_online', value: 'off' }, { id: 'cache_level', value: 'everything' }, { id: 'polish', value: 'lossy' }] });
    expect(bad.status).toBe(400);
    expect(bad.body.errors.map((e) => e.code)).toEqual([1007]);
    expect(await cf.zones.settings.get('always_online', { zone_id: z })).toMatchObject({ value: 'on' });
    const good = await api(server, 'PATCH', `/zones/${z}/settings`, { items: [{ id: 'always_online', value: 'off' }, { id: 'cache_level', value: 'basic' }, { id: 'ssl_recommender', enabled: true }] });
    expect(good.status).toBe(200);
    expect(good.body.result.map((s: Record<string, unknown>) => [s.id, s.value ?? s.enabled])).toEqual([['always_online', 'off'], ['cache_level', 'basic'], ['ssl_recommender', true]]);
    const list = (await api(server, 'GET', `/zones/${z}/settings`)).body.result as Array<{ id: string; value: unknown; modified_on: string | null }>;
    expect(list.find((s) => s.id === 'cache_level')).toMatchObject({ value: 'basic', modified_on: expect.stringMatching(/Z$/) });
  });

  it('a second user sees no settings of another account\'s zone; a Zone Settings Read token cannot edit', async () => {
    const other = await addUser(server, 'settings-other@example.com');
    await expect(other.sdk().zones.settings.get('ssl', { zone_id: zoneId })).rejects.toBeInstanceOf(Cloudflare.NotFoundError);
    await expect(other.sdk().zones.settings.edit('ssl', { zone_id: zoneId, value: 'off' })).rejects.toBeInstanceOf(Cloudflare.NotFoundError);
    const bulk = await api(server, 'GET', `/zones/${zoneId}/settings`, undefined, { 'x-auth-email': other.email, 'x-auth-key': other.key });
    expect(bulk.status).toBe(404);
    // The second user's own token, with Zone Settings Write over every zone: the first account's zone is still not found.
    const otherAuth = { 'x-auth-email': other.email, 'x-auth-key': other.key };
    const otherToken = (await api(server, 'POST', '/user/tokens', {
      name: 'other-settings', policies: [{ effect: 'allow', resources: { 'com.cloudflare.api.account.zone.*': '*' }, permission_groups: [{ id: SETTINGS_WRITE }] }],
    }, otherAuth)).body.result.value as string;
    const asOther = new Cloudflare({ apiToken: otherToken, baseURL: server.apiBase, maxRetries: 0 });
    await expect(asOther.zones.settings.get('ssl_automatic_mode', { zone_id: zoneId })).rejects.toBeInstanceOf(Cloudflare.NotFoundError);
    await expect(asOther.zones.settings.edit('ssl', { zone_id: zoneId, value: 'off' })).rejects.toBeInstanceOf(Cloudflare.NotFoundError);
    const tokenBulk = await api(server, 'GET', `/zones/${zoneId}/settings`, undefined, { 'x-auth-email': undefined, 'x-auth-key': undefined, authorization: `Bearer ${otherToken}` });
    expect(tokenBulk.status).toBe(404);
    expect(JSON.stringify(tokenBulk.body)).not.toMatch(/"value"|ssl_automatic_mode|flexible/);
    expect(((await cf.zones.settings.get('ssl', { zone_id: zoneId })) as { value?: unknown }).value).not.toBe('off');

    const make = async (group: string) => (await api(server, 'POST', '/user/tokens', {
      name: `settings-${group}`, policies: [{ effect: 'allow', resources: { [`com.cloudflare.api.account.zone.${zoneId}`]: '*' }, permission_groups: [{ id: group }] }],
    })).body.result.value as string;
    const reader = new Cloudflare({ apiToken: await make(SETTINGS_READ), baseURL: server.apiBase, maxRetries: 0 });
    expect((await reader.zones.settings.get('ssl', { zone_id: zoneId })).id).toBe('ssl');
    await expect(reader.zones.settings.edit('ssl', { zone_id: zoneId, value: 'off' })).rejects.toBeInstanceOf(Cloudflare.PermissionDeniedError);
    const writer = new Cloudflare({ apiToken: await make(SETTINGS_WRITE), baseURL: server.apiBase, maxRetries: 0 });
    expect(await writer.zones.settings.edit('ssl', { zone_id: zoneId, value: 'full' })).toMatchObject({ value: 'full' });
  });
});
