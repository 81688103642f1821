import Cloudflare from 'cloudflare';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { accountId, api, createZone } from '../helpers/api.js';
import { addUser } from '../helpers/users.js';

describe('accounts and zones', () => {
  let server: TestServer;
  let cf: Cloudflare;
  beforeAll(async () => {
    server = await startTestServer({ flags: { nameservers: 'ns1.test.invalid,ns2.test.invalid' } });
    cf = server.sdk();
  });
  afterAll(async () => { await server.stop(); });

  it('lists and gets the caller\'s account', async () => {
    const page = await cf.accounts.list();
    expect(page.result).toHaveLength(1);
    const account = await cf.accounts.get({ account_id: page.result[0]!.id });
    expect(account.name).toBe("admin@example.com's Account");
    await expect(cf.accounts.get({ account_id: 'f'.repeat(32) })).rejects.toBeInstanceOf(Cloudflare.NotFoundError);
  });

  it('creates a zone with a normalized name and the configured name servers', async () => {
    const acc = await accountId(server);
    const zone = await cf.zones.create({ account: { id: acc }, name: 'Zones-Create.Example.' });
    expect(zone).toMatchObject({ name: 'zones-create.example', status: 'active', paused: false, type: 'full', name_servers: ['ns1.test.invalid', 'ns2.test.invalid'], account: { id: acc } });
    expect(zone.id).toMatch(/^[0-9a-f]{32}$/);
    expect(zone.created_on).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d+Z$/);
    const got = await cf.zones.get({ zone_id: zone.id });
    expect(got).toEqual(zone);
  });

  it('refuses a second zone with the same name (400 1061) and bad bodies with every problem', async () => {
    const acc = await accountId(server);
    await createZone(server, 'dup.example');
    const err = await cf.zones.create({ account: { id: acc }, name: 'DUP.example' }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(Cloudflare.BadRequestError);
    expect((err as InstanceType<typeof Cloudflare.BadRequestError>).errors[0]).toMatchObject({ code: 1061, message: 'dup.example already exists' });
    const bad = await api(server, 'POST', '/zones', { name: 'no_dots', type: 'weird' });
    expect(bad.status).toBe(400);
    expect(bad.body.errors.map((e) => e.code)).toEqual([1100, 1102, 1101]);
    const notJson = await api(server, 'POST', '/zones', '{nope');
    expect(notJson.body.errors[0]!.code).toBe(6007);
  });

  it('filters by name the way certbot looks zones up, and pages', async () => {
    await createZone(server, 'certbot.example');
    const sub = await api(server, 'GET', '/zones?name=www.certbot.example&per_page=1');
    expect(sub.status).toBe(200);
    expect(sub.body.result).toEqual([]);
    const exact = await api(server, 'GET', '/zones?name=certbot.example&per_page=1');
    expect(exact.body.result.map((z: { name: string }) => z.name)).toEqual(['certbot.example']);
    expect(exact.body.result_info).toEqual({ page: 1, per_page: 1, count: 1, total_count: 1, total_pages: 1 });
    const all: string[] = [];
    for await (const z of cf.zones.list({ per_page: 1 })) all.push(z.name);
    expect(all).toEqual([...all].sort());
    expect(all).toContain('certbot.example');
    const status = await api(server, 'GET', `/zones?status=pending`);
    expect(status.body.result).toEqual([]);
    const byAccount = await api(server, 'GET', `/zones?account.id=${await accountId(server)}&per_page=50`);
    expect(byAccount.body.result_info!.total_count).toBe(all.length);
    const past = await api(server, 'GET', '/zones?page=99');
    expect(past.body.result).toEqual([]);
  });

  it('an unknown or malformed zone id is 404 7003 naming the path', async () => {
    const res = await api(server, 'GET', `/zones/${'a'.repeat(32)}/dns_records`);
    expect(res.status).toBe(404);
    expect(res.body.errors).toEqual([{ code: 7003, message: `Could not route to /client/v4/zones/${'a'.repeat(32)}/dns_records, perhaps your object identifier is invalid?` }]);
    await expect(cf.zones.get({ zone_id: 'not-an-id' })).rejects.toBeInstanceOf(Cloudflare.NotFoundError);
  });

  it('deleting a zone deletes its records and returns {id}', async () => {
    const id = await createZone(server, 'gone.example');
    await api(server, 'POST', `/zones/${id}/dns_records`, { type: 'TXT', name: '@', content: 'x' });
    const res = await cf.zones.delete({ zone_id: id });
    expect(res).toEqual({ id });
    await expect(cf.zones.get({ zone_id: id })).rejects.toBeInstanceOf(Cloudflare.NotFoundError);
    const again = await createZone(server, 'gone.example');
    const list = await api(server, 'GET', `/zones/${again}/dns_records`);
    expect(list.body.result).toEqual([]);
  });

  it('two accounts cannot see each other\'s zones', async () => {
    const other = await addUser(server, 'other@example.org');
    const otherSdk = other.sdk();
    const mine = await createZone(server, 'mine.example');
    const theirs = await otherSdk.zones.create({ account: { id: other.accountId }, name: 'theirs.example' });

    const seenByOther: string[] = [];
    for await (const z of otherSdk.zones.list()) seenByOther.push(z.name);
    expect(seenByOther).toEqual(['theirs.example']);
    const seenByMe: string[] = [];
    for await (const z of cf.zones.list()) seenByMe.push(z.name);
    expect(seenByMe).not.toContain('theirs.example');

    // A foreign zone looks exactly like a zone that does not exist.
    const foreign = await api(server, 'GET', `/zones/${theirs.id}`);
    const unknown = await api(server, 'GET', `/zones/${'b'.repeat(32)}`);
    expect(foreign.status).toBe(unknown.status);
    expect(foreign.body.errors[0]!.code).toBe(7003);
    await expect(otherSdk.dns.records.list({ zone_id: mine })).rejects.toBeInstanceOf(Cloudflare.NotFoundError);
    await expect(otherSdk.zones.delete({ zone_id: mine })).rejects.toBeInstanceOf(Cloudflare.NotFoundError);
    // Creating a zone in someone else's account is refused; their account is invisible.
    const steal = await api(server, 'POST', '/zones', { name: 'steal.example', account: { id: other.accountId } });
    expect(steal.body.errors[0]!.code).toBe(1101);
    await expect(cf.accounts.get({ account_id: other.accountId })).rejects.toBeInstanceOf(Cloudflare.NotFoundError);
    expect((await cf.zones.get({ zone_id: mine })).name).toBe('mine.example');
  });
});
