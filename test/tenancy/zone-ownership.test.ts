/**
 * Names have owners (docs/security.md), tried as a second tenant would: user A owns `victim-a.com` with
 * `www A 192.0.2.1`; user B, with its own account and key, tries every way of claiming a name inside it over
 * the official SDK, and `dig` shows what the DNS server answers. B's attempts are refused or left pending and
 * never answered; a delegation by A activates B's subdomain setup, and removing it deactivates it again.
 */
import Cloudflare from 'cloudflare';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { accountId } from '../helpers/api.js';
import { addUser } from '../helpers/users.js';
import { dig } from '../dns-server/dig.js';
import { addZone, delegate, errorCode, errorStatus, statusOf } from './helpers.js';

let server: TestServer;
let port: number;
let a: Cloudflare;
let b: Cloudflare;
let aAccount: string;
let bAccount: string;
let victim: string;

beforeAll(async () => {
  server = await startTestServer();
  port = server.dnsPort!;
  a = server.sdk();
  aAccount = await accountId(server);
  const other = await addUser(server, 'tenant-b@example.org');
  b = other.sdk();
  bAccount = other.accountId;
  victim = (await addZone(a, aAccount, 'victim-a.com')).id;
  await a.dns.records.create({ zone_id: victim, type: 'A', name: 'www', content: '192.0.2.1', ttl: 300 } as never);
});

afterAll(async () => {
  await server?.stop();
});

describe('a second account claiming names inside another account\'s zone', () => {
  it('creates www.victim-a.com pending, and the DNS keeps answering A\'s record', async () => {
    const zone = await addZone(b, bAccount, 'www.victim-a.com');
    expect(zone.status).toBe('pending');
    await b.dns.records.create({ zone_id: zone.id, type: 'A', name: '@', content: '198.51.100.66', ttl: 300 } as never);
    expect(await statusOf(b, zone.id)).toBe('pending');
    const answer = await dig(port, 'www.victim-a.com', 'A');
    expect(answer.flags).toContain('aa');
    expect(answer.answer).toEqual(['www.victim-a.com. 300 IN A 192.0.2.1']);
    expect(answer.raw).not.toContain('198.51.100.66');
    // Asking again changes nothing: A has not delegated the name.
    expect(await b.zones.activationCheck.trigger({ zone_id: zone.id })).toEqual({ id: zone.id });
    expect(await statusOf(b, zone.id)).toBe('pending');
    expect((await dig(port, 'www.victim-a.com', 'A')).answer).toEqual(['www.victim-a.com. 300 IN A 192.0.2.1']);
  });

  it('deep names below the zone are pending too and answer nothing of B\'s', async () => {
    const deep = await addZone(b, bAccount, 'Deep.Shop.Victim-A.com.');
    expect(deep.status).toBe('pending');
    await b.dns.records.create({ zone_id: deep.id, type: 'TXT', name: '@', content: 'b-was-here', ttl: 300 } as never);
    const answer = await dig(port, 'deep.shop.victim-a.com', 'TXT');
    expect(answer.status).toBe('NXDOMAIN');
    expect(answer.authority[0]).toMatch(/^victim-a\.com\. \d+ IN SOA /);
    expect(answer.raw).not.toContain('b-was-here');
  });

  it('the same name as A\'s active zone is created pending; B learns nothing and A keeps its zone', async () => {
    const copy = await addZone(b, bAccount, 'victim-a.com');
    expect(copy.status).toBe('pending');
    await b.dns.records.create({ zone_id: copy.id, type: 'A', name: 'www', content: '198.51.100.67', ttl: 300 } as never);
    await b.zones.activationCheck.trigger({ zone_id: copy.id });
    expect(await statusOf(b, copy.id)).toBe('pending');
    expect(await statusOf(a, victim)).toBe('active');
    expect((await dig(port, 'www.victim-a.com', 'A')).answer).toEqual(['www.victim-a.com. 300 IN A 192.0.2.1']);
    // A second zone of one name in one account is 1061, for B as for A.
    expect(await errorCode(b.zones.create({ account: { id: bAccount }, name: 'victim-a.com', type: 'full' }))).toBe(1061);
    expect(await errorCode(a.zones.create({ account: { id: aAccount }, name: 'VICTIM-A.COM.', type: 'full' }))).toBe(1061);
  });

  it('nothing crosses accounts in lists, gets or errors', async () => {
    const bNames: string[] = [];
    for await (const z of b.zones.list()) bNames.push(z.name);
    expect(bNames.sort()).toEqual(expect.arrayContaining(['victim-a.com', 'www.victim-a.com']));
    for await (const z of b.zones.list()) expect(z.account.id).toBe(bAccount);
    const byName = await b.zones.list({ name: 'victim-a.com' });
    expect(byName.result.map((z) => [z.account.id, z.status])).toEqual([[bAccount, 'pending']]);
    for await (const z of a.zones.list()) expect(z.account.id).toBe(aAccount);
    // A's zone, its hold and its activation check look exactly like a zone that does not exist.
    const unknown = 'f'.repeat(32);
    for (const zoneId of [victim, unknown]) {
      expect(await errorStatus(b.zones.get({ zone_id: zoneId }))).toBe(404);
      expect(await errorStatus(b.zones.holds.get({ zone_id: zoneId }))).toBe(404);
      expect(await errorStatus(b.zones.holds.create({ zone_id: zoneId }))).toBe(404);
      expect(await errorStatus(b.zones.activationCheck.trigger({ zone_id: zoneId }))).toBe(404);
      expect(await errorCode(b.zones.holds.delete({ zone_id: zoneId }))).toBe(7003);
    }
  });
});

describe('names nobody may add', () => {
  it('refuses public suffixes, TLD-level names and arpa with 1099; the instance\'s names with 1093', async () => {
    for (const name of ['co.uk', 'github.io', 'in-addr.arpa', 'ip6.arpa', 'CO.UK.', 'xn--55qx5d.cn', 'blogspot.com']) {
      expect(await errorCode(b.zones.create({ account: { id: bAccount }, name, type: 'full' })), name).toBe(1099);
    }
    for (const name of ['stratus.invalid', 'ada.stratus.invalid', 'ns1.stratus.invalid', 'NS2.Stratus.Invalid.', 'x.ns1.stratus.invalid']) {
      expect(await errorCode(b.zones.create({ account: { id: bAccount }, name, type: 'full' })), name).toBe(1093);
    }
    expect(await errorCode(b.zones.create({ account: { id: bAccount }, name: 'arpa', type: 'full' }))).toBe(1100);
    const names: string[] = [];
    for await (const z of b.zones.list()) names.push(z.name);
    expect(names.filter((n) => /co\.uk|github|arpa|stratus\.invalid|blogspot/.test(n))).toEqual([]);
    expect((await dig(port, 'ns1.stratus.invalid', 'A')).status).toBe('REFUSED');
    expect((await dig(port, 'co.uk', 'SOA')).status).toBe('REFUSED');
  });

  it('reverse zones below in-addr.arpa and ip6.arpa stay allowed and are served', async () => {
    const rev = await addZone(b, bAccount, '2.0.192.in-addr.arpa');
    expect(rev.status).toBe('active');
    await b.dns.records.create({ zone_id: rev.id, type: 'PTR', name: '1', content: 'host.example.net', ttl: 300 } as never);
    expect((await dig(port, '1.2.0.192.in-addr.arpa', 'PTR')).answer).toEqual(['1.2.0.192.in-addr.arpa. 300 IN PTR host.example.net.']);
    expect((await addZone(b, bAccount, '8.b.d.0.1.0.0.2.ip6.arpa')).status).toBe('active');
  });
});

describe('subdomain setup: delegation activates, removing it deactivates', () => {
  let child: string;
  let nsIds: string[];
  let NS: string[];

  it('stays pending with a partial delegation, and A\'s parent answers a referral meanwhile', async () => {
    child = (await addZone(b, bAccount, 'shop.victim-a.com')).id;
    // B's zones are given B's own pair, not the instance's names A's zones have.
    NS = (await b.zones.get({ zone_id: child })).name_servers;
    expect(NS).toHaveLength(2);
    expect(NS.some((n) => n.startsWith('ns1.') || n.startsWith('ns2.'))).toBe(false);
    await b.dns.records.create({ zone_id: child, type: 'A', name: '@', content: '198.51.100.10', ttl: 300 } as never);
    nsIds = await delegate(a, victim, 'shop', NS.slice(0, 1));
    expect(await statusOf(b, child)).toBe('pending');
    const referral = await dig(port, 'shop.victim-a.com', 'A');
    expect(referral.flags).not.toContain('aa');
    expect(referral.answer).toEqual([]);
    expect(referral.authority).toEqual([`shop.victim-a.com. 300 IN NS ${NS[0]}.`]);
  });

  it('becomes active once the parent\'s NS records name exactly its name servers, and then answers', async () => {
    nsIds.push(...await delegate(a, victim, 'shop', NS.slice(1)));
    expect(await statusOf(b, child)).toBe('active');
    const zone = await b.zones.get({ zone_id: child });
    expect(zone.activated_on).not.toBeNull();
    const answer = await dig(port, 'shop.victim-a.com', 'A');
    expect(answer.flags).toContain('aa');
    expect(answer.answer).toEqual(['shop.victim-a.com. 300 IN A 198.51.100.10']);
    // The deeper pending zone of B is below B's own active zone now: same account, no delegation needed,
    // but it only becomes active when asked.
    const deep = (await b.zones.list({ name: 'deep.shop.victim-a.com' })).result[0]!;
    await b.zones.activationCheck.trigger({ zone_id: deep.id });
    expect(await statusOf(b, deep.id)).toBe('active');
    expect((await dig(port, 'deep.shop.victim-a.com', 'TXT')).answer).toEqual(['deep.shop.victim-a.com. 300 IN TXT "b-was-here"']);
  });

  it('an extra name server in the delegation deactivates it (moved), and removing it restores it', async () => {
    const extra = await a.dns.records.create({ zone_id: victim, type: 'NS', name: 'shop', content: 'ns.elsewhere.example', ttl: 1 } as never);
    expect(await statusOf(b, child)).toBe('moved');
    await a.dns.records.delete(extra.id!, { zone_id: victim });
    expect(await statusOf(b, child)).toBe('active');
  });

  it('deleting the delegation moves the child and everything it delegated; the parent answers again', async () => {
    await a.dns.records.delete(nsIds.pop()!, { zone_id: victim });
    expect(await statusOf(b, child)).toBe('moved');
    const moved = await b.zones.list({ status: 'moved' });
    expect(moved.result.map((z) => z.name)).toContain('shop.victim-a.com');
    const referral = await dig(port, 'shop.victim-a.com', 'A');
    expect(referral.flags).not.toContain('aa');
    expect(referral.answer).toEqual([]);
    expect(referral.raw).not.toContain('198.51.100.10');
    // B's deeper zone was active below B's child only; with the child gone from service, A's zone is the
    // closest active zone above it, and A delegates nothing there.
    const deep = (await b.zones.list({ name: 'deep.shop.victim-a.com' })).result[0]!;
    expect(deep.status).toBe('moved');
    await a.dns.records.delete(nsIds.pop()!, { zone_id: victim });
    const gone = await dig(port, 'shop.victim-a.com', 'A');
    expect(gone.status).toBe('NXDOMAIN');
    expect(gone.flags).toContain('aa');
  });

  it('a batch that restores the delegation activates the child again', async () => {
    await a.dns.records.batch({ zone_id: victim, posts: NS.map((content) => ({ type: 'NS', name: 'shop', content, ttl: 1 })) } as never);
    expect(await statusOf(b, child)).toBe('active');
    expect((await dig(port, 'shop.victim-a.com', 'A')).answer).toEqual(['shop.victim-a.com. 300 IN A 198.51.100.10']);
  });

  it('editing a delegating NS record (PATCH, PUT) moves the child and brings it back', async () => {
    const ns = (await a.dns.records.list({ zone_id: victim, type: 'NS', name: { exact: 'shop.victim-a.com' } } as never)).result;
    const first = ns.find((r) => r.content === NS[0])!;
    await a.dns.records.edit(first.id!, { zone_id: victim, type: 'NS', name: 'shop', content: 'ns.elsewhere.example' } as never);
    expect(await statusOf(b, child)).toBe('moved');
    await a.dns.records.update(first.id!, { zone_id: victim, type: 'NS', name: 'shop', content: NS[0], ttl: 1 } as never);
    expect(await statusOf(b, child)).toBe('active');
  });

  it('a zone-file import into the parent delegates a further child', async () => {
    const api = (await addZone(b, bAccount, 'api.victim-a.com')).id;
    expect(await statusOf(b, api)).toBe('pending');
    const form = new FormData();
    form.set('file', new Blob([NS.map((n) => `api.victim-a.com. 300 IN NS ${n}.`).join('\n') + '\n']), 'zone.txt');
    const res = await fetch(`${server.apiBase}/zones/${victim}/dns_records/import`, { method: 'POST', headers: { 'x-auth-email': server.email, 'x-auth-key': server.key }, body: form });
    expect(res.status).toBe(200);
    expect(await statusOf(b, api)).toBe('active');
  });
});

describe('same account and late parents', () => {
  it('a zone below the same account\'s zone is active at once and answers for its names', async () => {
    const team = await addZone(a, aAccount, 'team.victim-a.com');
    expect(team.status).toBe('active');
    await a.dns.records.create({ zone_id: team.id, type: 'TXT', name: '@', content: 'team', ttl: 300 } as never);
    expect((await dig(port, 'team.victim-a.com', 'TXT')).answer).toEqual(['team.victim-a.com. 300 IN TXT "team"']);
  });

  it('a parent added later by another account waits (pending) while the child is active, and DNS keeps answering the child', async () => {
    const early = await addZone(b, bAccount, 'app.late-parent.com');
    expect(early.status).toBe('active');
    await b.dns.records.create({ zone_id: early.id, type: 'A', name: '@', content: '198.51.100.77', ttl: 300 } as never);
    const parent = await addZone(a, aAccount, 'late-parent.com');
    expect(parent.status).toBe('pending');
    const squat = await a.dns.records.create({ zone_id: parent.id, type: 'A', name: 'app', content: '192.0.2.99', ttl: 300 } as never);
    await a.zones.activationCheck.trigger({ zone_id: parent.id });
    expect(await statusOf(a, parent.id)).toBe('pending');
    expect(await statusOf(b, early.id)).toBe('active');
    expect((await dig(port, 'app.late-parent.com', 'A')).answer).toEqual(['app.late-parent.com. 300 IN A 198.51.100.77']);
    expect((await dig(port, 'late-parent.com', 'SOA')).status).toBe('REFUSED');
    // Once the parent delegates the child's name to the child's pair, it may be active: the child stays.
    const bNs = (await b.zones.get({ zone_id: early.id })).name_servers;
    await a.dns.records.delete(squat.id!, { zone_id: parent.id });
    await delegate(a, parent.id, 'app', bNs);
    await a.zones.activationCheck.trigger({ zone_id: parent.id });
    expect(await statusOf(a, parent.id)).toBe('active');
    expect(await statusOf(b, early.id)).toBe('active');
    expect((await dig(port, 'app.late-parent.com', 'A')).answer).toEqual(['app.late-parent.com. 300 IN A 198.51.100.77']);
    // Deleting the parent leaves the child as it was.
    await a.zones.delete({ zone_id: parent.id });
    expect(await statusOf(b, early.id)).toBe('active');
  });

  it('two accounts waiting for one name: a delegation names one pair and activates only that account\'s zone', async () => {
    const third = await addUser(server, 'tenant-c@example.org');
    const c = third.sdk();
    const mine = await addZone(b, bAccount, 'both.victim-a.com');
    const theirs = await addZone(c, third.accountId, 'both.victim-a.com');
    const cNs = (await c.zones.get({ zone_id: theirs.id })).name_servers;
    const bNs = (await b.zones.get({ zone_id: mine.id })).name_servers;
    expect(cNs).not.toEqual(bNs);
    await delegate(a, victim, 'both', cNs);
    expect([await statusOf(b, mine.id), await statusOf(c, theirs.id)]).toEqual(['pending', 'active']);
    await b.zones.activationCheck.trigger({ zone_id: mine.id });
    expect(await statusOf(b, mine.id)).toBe('pending');
  });
});
