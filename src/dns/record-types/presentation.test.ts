import { describe, expect, it } from 'vitest';
import { ErrorCollector } from '../../shared/errors.js';
import { RECORD_TYPES, type RecordType } from '../record.js';
import { parsePresentation, RECORD_TYPE_SPECS, toPresentation, validateRecordValue } from './index.js';

const sha256 = 'D2ABDE240D7CD3EE6B4B28C54DF034B97983A1D16E8A410E4561CB106618E971';

/** [type, owner, zone-file RDATA, stored content, presentation written back]. */
const CASES: [RecordType, string, string, string, string][] = [
  ['A', 'www.example.com', '192.0.2.1', '192.0.2.1', '192.0.2.1'],
  ['AAAA', 'www.example.com', '2001:DB8:0::1', '2001:db8::1', '2001:db8::1'],
  ['CNAME', 'www.example.com', 'web', 'web.example.com', 'web.example.com.'],
  ['NS', 'sub.example.com', 'ns1.example.net.', 'ns1.example.net', 'ns1.example.net.'],
  ['PTR', '1.example.com', '@', 'example.com', 'example.com.'],
  ['MX', 'example.com', '10 mail', 'mail.example.com', '10 mail.example.com.'],
  ['TXT', 'example.com', '"v=spf1 -all" plain', '"v=spf1 -all" "plain"', '"v=spf1 -all" "plain"'],
  ['OPENPGPKEY', 'x._openpgpkey.example.com', '( mQIN BF3g )', 'mQINBF3g', 'mQINBF3g'],
  ['CAA', 'example.com', '0 issue "letsencrypt.org"', '0 issue "letsencrypt.org"', '0 issue "letsencrypt.org"'],
  ['CERT', 'example.com', '9 0 8 MIIB AAAA', '9 0 8 MIIBAAAA', '9 0 8 MIIBAAAA'],
  ['DNSKEY', 'example.com', '257 3 13 ( mdss wUyr )', '257 3 13 mdsswUyr', '257 3 13 mdsswUyr'],
  ['DS', 'sub.example.com', `2371 13 2 ${sha256.slice(0, 32)} ${sha256.slice(32)}`, `2371 13 2 ${sha256}`, `2371 13 2 ${sha256}`],
  ['HTTPS', 'example.com', '1 . alpn="h3,h2" port=443', '1 . alpn="h3,h2" port="443"', '1 . alpn="h3,h2" port="443"'],
  ['SVCB', '_dns.example.com', '1 dns alpn=dot', '1 dns.example.com alpn="dot"', '1 dns.example.com. alpn="dot"'],
  ['LOC', 'example.com', '37 46 46 N 122 23 35 W 0m 100m 0m 0m', '37 46 46.000 N 122 23 35.000 W 0.00m 100.00m 0.00m 0.00m', '37 46 46.000 N 122 23 35.000 W 0.00m 100.00m 0.00m 0.00m'],
  ['LOC', 'example.com', '52 22 N 4 53 E -2m', '52 22 0.000 N 4 53 0.000 E -2.00m 1.00m 10000.00m 10.00m', '52 22 0.000 N 4 53 0.000 E -2.00m 1.00m 10000.00m 10.00m'],
  ['NAPTR', 'example.com', '100 10 "S" "SIP+D2U" "" _sip._udp', '100 10 "S" "SIP+D2U" "" _sip._udp.example.com', '100 10 "S" "SIP+D2U" "" _sip._udp.example.com.'],
  ['SMIMEA', 'x._smimecert.example.com', `3 1 1 ${sha256}`, `3 1 1 ${sha256}`, `3 1 1 ${sha256}`],
  ['TLSA', '_443._tcp.example.com', `3 1 1 ${sha256.toLowerCase()}`, `3 1 1 ${sha256}`, `3 1 1 ${sha256}`],
  ['SSHFP', 'host.example.com', `4 2 ${sha256}`, `4 2 ${sha256}`, `4 2 ${sha256}`],
  ['SRV', '_sip._tcp.example.com', '10 5 5060 sip', '5 5060 sip.example.com', '10 5 5060 sip.example.com.'],
  ['URI', '_http._tcp.example.com', '10 1 "https://example.com/"', '1 "https://example.com/"', '10 1 "https://example.com/"'],
  ['RRSIG', 'www.example.com', 'A 13 3 300 20261224005544 1795654544 27955 example.com. ( lPI+ tLQ= )', 'A 13 3 300 20261224005544 20261126005544 27955 example.com lPI+tLQ=', 'A 13 3 300 20261224005544 20261126005544 27955 example.com. lPI+tLQ='],
  ['NSEC', 'www.example.com', '*.wild A rrsig NSEC TYPE1234', '*.wild.example.com A RRSIG NSEC TYPE1234', '*.wild.example.com. A RRSIG NSEC TYPE1234'],
  ['NSEC3', 'v32ghl1j1n8trnjioh65d2lf0od35ait.example.com', '1 0 2 ab12 avc4sf6vltn6pce8uftnm517enoi4n1r NS SOA', '1 0 2 AB12 AVC4SF6VLTN6PCE8UFTNM517ENOI4N1R NS SOA', '1 0 2 AB12 AVC4SF6VLTN6PCE8UFTNM517ENOI4N1R NS SOA'],
  ['NSEC3PARAM', 'example.com', '1 0 0 -', '1 0 0 -', '1 0 0 -'],
  ['SOA', 'example.com', 'ns1 hostmaster.example.com. 2026112601 7200 3600 1209600 300', 'ns1.example.com hostmaster.example.com 2026112601 7200 3600 1209600 300', 'ns1.example.com. hostmaster.example.com. 2026112601 7200 3600 1209600 300'],
];

describe('zone-file presentation', () => {
  it('covers every type', () => {
    expect(new Set(CASES.map((c) => c[0]))).toEqual(new Set(RECORD_TYPES));
    expect(Object.keys(RECORD_TYPE_SPECS).sort()).toEqual([...RECORD_TYPES].sort());
  });
  it.each(CASES)('%s %s: %s', (type, owner, rdata, content, presentation) => {
    const input = parsePresentation(type, rdata, 'example.com.');
    const errors = new ErrorCollector();
    const value = validateRecordValue(input, { zoneName: 'example.com', recordName: owner, apiDate: '2025-01-01', serviceRanges: [], errors });
    expect(errors.errors.map((e) => e.message)).toEqual([]);
    expect(value!.content).toBe(content);
    expect(toPresentation({ type, ...value! })).toBe(presentation);
    // What export writes, import reads back to the same stored value.
    const again = validateRecordValue(parsePresentation(type, presentation, 'example.com.'), { zoneName: 'example.com', recordName: owner, apiDate: '2025-01-01', serviceRanges: [], errors });
    expect(again).toEqual(value);
  });
  it.each([
    ['MX', 'mail'],
    ['SRV', '1 2 x target'],
    ['CAA', '0 issue'],
    ['TXT', '"open'],
    ['LOC', '37 46 46 X 122 W'],
    ['NAPTR', '1 2 "S"'],
  ] as [RecordType, string][])('throws for malformed %s RDATA %j', (type, rdata) => {
    expect(() => parsePresentation(type, rdata, 'example.com.')).toThrow(Error);
  });
});
