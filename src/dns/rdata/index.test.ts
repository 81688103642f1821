import { describe, expect, it } from 'vitest';
import dnsPacket from 'dns-packet';
import { recordRdata, type RdataSource } from './index.js';
import { encodeMessage, decodeMessage } from '../wire/message.js';
import { Writer } from '../wire/writer.js';
import { TYPE } from '../wire/constants.js';

/** Encodes one record of the type in a response, decodes it with dns-packet. */
function roundTrip(src: RdataSource): { data: unknown; raw: Buffer } {
  const w = new Writer();
  const type = (TYPE as Record<string, number>)[src.type]!;
  encodeMessage(w, {
    id: 7, qr: true, opcode: 0, aa: true, rd: false, rcode: 0, question: { name: 'x.example.com', type, klass: 1 },
    answers: [{ name: 'x.example.com', type, ttl: 300, rdata: recordRdata(src) }], authorities: [], additionals: [],
  });
  const buf = w.result();
  const ours = decodeMessage(buf);
  const p = dnsPacket.decode(buf);
  return { data: (p.answers![0] as { data: unknown }).data, raw: Buffer.from(ours.answers[0]!.rdata) };
}

const d = (type: RdataSource['type'], content: string, data: Record<string, unknown> | null = null, priority: number | null = null): RdataSource => ({ type, content, data, priority });

describe('record RDATA against the dns-packet decoder', () => {
  it.each([
    [d('A', '192.0.2.1'), '192.0.2.1'],
    [d('AAAA', '2001:db8::1'), '2001:db8::1'],
    [d('CNAME', 'target.example.net'), 'target.example.net'],
    [d('NS', 'ns1.example.net'), 'ns1.example.net'],
    [d('PTR', 'host.example.com'), 'host.example.com'],
    [d('MX', 'mail.example.com', null, 10), { preference: 10, exchange: 'mail.example.com' }],
    [d('CAA', '0 issue "letsencrypt.org"', { flags: 0, tag: 'issue', value: 'letsencrypt.org' }), { flags: 0, tag: 'issue', value: 'letsencrypt.org', issuerCritical: false }],
    [d('SRV', '5 8806 sip.example.com', { priority: 10, weight: 5, port: 8806, target: 'sip.example.com' }, 10), { priority: 10, weight: 5, port: 8806, target: 'sip.example.com' }],
    [d('NAPTR', '', { order: 100, preference: 10, flags: 'S', service: 'SIP+D2U', regex: '', replacement: '_sip._udp.example.com' }), { order: 100, preference: 10, flags: 'S', services: 'SIP+D2U', regexp: '', replacement: '_sip._udp.example.com' }],
  ])('%o', (src, want) => {
    expect(roundTrip(src).data).toEqual(want);
  });

  it('TXT: several strings, escapes, and long strings split at 255 bytes', () => {
    const long = 'a'.repeat(300);
    const { data } = roundTrip(d('TXT', `"v=spf1 -all" "say \\"hi\\"" "\\065\\\\" "${long}"`));
    expect((data as Buffer[]).map((b) => b.toString())).toEqual(['v=spf1 -all', 'say "hi"', 'A\\', 'a'.repeat(255), 'a'.repeat(45)]);
  });

  it('DS, DNSKEY, SSHFP, TLSA', () => {
    const ds = roundTrip(d('DS', '', { key_tag: 2371, algorithm: 13, digest_type: 2, digest: '1F987CC6583E92DF0890718C42E0E4E7D6F0B3D3F5D2C8E5A3B1C4D5E6F7A8B9' })).data as { keyTag: number; digest: Buffer };
    expect(ds.keyTag).toBe(2371);
    expect(ds.digest.toString('hex').toUpperCase()).toBe('1F987CC6583E92DF0890718C42E0E4E7D6F0B3D3F5D2C8E5A3B1C4D5E6F7A8B9');
    const key = roundTrip(d('DNSKEY', '', { flags: 257, protocol: 3, algorithm: 13, public_key: 'AwEAAag=' })).data as { flags: number; algorithm: number; key: Buffer };
    expect([key.flags, key.algorithm, key.key.toString('base64')]).toEqual([257, 13, 'AwEAAag=']);
    const fp = roundTrip(d('SSHFP', '', { algorithm: 2, type: 1, fingerprint: '123456789ABCDEF67890123456789ABCDEF67890' })).data as { algorithm: number; hash: number; fingerprint: string };
    expect([fp.algorithm, fp.hash, fp.fingerprint.toUpperCase()]).toEqual([2, 1, '123456789ABCDEF67890123456789ABCDEF67890']);
    const tlsa = roundTrip(d('TLSA', '', { usage: 3, selector: 1, matching_type: 1, certificate: 'ABCDEF' })).data as { usage: number; certificate: Buffer };
    expect([tlsa.usage, tlsa.certificate.toString('hex')]).toEqual([3, 'abcdef']);
  });

  it.each([
    ['URI', d('URI', '', { weight: 20, target: 'http://example.com/' }, 10), '000a0014687474703a2f2f6578616d706c652e636f6d2f'],
    ['CERT', d('CERT', '', { type: 9, key_tag: 1, algorithm: 8, certificate: 'AAEC' }), '0009000108000102'],
    ['SMIMEA', d('SMIMEA', '', { usage: 3, selector: 0, matching_type: 0, certificate: 'ABCD' }), '030000abcd'],
    ['OPENPGPKEY', d('OPENPGPKEY', 'AAEC'), '000102'],
    // RFC 1876 example: 42 21 54 N 71 06 18 W -24m 30m (size 30m, default precisions)
    ['LOC', d('LOC', '', { lat_degrees: 42, lat_minutes: 21, lat_seconds: 54, lat_direction: 'N', long_degrees: 71, long_minutes: 6, long_seconds: 18, long_direction: 'W', altitude: -24, size: 30, precision_horz: 10000, precision_vert: 10 }), '0033161389172dd070be15f000988d20'],
    // RFC 9460 Appendix D.2 style: 1 . alpn=h2,h3 port=8443 ipv4hint=192.0.2.1
    ['HTTPS', d('HTTPS', '', { priority: 1, target: '.', value: 'port=8443 alpn="h2,h3" ipv4hint=192.0.2.1' }), '000100000100060268320268330003000220fb00040004c0000201'],
    ['SVCB', d('SVCB', '', { priority: 0, target: 'svc.example.net', value: '' }), '000003737663076578616d706c65036e657400'],
  ])('%s wire bytes', (_t, src, hex) => {
    expect(roundTrip(src).raw.toString('hex')).toBe(hex);
  });

  it('rejects content it cannot encode', () => {
    expect(() => recordRdata(d('A', '300.1.1.1'))).toThrow(RangeError);
    expect(() => recordRdata(d('DS', '', { key_tag: 1, algorithm: 1, digest_type: 1, digest: 'xyz' }))).toThrow(RangeError);
    expect(() => recordRdata(d('HTTPS', '', { priority: 1, target: '.', value: 'nokey=1' }))).toThrow(RangeError);
  });
});
