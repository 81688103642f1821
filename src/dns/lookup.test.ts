import { describe, expect, it } from 'vitest';
import { lookup } from './lookup.js';
import { buildSnapshot, type SnapshotRecord } from './snapshot.js';
import { readServingSettings } from './snapshot-settings.js';
import { TYPE } from './wire/constants.js';
import { present, rec } from './test-support.js';

const NS = ['ns1.stratus.invalid', 'ns2.stratus.invalid'];
const EDGE = { ipv4: ['192.0.2.10'], ipv6: ['2001:db8::10'] };

function snapshot(name: string, records: SnapshotRecord[], dnsSettings = '{}', zoneSettings = '{}') {
  return buildSnapshot({ id: name, name, serial: 2026010100, nameServers: NS, settings: readServingSettings(dnsSettings, zoneSettings, NS) }, records, EDGE);
}

const zone = snapshot('example.com', [
  rec('example.com', 'A', '192.0.2.1'),
  rec('example.com', 'MX', 'mail.example.com', { priority: 10 }),
  rec('example.com', 'NS', 'ignored.example.net'),
  rec('www.example.com', 'CNAME', 'example.com'),
  rec('mail.example.com', 'A', '192.0.2.2', { ttl: 600 }),
  rec('*.wild.example.com', 'A', '192.0.2.3'),
  rec('*.wild.example.com', 'TXT', '"hello"'),
  rec('a.b.c.example.com', 'TXT', '"deep" "two"'),
  rec('sub.example.com', 'NS', 'ns.sub.example.com', { ttl: 3600 }),
  rec('ns.sub.example.com', 'A', '192.0.2.53', { ttl: 3600 }),
  rec('p.example.com', 'A', '203.0.113.5', { proxied: true }),
  rec('p4.example.com', 'A', '203.0.113.6', { proxied: true, settings: { ipv4_only: true } }),
  rec('pc.example.com', 'CNAME', 'elsewhere.example.net', { proxied: true }),
  rec('flat.example.com', 'CNAME', 'chain1.example.com', { settings: { flatten_cname: true } }),
  rec('chain1.example.com', 'CNAME', 'chain2.example.com'),
  rec('chain2.example.com', 'CNAME', 'mail.example.com'),
  rec('loop1.example.com', 'CNAME', 'loop2.example.com'),
  rec('loop2.example.com', 'CNAME', 'loop1.example.com'),
  rec('ext.example.com', 'CNAME', 'target.other.net'),
  rec('dangling.example.com', 'CNAME', 'nothere.example.com'),
]);

const NEG_SOA = 'example.com 1800 SOA ns1.stratus.invalid dns.stratus.invalid 2026010100 1800';

interface Case {
  q: string;
  t: number;
  rcode?: string;
  aa?: boolean;
  answer?: string[];
  authority?: string[];
  additional?: string[];
}

const cases: Case[] = [
  { q: 'example.com', t: TYPE.SOA, answer: ['example.com 3600 SOA ns1.stratus.invalid dns.stratus.invalid 2026010100 1800'] },
  { q: 'example.com', t: TYPE.NS, answer: ['example.com 86400 NS ns1.stratus.invalid', 'example.com 86400 NS ns2.stratus.invalid'] },
  { q: 'example.com', t: TYPE.A, answer: ['example.com 300 A 192.0.2.1'] },
  { q: 'example.com', t: TYPE.MX, answer: ['example.com 300 MX 10 mail.example.com'] },
  { q: 'www.example.com', t: TYPE.A, answer: ['www.example.com 300 CNAME example.com', 'example.com 300 A 192.0.2.1'] },
  { q: 'www.example.com', t: TYPE.CNAME, answer: ['www.example.com 300 CNAME example.com'] },
  { q: 'nothing.example.com', t: TYPE.A, rcode: 'NXDOMAIN', authority: [NEG_SOA] },
  { q: 'mail.example.com', t: TYPE.TXT, authority: [NEG_SOA] },
  { q: 'x.wild.example.com', t: TYPE.A, answer: ['x.wild.example.com 300 A 192.0.2.3'] },
  { q: 'x.y.wild.example.com', t: TYPE.TXT, answer: ['x.y.wild.example.com 300 TXT hello'] },
  { q: 'x.wild.example.com', t: TYPE.AAAA, authority: [NEG_SOA] },
  { q: 'wild.example.com', t: TYPE.A, authority: [NEG_SOA] },
  { q: 'c.example.com', t: TYPE.A, authority: [NEG_SOA] },
  { q: 'z.c.example.com', t: TYPE.A, rcode: 'NXDOMAIN', authority: [NEG_SOA] },
  { q: 'a.b.c.example.com', t: TYPE.TXT, answer: ['a.b.c.example.com 300 TXT deep|two'] },
  { q: 'host.sub.example.com', t: TYPE.A, aa: false, authority: ['sub.example.com 3600 NS ns.sub.example.com'], additional: ['ns.sub.example.com 3600 A 192.0.2.53'] },
  { q: 'sub.example.com', t: TYPE.NS, aa: false, authority: ['sub.example.com 3600 NS ns.sub.example.com'], additional: ['ns.sub.example.com 3600 A 192.0.2.53'] },
  { q: 'sub.example.com', t: TYPE.DS, authority: [NEG_SOA] },
  { q: 'p.example.com', t: TYPE.A, answer: ['p.example.com 300 A 192.0.2.10'] },
  { q: 'p.example.com', t: TYPE.AAAA, answer: ['p.example.com 300 AAAA 2001:db8::10'] },
  { q: 'p4.example.com', t: TYPE.AAAA, authority: [NEG_SOA] },
  { q: 'pc.example.com', t: TYPE.A, answer: ['pc.example.com 300 A 192.0.2.10'] },
  { q: 'pc.example.com', t: TYPE.CNAME, authority: [NEG_SOA] },
  { q: 'flat.example.com', t: TYPE.A, answer: ['flat.example.com 300 A 192.0.2.2'] },
  { q: 'flat.example.com', t: TYPE.CNAME, authority: [NEG_SOA] },
  { q: 'chain1.example.com', t: TYPE.A, answer: ['chain1.example.com 300 CNAME chain2.example.com', 'chain2.example.com 300 CNAME mail.example.com', 'mail.example.com 600 A 192.0.2.2'] },
  { q: 'loop1.example.com', t: TYPE.A, answer: ['loop1.example.com 300 CNAME loop2.example.com', 'loop2.example.com 300 CNAME loop1.example.com'] },
  { q: 'ext.example.com', t: TYPE.A, answer: ['ext.example.com 300 CNAME target.other.net'] },
  { q: 'dangling.example.com', t: TYPE.A, rcode: 'NXDOMAIN', answer: ['dangling.example.com 300 CNAME nothere.example.com'], authority: [NEG_SOA] },
  { q: 'other.org', t: TYPE.A, rcode: 'REFUSED', aa: false },
];

describe('lookup', () => {
  it.each(cases)('$q type $t', (c) => {
    const got = present(lookup(zone, c.q, c.t));
    expect(got).toEqual({
      rcode: c.rcode ?? 'NOERROR',
      aa: c.aa ?? c.rcode !== 'REFUSED',
      answer: c.answer ?? [],
      authority: c.authority ?? [],
      additional: c.additional ?? [],
    });
  });

  it('answers ANY with every rrset of the node', () => {
    const got = present(lookup(zone, 'example.com', TYPE.ANY));
    expect(got.answer.map((l) => l.split(' ')[2]).sort()).toEqual(['A', 'MX', 'NS', 'NS', 'SOA']);
  });

  it('flattens an apex CNAME always, and every CNAME with flatten_all_cnames', () => {
    const records = [
      rec('apex.test', 'CNAME', 'www.apex.test'),
      rec('www.apex.test', 'A', '198.51.100.7'),
      rec('alias.apex.test', 'CNAME', 'www.apex.test'),
    ];
    const plain = snapshot('apex.test', records);
    expect(present(lookup(plain, 'apex.test', TYPE.A)).answer).toEqual(['apex.test 300 A 198.51.100.7']);
    expect(present(lookup(plain, 'alias.apex.test', TYPE.A)).answer[0]).toContain('CNAME');
    const all = snapshot('apex.test', records, '{"flatten_all_cnames":true}');
    expect(present(lookup(all, 'alias.apex.test', TYPE.A)).answer).toEqual(['alias.apex.test 300 A 198.51.100.7']);
  });

  it('uses the SOA and NS settings, and user apex NS only with multi_provider', () => {
    const s = snapshot('soa.test', [rec('soa.test', 'NS', 'ns.elsewhere.net')],
      '{"multi_provider":true,"ns_ttl":3600,"soa":{"ttl":900,"min_ttl":60,"mname":"ns9.soa.test","rname":"hostmaster.soa.test","refresh":7200}}');
    const got = present(lookup(s, 'soa.test', TYPE.SOA));
    expect(got.answer).toEqual(['soa.test 900 SOA ns9.soa.test hostmaster.soa.test 2026010100 60']);
    expect(present(lookup(s, 'soa.test', TYPE.NS)).answer).toContain('soa.test 300 NS ns.elsewhere.net');
    expect(present(lookup(s, 'nx.soa.test', TYPE.A)).authority[0]).toMatch(/^soa\.test 60 SOA/);
  });

  it('synthesizes HTTPS for proxied names when http2/http3 is on, unless one exists', () => {
    const s = snapshot('h.test', [rec('h.test', 'A', '203.0.113.1', { proxied: true })], '{}', '{"http2":{"value":"on"},"http3":{"value":"on"}}');
    const [line] = present(lookup(s, 'h.test', TYPE.HTTPS)).answer;
    // priority 1, target root, alpn "h3,h2", ipv4hint 192.0.2.10, ipv6hint 2001:db8::10
    expect(line).toBe(`h.test 300 UNKNOWN_65 ${['0001', '00', '0001', '0006', '026833026832', '0004', '0004', 'c000020a', '0006', '0010', '20010db8000000000000000000000010'].join('')}`);
    const off = snapshot('h.test', [rec('h.test', 'A', '203.0.113.1', { proxied: true })]);
    expect(present(lookup(off, 'h.test', TYPE.HTTPS)).answer).toEqual([]);
  });
});
