/**
 * API tokens end to end with the official SDK: creating user and account tokens with the global key and with
 * a token, verifying them, and what a token may reach: zone-scoped, read-only, account-wide with a deny,
 * IP-restricted, expired, disabled, rolled and deleted tokens, against a real Stratus over HTTP.
 */
import fs from 'node:fs';
import path from 'node:path';
import Cloudflare from 'cloudflare';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { accountId, api, createZone } from '../helpers/api.js';

const DNS_READ = '82e64a83756745bbbb1c9c2701bf816b';
const DNS_WRITE = '4755a26eedb94da69e1066d98aa820be';
const ZONE_READ = 'c8fed203ed3043cba015a93ad1616f1f';
const ZONE_WRITE = 'e6d2666161e84845a636613608cee8d5';
const API_TOKENS_WRITE = '686d18d5ac6c441c867cbf6771e58a0a';
const ACCOUNT_API_TOKENS_WRITE = '5bc3f8b21c554832afc660159ab75fa4';

type Resources = Record<string, string> | Record<string, Record<string, string>>;
const policy = (groups: string[], resources: Resources, effect: 'allow' | 'deny' = 'allow') =>
  ({ effect, permission_groups: groups.map((id) => ({ id })), resources });
const zoneKey = (id: string) => `com.cloudflare.api.account.zone.${id}`;

describe('API tokens', () => {
  let server: TestServer;
  let admin: Cloudflare;
  let account: string;
  let zoneA: string;
  let zoneB: string;
  const withToken = (value: string) => new Cloudflare({ apiToken: value, baseURL: server.apiBase, maxRetries: 0 });
  const bearer = (value: string) => ({ 'x-auth-email': undefined, 'x-auth-key': undefined, authorization: `Bearer ${value}` });
  const create = async (name: string, policies: ReturnType<typeof policy>[], extra: Record<string, unknown> = {}) =>
    (await admin.user.tokens.create({ name, policies, ...extra } as Parameters<Cloudflare['user']['tokens']['create']>[0])) as { id: string; value: string; status: string };

  beforeAll(async () => {
    server = await startTestServer();
    admin = server.sdk();
    account = await accountId(server);
    zoneA = await createZone(server, 'tokens-a.example');
    zoneB = await createZone(server, 'tokens-b.example');
  });
  afterAll(async () => { await server.stop(); });

  it('lists the permission groups a policy may name', async () => {
    const groups = [];
    for await (const g of admin.user.tokens.permissionGroups.list()) groups.push(g);
    expect(groups).toContainEqual(expect.objectContaining({ id: DNS_WRITE, name: 'DNS Write', scopes: ['com.cloudflare.api.account.zone'] }));
    const filtered = [];
    for await (const g of admin.user.tokens.permissionGroups.list({ name: 'DNS Read' })) filtered.push(g);
    expect(filtered.map((g) => g.id)).toEqual([DNS_READ]);
  });

  it('a token scoped to one zone with DNS Write: verify, see and edit that zone only', async () => {
    const created = await create('certbot', [policy([DNS_WRITE], { [zoneKey(zoneA)]: '*' })]);
    expect(created.value).toMatch(/^[A-Za-z0-9_-]{40}$/);
    expect(created.status).toBe('active');
    const shown = await admin.user.tokens.get(created.id);
    expect(shown).not.toHaveProperty('value');
    expect(shown.policies![0]!.permission_groups).toEqual([{ id: DNS_WRITE, name: 'DNS Write' }]);

    const cf = withToken(created.value);
    expect(await cf.user.tokens.verify()).toEqual({ id: created.id, status: 'active' });
    const verified = await api(server, 'GET', '/user/tokens/verify', undefined, bearer(created.value));
    expect(verified.body.messages).toEqual([{ code: 10000, message: 'This API Token is valid and active' }]);

    const zones = [];
    for await (const z of cf.zones.list()) zones.push(z.name);
    expect(zones).toEqual(['tokens-a.example']);
    const rec = await cf.dns.records.create({ zone_id: zoneA, type: 'TXT', name: '_acme-challenge', content: '"abc"', ttl: 120 });
    const listed = [];
    for await (const r of cf.dns.records.list({ zone_id: zoneA, type: 'TXT' })) listed.push(r.id);
    expect(listed).toEqual([rec.id]);
    await cf.dns.records.delete(rec.id, { zone_id: zoneA });

    // Another zone of the same account: 403 10000.
    const other = await api(server, 'POST', `/zones/${zoneB}/dns_records`, { type: 'A', name: 'x', content: '192.0.2.1' }, bearer(created.value));
    expect(other.status).toBe(403);
    expect(other.body.errors).toEqual([{ code: 10000, message: 'Authentication error' }]);
    await expect(cf.zones.get({ zone_id: zoneB })).rejects.toBeInstanceOf(Cloudflare.PermissionDeniedError);
    // The zone, but a capability the token lacks: 403 9109.
    const settings = await api(server, 'PATCH', `/zones/${zoneA}/settings/http2`, { value: 'off' }, bearer(created.value));
    expect(settings.status).toBe(403);
    expect(settings.body.errors).toEqual([{ code: 9109, message: 'Unauthorized to access requested resource' }]);
    await expect(cf.zones.delete({ zone_id: zoneA })).rejects.toBeInstanceOf(Cloudflare.PermissionDeniedError);
    await expect(cf.zones.create({ account: { id: account }, name: 'nope.example' })).rejects.toBeInstanceOf(Cloudflare.PermissionDeniedError);
    // DNS Write also reads and edits the zone's DNS settings (as production's DNS groups do).
    expect((await api(server, 'GET', `/zones/${zoneA}/dns_settings`, undefined, bearer(created.value))).status).toBe(200);
    // Managing tokens needs API Tokens Read/Write.
    expect((await api(server, 'GET', '/user/tokens', undefined, bearer(created.value))).body.errors[0]!.code).toBe(9109);
    // Accounts the token reaches through its zone are listed; creating accounts needs the global key.
    expect((await api(server, 'GET', '/accounts', undefined, bearer(created.value))).body.result.map((a: { id: string }) => a.id)).toEqual([account]);
    expect((await api(server, 'POST', '/accounts', { name: 'x' }, bearer(created.value))).status).toBe(403);
  });

  it('a read-only token on the whole account reads every zone and writes nothing', async () => {
    const { value } = await create('reader', [policy([DNS_READ, ZONE_READ], { [`com.cloudflare.api.account.${account}`]: '*' })]);
    const cf = withToken(value);
    const zones = [];
    for await (const z of cf.zones.list()) zones.push(z.name);
    expect(zones.sort()).toEqual(['tokens-a.example', 'tokens-b.example']);
    for await (const r of cf.dns.records.list({ zone_id: zoneB })) void r;
    const res = await api(server, 'POST', `/zones/${zoneB}/dns_records`, { type: 'A', name: 'w', content: '192.0.2.2' }, bearer(value));
    expect(res.status).toBe(403);
    expect(res.body.errors[0]!.code).toBe(9109);
    await expect(cf.dns.records.create({ zone_id: zoneA, type: 'A', name: 'w', content: '192.0.2.2', ttl: 1 })).rejects.toBeInstanceOf(Cloudflare.PermissionDeniedError);
  });

  it('a deny policy takes a zone out of an account-wide token', async () => {
    const { value } = await create('all-but-b', [
      policy([DNS_WRITE, ZONE_WRITE], { [`com.cloudflare.api.account.${account}`]: { 'com.cloudflare.api.account.zone.*': '*' } }),
      policy([DNS_WRITE, ZONE_WRITE], { [zoneKey(zoneB)]: '*' }, 'deny'),
    ]);
    const cf = withToken(value);
    const zones = [];
    for await (const z of cf.zones.list()) zones.push(z.name);
    expect(zones).toEqual(['tokens-a.example']);
    expect((await cf.dns.records.create({ zone_id: zoneA, type: 'A', name: 'deny-test', content: '192.0.2.3', ttl: 1 })).name).toBe('deny-test.tokens-a.example');
    expect((await api(server, 'GET', `/zones/${zoneB}/dns_records`, undefined, bearer(value))).status).toBe(403);
  });

  it('a token with Zone Write on the account creates and deletes zones', async () => {
    const { value } = await create('zones', [policy([ZONE_WRITE, DNS_WRITE], { [`com.cloudflare.api.account.${account}`]: '*' })]);
    const cf = withToken(value);
    const zone = await cf.zones.create({ account: { id: account }, name: 'made-by-token.example' });
    expect(zone.name).toBe('made-by-token.example');
    await cf.zones.delete({ zone_id: zone.id });
  });

  it('request_ip conditions, validity windows and status decide whether a token authenticates', async () => {
    const elsewhere = await create('office-only', [policy([DNS_READ], { [zoneKey(zoneA)]: '*' })], { condition: { request_ip: { in: ['10.0.0.0/8'] } } });
    const refused = await api(server, 'GET', `/zones/${zoneA}/dns_records`, undefined, bearer(elsewhere.value));
    expect(refused.status).toBe(403);
    expect(refused.body.errors[0]).toEqual({ code: 9109, message: 'Cannot use the access token from location: 127.0.0.1' });
    const local = await create('loopback', [policy([DNS_READ], { [zoneKey(zoneA)]: '*' })], { condition: { request_ip: { in: ['127.0.0.0/8', '::1/128'], not_in: ['127.0.0.2/32'] } } });
    expect((await api(server, 'GET', `/zones/${zoneA}/dns_records`, undefined, bearer(local.value))).status).toBe(200);

    const expired = await create('expired', [policy([DNS_READ], { [zoneKey(zoneA)]: '*' })], { expires_on: '2020-01-01T00:00:00Z' });
    expect(expired.status).toBe('expired');
    await expect(withToken(expired.value).user.tokens.verify()).rejects.toBeInstanceOf(Cloudflare.AuthenticationError);
    const future = await create('future', [policy([DNS_READ], { [zoneKey(zoneA)]: '*' })], { not_before: '2999-01-01T00:00:00Z' });
    expect((await api(server, 'GET', '/zones', undefined, bearer(future.value))).status).toBe(401);

    const listed = await api(server, 'GET', '/user/tokens?per_page=50');
    expect(listed.body.result.map((t: { name: string }) => t.name)).not.toContain('expired');
    const withExpired = await api(server, 'GET', '/user/tokens?per_page=50&include_expired=true');
    expect(withExpired.body.result.map((t: { name: string }) => t.name)).toContain('expired');
  });

  it('a token with API Tokens Write manages tokens: disable, roll and delete take effect at once', async () => {
    const me = (await api(server, 'GET', '/user/tokens?per_page=1')).body;
    expect(me.success).toBe(true);
    const userId = await userIdOf(server);
    const manager = withToken((await create('manager', [policy([API_TOKENS_WRITE], { [`com.cloudflare.api.user.${userId}`]: '*' })])).value);
    const made = (await manager.user.tokens.create({ name: 'child', policies: [policy([DNS_READ], { [zoneKey(zoneA)]: '*' })] })) as { id: string; value: string };
    const child = withToken(made.value);
    expect((await child.user.tokens.verify()).status).toBe('active');

    await manager.user.tokens.update(made.id, { name: 'child', policies: [policy([DNS_READ], { [zoneKey(zoneA)]: '*' })], status: 'disabled' });
    await expect(child.user.tokens.verify()).rejects.toBeInstanceOf(Cloudflare.AuthenticationError);
    await manager.user.tokens.update(made.id, { name: 'child renamed', policies: [policy([DNS_READ], { [zoneKey(zoneA)]: '*' })], status: 'active' });
    expect((await child.user.tokens.verify()).status).toBe('active');
    expect((await admin.user.tokens.get(made.id)).name).toBe('child renamed');

    const rolled = await manager.user.tokens.value.update(made.id);
    expect(rolled).toMatch(/^[A-Za-z0-9_-]{40}$/);
    await expect(child.user.tokens.verify()).rejects.toBeInstanceOf(Cloudflare.AuthenticationError);
    expect((await withToken(rolled).user.tokens.verify()).id).toBe(made.id);

    expect(await manager.user.tokens.delete(made.id)).toEqual({ id: made.id });
    await expect(withToken(rolled).user.tokens.verify()).rejects.toBeInstanceOf(Cloudflare.AuthenticationError);
    await expect(admin.user.tokens.get(made.id)).rejects.toBeInstanceOf(Cloudflare.NotFoundError);
  });

  it('account-owned tokens act on their account only and verify under the account', async () => {
    const made = await admin.accounts.tokens.create({ account_id: account, name: 'ci', policies: [policy([DNS_WRITE], { [`com.cloudflare.api.account.${account}`]: '*' })] }) as { id: string; value: string };
    const cf = withToken(made.value);
    expect(await cf.accounts.tokens.verify({ account_id: account })).toEqual({ id: made.id, status: 'active' });
    const atUser = await api(server, 'GET', '/user/tokens/verify', undefined, bearer(made.value));
    expect(atUser.status).toBe(401);
    expect(atUser.body.errors).toEqual([{ code: 1000, message: 'Invalid API Token' }]);
    expect((await cf.dns.records.create({ zone_id: zoneB, type: 'A', name: 'acct', content: '192.0.2.4', ttl: 1 })).name).toBe('acct.tokens-b.example');
    // It cannot manage tokens without Account API Tokens Write.
    expect((await api(server, 'GET', `/accounts/${account}/tokens`, undefined, bearer(made.value))).status).toBe(403);
    const manager = await admin.accounts.tokens.create({ account_id: account, name: 'acct-manager', policies: [policy([ACCOUNT_API_TOKENS_WRITE], { [`com.cloudflare.api.account.${account}`]: '*' })] }) as { value: string };
    const page = await api(server, 'GET', `/accounts/${account}/tokens`, undefined, bearer(manager.value));
    expect(page.body.result.map((t: { name: string }) => t.name).sort()).toEqual(['acct-manager', 'ci']);
    // User tokens are not listed under the account, nor account tokens under the user.
    expect((await api(server, 'GET', '/user/tokens?per_page=50')).body.result.map((t: { name: string }) => t.name)).not.toContain('ci');
  });

  it('refuses bad policies with 400 1150 naming the problem', async () => {
    const cases: [unknown, RegExp][] = [
      [[], /policies/],
      [[policy(['0'.repeat(32)], { [zoneKey(zoneA)]: '*' })], /unknown permission group/],
      [[policy([DNS_READ], { 'com.example.thing': '*' })], /resources key/],
      [[policy([DNS_READ], { [zoneKey('f'.repeat(32))]: '*' })], /is not a zone of your accounts/],
      [[policy([DNS_READ], { [zoneKey(zoneA)]: 'read' })], /the value must be "\*"/],
      [[policy([API_TOKENS_WRITE], { [zoneKey(zoneA)]: '*' })], /does not apply/],
      [[{ effect: 'maybe', permission_groups: [{ id: DNS_READ }], resources: { [zoneKey(zoneA)]: '*' } }], /effect/],
    ];
    for (const [policies, message] of cases) {
      const res = await api(server, 'POST', '/user/tokens', { name: 'bad', policies });
      expect(res.status, JSON.stringify(policies)).toBe(400);
      expect(res.body.errors[0]!.code).toBe(1150);
      expect(res.body.errors[0]!.message).toMatch(message);
    }
    const ip = await api(server, 'POST', '/user/tokens', { name: 'bad', policies: [policy([DNS_READ], { [zoneKey(zoneA)]: '*' })], condition: { request_ip: { in: ['300.1.1.1/8'] } } });
    expect(ip.body.errors[0]!.message).toMatch(/request_ip\.in/);
    const window = await api(server, 'POST', '/user/tokens', { name: 'bad', policies: [policy([DNS_READ], { [zoneKey(zoneA)]: '*' })], not_before: '2030-01-02T00:00:00Z', expires_on: '2030-01-01T00:00:00Z' });
    expect(window.body.errors[0]!.message).toMatch(/later than not_before/);
  });

  it('stores only a hash of each token value', async () => {
    const { value } = await create('hashed', [policy([DNS_READ], { [zoneKey(zoneA)]: '*' })]);
    const files = fs.readdirSync(server.dataDir).filter((f) => f.startsWith('stratus.sqlite'));
    for (const f of files) expect(fs.readFileSync(path.join(server.dataDir, f)).includes(Buffer.from(value))).toBe(false);
  });
});

/** The admin user's id (the subject of `com.cloudflare.api.user.<id>` resources), read from a token it made. */
async function userIdOf(server: TestServer): Promise<string> {
  const made = await api(server, 'POST', '/user/tokens', { name: 'probe', policies: [{ effect: 'allow', permission_groups: [{ id: API_TOKENS_WRITE }], resources: { 'com.cloudflare.api.user.*': '*' } }] });
  const res = await api(server, 'GET', '/user', undefined, { 'x-auth-email': undefined, 'x-auth-key': undefined, authorization: `Bearer ${made.body.result.value}` });
  return res.body.result.id as string;
}
