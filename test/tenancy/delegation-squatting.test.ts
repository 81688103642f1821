/**
 * Issue 34, part 1: a delegation goes to the account it names, never to whoever squatted first (docs/security.md,
 * "Name servers per account"). Two accounts, A and B, each with its own user and key, over the official SDK;
 * `dig` shows what the DNS server answers and the edge's catalog how the edge resolves a hostname.
 *
 * 1. B creates `shop.alpha.test` (pending) below A's `alpha.test`, with a proxied record and a route to a
 *    script of B's. A delegates `shop` to A's own pair, meaning its own zone: B's zone stays pending, nothing of
 *    B's is answered or run, and A's own `shop.alpha.test` created next is active and answers.
 * 2. A creates `shop.parent-later.net` (active, no parent); B creates `parent-later.net` with its own
 *    `A shop…`: B's parent stays pending and DNS answers A's record for A's hostname.
 */
import type Cloudflare from 'cloudflare';
import { toFile } from 'cloudflare';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { accountId } from '../helpers/api.js';
import { addUser } from '../helpers/users.js';
import { dig } from '../dns-server/dig.js';
import { addZone, delegate, statusOf } from './helpers.js';

let server: TestServer;
let port: number;
let a: Cloudflare;
let b: Cloudflare;
let aAccount: string;
let bAccount: string;

beforeAll(async () => {
  server = await startTestServer();
  port = server.dnsPort!;
  const userA = await addUser(server, 'squat-a@example.org');
  const userB = await addUser(server, 'squat-b@example.org');
  a = userA.sdk();
  b = userB.sdk();
  aAccount = userA.accountId;
  bAccount = userB.accountId;
});

afterAll(async () => {
  await server?.stop();
});

describe('each account has its own pair of name servers', () => {
  it('zones.create and zones.get show the account\'s pair, the same for every zone of it, another for another account; the admin keeps the instance names', async () => {
    const one = await a.zones.create({ account: { id: aAccount }, name: 'pair-one.test', type: 'full' });
    const two = await a.zones.create({ account: { id: aAccount }, name: 'pair-two.test', type: 'full' });
    const other = await b.zones.create({ account: { id: bAccount }, name: 'pair-b.test', type: 'full' });
    expect(one.name_servers).toHaveLength(2);
    expect(one.name_servers.every((n) => n.endsWith('.stratus.invalid'))).toBe(true);
    expect(two.name_servers).toEqual(one.name_servers);
    expect((await a.zones.get({ zone_id: one.id })).name_servers).toEqual(one.name_servers);
    expect(other.name_servers).not.toEqual(one.name_servers);
    expect(one.original_name_servers).toBeNull();
    const admin = server.sdk();
    const mine = await admin.zones.create({ account: { id: await accountId(server) }, name: 'pair-admin.test', type: 'full' });
    expect(mine.name_servers).toEqual(['ns1.stratus.invalid', 'ns2.stratus.invalid']);
    // The DNS settings say the zone has the standard (the account's) name servers; SOA and NS show the pair.
    const settings = await a.dns.settings.zone.get({ zone_id: one.id });
    expect(settings.nameservers).toMatchObject({ type: 'cloudflare.standard' });
    expect(settings.soa?.rname).toBe('dns.stratus.invalid');
    expect((await a.dns.settings.account.get({ account_id: aAccount })).zone_defaults.nameservers).toMatchObject({ type: 'cloudflare.standard' });
    const soa = await dig(port, 'pair-one.test', 'SOA');
    expect(soa.answer[0]!.split(' ')[4]).toBe(`${one.name_servers[0]}.`);
    expect((await dig(port, 'pair-one.test', 'NS')).answer.map((r) => r.split(' ').pop()).sort()).toEqual(one.name_servers.map((n) => `${n}.`).sort());
    // The pool's names are the instance's, like --nameservers: nobody may add them, and they are not a tenant's.
    expect((await dig(port, one.name_servers[0]!, 'A')).status).toBe('REFUSED');
  });
});

describe('1. a delegation goes to the account it names', () => {
  let alpha: string;
  let squat: string;
  let aPair: string[];

  it('B\'s squatted shop.alpha.test is not activated by A\'s delegation to A\'s own pair', async () => {
    alpha = (await addZone(a, aAccount, 'alpha.test')).id;
    aPair = (await a.zones.get({ zone_id: alpha })).name_servers;
    const created = await addZone(b, bAccount, 'shop.alpha.test');
    expect(created.status).toBe('pending');
    squat = created.id;
    await b.dns.records.create({ zone_id: squat, type: 'A', name: '@', content: '198.51.100.44', proxied: true, ttl: 1 } as never);
    await b.workers.scripts.update('squat-script', {
      account_id: bAccount,
      metadata: { main_module: 'index.js', compatibility_date: '2024-06-01' },
      files: [await toFile(Buffer.from('export default { fetch() { return new Response("b"); } };'), 'index.js', { type: 'application/javascript+module' })],
    });
    await b.workers.routes.create({ zone_id: squat, pattern: 'shop.alpha.test/*', script: 'squat-script' });

    await delegate(a, alpha, 'shop', aPair);
    expect(await statusOf(b, squat)).toBe('pending');
    await b.zones.activationCheck.trigger({ zone_id: squat });
    expect(await statusOf(b, squat)).toBe('pending');
    const referral = await dig(port, 'shop.alpha.test', 'A');
    expect(referral.flags).not.toContain('aa');
    expect(referral.raw).not.toContain('198.51.100.44');
    expect(await server.running.edgeCatalog.resolve('shop.alpha.test', '/')).toMatchObject({ kind: 'unknown' });
  });

  it('A\'s own shop.alpha.test, created next, is active and answers; B\'s stays pending', async () => {
    const own = await addZone(a, aAccount, 'shop.alpha.test');
    expect(own.status).toBe('active');
    await a.dns.records.create({ zone_id: own.id, type: 'A', name: '@', content: '192.0.2.44', proxied: false, ttl: 300 } as never);
    expect(await statusOf(b, squat)).toBe('pending');
    const answer = await dig(port, 'shop.alpha.test', 'A');
    expect(answer.flags).toContain('aa');
    expect(answer.answer).toEqual(['shop.alpha.test. 300 IN A 192.0.2.44']);
    expect(await server.running.edgeCatalog.resolve('shop.alpha.test', '/')).toMatchObject({ kind: 'unknown' });
  });

  it('a delegation to B\'s pair is B\'s to take (production\'s subdomain setup)', async () => {
    const bPair = (await b.zones.get({ zone_id: squat })).name_servers;
    const bKid = await addZone(b, bAccount, 'kid.alpha.test');
    expect(bKid.status).toBe('pending');
    await b.dns.records.create({ zone_id: bKid.id, type: 'TXT', name: '@', content: 'b-kid', ttl: 300 } as never);
    await delegate(a, alpha, 'kid', bPair);
    expect(await statusOf(b, bKid.id)).toBe('active');
    expect((await dig(port, 'kid.alpha.test', 'TXT')).answer).toEqual(['kid.alpha.test. 300 IN TXT "b-kid"']);
  });
});

describe('2. a later parent never displaces another account\'s active zone', () => {
  it('B\'s parent-later.net stays pending while A\'s shop.parent-later.net is active; DNS answers A\'s record', async () => {
    const child = await addZone(a, aAccount, 'shop.parent-later.net');
    expect(child.status).toBe('active');
    await a.dns.records.create({ zone_id: child.id, type: 'A', name: '@', content: '192.0.2.55', ttl: 300 } as never);
    const parent = await addZone(b, bAccount, 'parent-later.net');
    expect(parent.status).toBe('pending');
    await b.dns.records.create({ zone_id: parent.id, type: 'A', name: 'shop', content: '198.51.100.55', ttl: 300 } as never);
    await b.dns.records.create({ zone_id: parent.id, type: 'A', name: 'www.shop', content: '198.51.100.56', proxied: true, ttl: 1 } as never);
    await b.zones.activationCheck.trigger({ zone_id: parent.id });
    expect(await statusOf(b, parent.id)).toBe('pending');
    expect(await statusOf(a, child.id)).toBe('active');
    const answer = await dig(port, 'shop.parent-later.net', 'A');
    expect(answer.flags).toContain('aa');
    expect(answer.answer).toEqual(['shop.parent-later.net. 300 IN A 192.0.2.55']);
    const below = await dig(port, 'www.shop.parent-later.net', 'A');
    expect(below.status).toBe('NXDOMAIN');
    expect(below.raw).not.toContain('198.51.100.56');
    expect((await dig(port, 'parent-later.net', 'SOA')).status).toBe('REFUSED');
    // The edge does not send A's hostnames to B's origin either.
    expect(await server.running.edgeCatalog.resolve('www.shop.parent-later.net', '/')).not.toMatchObject({ origin: '198.51.100.56' });
  });

  it('once A\'s zone is gone the names are free: B\'s activation check activates the parent', async () => {
    const child = (await a.zones.list({ name: 'shop.parent-later.net' })).result[0]!;
    const parent = (await b.zones.list({ name: 'parent-later.net' })).result[0]!;
    await a.zones.delete({ zone_id: child.id });
    await b.zones.activationCheck.trigger({ zone_id: parent.id });
    expect(await statusOf(b, parent.id)).toBe('active');
    expect((await dig(port, 'shop.parent-later.net', 'A')).answer).toEqual(['shop.parent-later.net. 300 IN A 198.51.100.55']);
  });
});
