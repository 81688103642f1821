/**
 * What the DNS server answers around a delegation (RFC 1034 §4.3.2, as PowerDNS and Knot do): a parent with
 * NS records at a child name that no active zone holds answers a referral (NS in authority, glue in
 * additional, AA clear), for the name and everything below it, and records of the parent below the cut are
 * occluded. When the child is an active zone of the instance (here: of another account, delegated to it),
 * the child answers; a pending child answers nothing.
 */
import type Cloudflare from 'cloudflare';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { accountId } from '../helpers/api.js';
import { addUser } from '../helpers/users.js';
import { dig } from '../dns-server/dig.js';
import { addZone, delegate, statusOf } from './helpers.js';

let server: TestServer;
let port: number;
let a: Cloudflare;
let parent: string;

beforeAll(async () => {
  server = await startTestServer();
  port = server.dnsPort!;
  a = server.sdk();
  parent = (await addZone(a, await accountId(server), 'parent-a.com')).id;
  const rec = (type: string, name: string, content: string) => a.dns.records.create({ zone_id: parent, type, name, content, ttl: 300 } as never);
  await rec('NS', 'ext', 'ns1.ext.parent-a.com');
  await rec('NS', 'ext', 'ns.elsewhere.example');
  await rec('A', 'ns1.ext', '192.0.2.53');
  await rec('AAAA', 'ns1.ext', '2001:db8::53');
  await rec('TXT', 'hidden.ext', 'occluded');
});

afterAll(async () => {
  await server?.stop();
});

describe('referrals from a parent zone', () => {
  for (const [qname, qtype] of [['ext.parent-a.com', 'A'], ['www.ext.parent-a.com', 'A'], ['hidden.ext.parent-a.com', 'TXT'], ['ns1.ext.parent-a.com', 'A']] as const) {
    it(`${qname} ${qtype}: NS in authority, glue in additional, AA clear, nothing below the cut answered`, async () => {
      for (const tcp of [false, true]) {
        const res = await dig(port, qname, qtype, { tcp });
        expect(res.status).toBe('NOERROR');
        expect(res.flags).not.toContain('aa');
        expect(res.answer).toEqual([]);
        expect([...res.authority].sort()).toEqual(['ext.parent-a.com. 300 IN NS ns.elsewhere.example.', 'ext.parent-a.com. 300 IN NS ns1.ext.parent-a.com.']);
        expect([...res.additional].sort()).toEqual(['ns1.ext.parent-a.com. 300 IN A 192.0.2.53', 'ns1.ext.parent-a.com. 300 IN AAAA 2001:db8::53']);
        expect(res.raw).not.toContain('occluded');
      }
    });
  }

  it('the NS rrset at the cut is not an authoritative answer either, and the parent\'s own names still are', async () => {
    const ns = await dig(port, 'ext.parent-a.com', 'NS');
    expect(ns.flags).not.toContain('aa');
    expect(ns.answer).toEqual([]);
    expect(ns.authority).toHaveLength(2);
    const apex = await dig(port, 'parent-a.com', 'SOA');
    expect(apex.flags).toContain('aa');
  });
});

describe('a delegated child that is a zone of the instance', () => {
  it('answers nothing while pending (the parent refers), and answers authoritatively once active', async () => {
    const other = await addUser(server, 'child-b@example.org');
    const b = other.sdk();
    const child = await addZone(b, other.accountId, 'kid.parent-a.com');
    await b.dns.records.create({ zone_id: child.id, type: 'A', name: 'www', content: '198.51.100.20', ttl: 300 } as never);
    // B's zone has B's pair: the instance's names (the admin's) do not activate it.
    const pair = (await b.zones.get({ zone_id: child.id })).name_servers;
    const wrong = await delegate(a, parent, 'kid', ['ns1.stratus.invalid', 'ns2.stratus.invalid']);
    expect(await statusOf(b, child.id)).toBe('pending');
    for (const id of wrong) await a.dns.records.delete(id, { zone_id: parent });
    const ids = await delegate(a, parent, 'kid', pair.slice(0, 1));
    expect(await statusOf(b, child.id)).toBe('pending');
    const before = await dig(port, 'www.kid.parent-a.com', 'A');
    expect(before.flags).not.toContain('aa');
    expect(before.authority).toEqual([`kid.parent-a.com. 300 IN NS ${pair[0]}.`]);
    expect(before.raw).not.toContain('198.51.100.20');

    ids.push(...await delegate(a, parent, 'kid', pair.slice(1)));
    expect(await statusOf(b, child.id)).toBe('active');
    const after = await dig(port, 'www.kid.parent-a.com', 'A');
    expect(after.flags).toContain('aa');
    expect(after.answer).toEqual(['www.kid.parent-a.com. 300 IN A 198.51.100.20']);
    const soa = await dig(port, 'kid.parent-a.com', 'SOA');
    // The child's SOA MNAME and apex NS are its own pair, served by the same listener.
    expect(soa.answer[0]).toMatch(new RegExp(`^kid\\.parent-a\\.com\\. \\d+ IN SOA ${pair[0]!.replace(/\./g, '\\.')}\\. `));
    expect((await dig(port, 'kid.parent-a.com', 'NS')).answer.sort()).toEqual(pair.map((n) => `kid.parent-a.com. 86400 IN NS ${n}.`).sort());

    for (const id of ids) await a.dns.records.delete(id, { zone_id: parent });
    expect(await statusOf(b, child.id)).toBe('moved');
    const gone = await dig(port, 'www.kid.parent-a.com', 'A');
    expect(gone.status).toBe('NXDOMAIN');
    expect(gone.authority[0]).toMatch(/^parent-a\.com\. /);
  });
});
