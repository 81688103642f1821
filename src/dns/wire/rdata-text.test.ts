import { describe, expect, it } from 'vitest';
import dnsPacket from 'dns-packet';
import { decodeMessage } from './message.js';
import { quoteCharacterString, rdataText } from './rdata-text.js';

/** The presentation text of each answer of a response dns-packet encodes (names compressed where it compresses them). */
function texts(answers: dnsPacket.Answer[]): string[] {
  const buf = dnsPacket.encode({ type: 'response', id: 1, questions: [{ type: 'A', name: 'example.com' }], answers });
  const m = decodeMessage(buf);
  return m.answers.map((r) => rdataText(buf, r));
}

describe('rdata as presentation text', () => {
  it('addresses, names (compressed), MX, SOA, SRV, TXT and CAA as dig prints them', () => {
    expect(texts([
      { type: 'A', name: 'example.com', data: '192.0.2.1' },
      { type: 'AAAA', name: 'example.com', data: '2001:db8::1' },
      { type: 'AAAA', name: 'example.com', data: '2001:db8:0:1:0:0:0:1' },
      { type: 'CNAME', name: 'www.example.com', data: 'example.com' },
      { type: 'MX', name: 'example.com', data: { preference: 10, exchange: 'mail.example.com' } },
      { type: 'SOA', name: 'example.com', data: { mname: 'ns1.example.com', rname: 'hostmaster.example.com', serial: 7, refresh: 3600, retry: 600, expire: 86400, minimum: 300 } },
      { type: 'SRV', name: '_sip._tcp.example.com', data: { priority: 1, weight: 2, port: 5060, target: 'sip.example.com' } },
      { type: 'TXT', name: 'example.com', data: ['v=spf1 -all', 'say "hi"\\'] },
      { type: 'CAA', name: 'example.com', data: { flags: 0, tag: 'issue', value: 'ca.example.net' } },
    ] as dnsPacket.Answer[])).toEqual([
      '192.0.2.1', '2001:db8::1', '2001:db8:0:1::1', 'example.com.', '10 mail.example.com.',
      'ns1.example.com. hostmaster.example.com. 7 3600 600 86400 300', '1 2 5060 sip.example.com.',
      '"v=spf1 -all" "say \\"hi\\"\\\\"', '0 issue "ca.example.net"',
    ]);
  });

  it('DS, DNSKEY and NSEC type bit maps; unknown types as RFC 3597', () => {
    const key = Buffer.from('0123456789abcdef', 'hex');
    expect(texts([
      { type: 'DS', name: 'example.com', data: { keyTag: 2371, algorithm: 13, digestType: 2, digest: Buffer.from('ab01', 'hex') } },
      { type: 'DNSKEY', name: 'example.com', data: { flags: 257, algorithm: 13, key } },
      { type: 'NSEC', name: 'example.com', data: { nextDomain: 'a.example.com', rrtypes: ['A', 'MX', 'RRSIG', 'NSEC', 'CAA'] } },
      { type: 'UNKNOWN_4321' as 'A', name: 'example.com', data: Buffer.from('beef', 'hex') } as unknown as dnsPacket.Answer,
    ] as dnsPacket.Answer[])).toEqual([
      '2371 13 2 AB01', `257 3 13 ${key.toString('base64')}`, 'a.example.com. A MX RRSIG NSEC CAA', '\\# 2 BEEF',
    ]);
  });

  it('quotes bytes outside printable ASCII as \\DDD', () => {
    expect(quoteCharacterString(Uint8Array.from([0x61, 0x0a, 0xc3, 0xa9]))).toBe('"a\\010\\195\\169"');
  });
});
