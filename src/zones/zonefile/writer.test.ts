import { describe, expect, it } from 'vitest';
import { parseZoneFile } from './parser.js';
import { canonicalCompare, writeZoneFile, type ExportInput } from './writer.js';

const input: ExportInput = {
  zoneName: 'example.com',
  exportedAt: new Date('2025-03-25T02:20:34.123Z'),
  soa: { ttl: 3600, mname: 'ns1.stratus.test', rname: 'dns.stratus.test', serial: 2025032500, refresh: 10000, retry: 2400, expire: 604800, minTtl: 1800 },
  nameServers: ['ns1.stratus.test', 'ns2.stratus.test'],
  nsTtl: 86400,
  records: [
    { name: 'www.example.com', type: 'CNAME', ttl: 1, rdata: 'example.com.', comment: null, tags: [], proxied: true },
    { name: 'auth.example.com', type: 'A', ttl: 1, rdata: '198.51.100.177', comment: 'authentication dash', tags: [], proxied: true },
    { name: 'example.com', type: 'A', ttl: 1, rdata: '198.51.100.177', comment: null, tags: [], proxied: true },
    { name: 'example.com', type: 'MX', ttl: 1, rdata: '25 route1.mx.example.net.', comment: null, tags: [] },
    { name: 'sub.example.com', type: 'NS', ttl: 3600, rdata: 'ns.other.net.', comment: null, tags: ['team:x'] },
  ],
};

describe('writeZoneFile', () => {
  const text = writeZoneFile(input);

  it('writes the production layout', () => {
    const lines = text.split('\n');
    expect(lines.slice(0, 4)).toEqual([';;', ';; Domain:     example.com.', ';; Exported:   2025-03-25 02:20:34', ';;']);
    expect(lines).toContain(';; Use at your own risk.');
    const body = text.slice(text.indexOf(';; SOA Record'));
    expect(body).toBe([
      ';; SOA Record',
      'example.com.\t3600\tIN\tSOA\tns1.stratus.test. dns.stratus.test. 2025032500 10000 2400 604800 1800',
      '',
      ';; NS Records',
      'example.com.\t86400\tIN\tNS\tns1.stratus.test.',
      'example.com.\t86400\tIN\tNS\tns2.stratus.test.',
      'sub.example.com.\t3600\tIN\tNS\tns.other.net. ; cf_tags=team:x',
      '',
      ';; A Records',
      'example.com.\t1\tIN\tA\t198.51.100.177 ; cf_tags=cf-proxied:true',
      'auth.example.com.\t1\tIN\tA\t198.51.100.177 ; authentication dash cf_tags=cf-proxied:true',
      '',
      ';; CNAME Records',
      'www.example.com.\t1\tIN\tCNAME\texample.com. ; cf_tags=cf-proxied:true',
      '',
      ';; MX Records',
      'example.com.\t1\tIN\tMX\t25 route1.mx.example.net.',
      '',
    ].join('\n'));
  });

  it('reads back with the parser', () => {
    const recs = parseZoneFile(text, 'example.com');
    expect(recs.map((r) => [r.name, r.type, r.ttl, r.rdata.join(' '), r.comment, r.proxied, r.tags])).toEqual([
      ['example.com', 'SOA', 3600, 'ns1.stratus.test. dns.stratus.test. 2025032500 10000 2400 604800 1800', null, undefined, []],
      ['example.com', 'NS', 86400, 'ns1.stratus.test.', null, undefined, []],
      ['example.com', 'NS', 86400, 'ns2.stratus.test.', null, undefined, []],
      ['sub.example.com', 'NS', 3600, 'ns.other.net.', null, undefined, ['team:x']],
      ['example.com', 'A', 1, '198.51.100.177', null, true, []],
      ['auth.example.com', 'A', 1, '198.51.100.177', 'authentication dash', true, []],
      ['www.example.com', 'CNAME', 1, 'example.com.', null, true, []],
      ['example.com', 'MX', 1, '25 route1.mx.example.net.', null, undefined, []],
    ]);
  });

  it('orders names canonically', () => {
    expect(['b.example.com', 'example.com', 'a.b.example.com', 'a.example.com'].sort(canonicalCompare))
      .toEqual(['example.com', 'a.example.com', 'b.example.com', 'a.b.example.com']);
  });
});
