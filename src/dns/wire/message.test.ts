import { describe, expect, it } from 'vitest';
import dnsPacket from 'dns-packet';
import { decodeMessage, encodeLimited, encodeMessage } from './message.js';
import { Reader, WireError } from './reader.js';
import { Writer } from './writer.js';
import { TYPE } from './constants.js';

const A = (name: string, ip: number[]) => ({ name, type: TYPE.A, ttl: 60, rdata: [Uint8Array.from(ip)] });

describe('wire messages', () => {
  it('decodes a dns-packet query with EDNS', () => {
    const q = dnsPacket.encode({
      type: 'query', id: 4242, flags: dnsPacket.RECURSION_DESIRED,
      questions: [{ type: 'AAAA', name: 'WwW.Example.com' }],
      additionals: [{ type: 'OPT', name: '.', udpPayloadSize: 4096, flags: dnsPacket.DNSSEC_OK } as dnsPacket.Answer],
    });
    const m = decodeMessage(q);
    expect(m).toMatchObject({ id: 4242, qr: false, opcode: 0, rd: true, questions: [{ name: 'WwW.Example.com', type: TYPE.AAAA, klass: 1 }] });
    expect(m.edns).toEqual({ udpSize: 4096, version: 0, extendedRcode: 0, dnssecOk: true });
  });

  it('compresses names on encode and dns-packet decodes them', () => {
    const w = new Writer(64);
    const records = Array.from({ length: 20 }, (_, i) => A(`host${i}.sub.example.com`, [192, 0, 2, i]));
    encodeMessage(w, {
      id: 1, qr: true, opcode: 0, aa: true, rd: false, rcode: 0, question: { name: 'sub.example.com', type: TYPE.A, klass: 1 },
      answers: records, authorities: [{ name: 'sub.example.com', type: TYPE.NS, ttl: 5, rdata: [{ name: 'ns.sub.example.com' }] }], additionals: [],
      edns: { udpSize: 1232 },
    });
    const buf = w.result();
    // Uncompressed each owner would take 24 bytes; compressed it is one label plus a pointer.
    expect(buf.length).toBeLessThan(12 + 21 + 20 * (8 + 10 + 4) + 40 + 11);
    const p = dnsPacket.decode(buf);
    expect(p.answers!.map((a) => `${a.name} ${(a as { data: string }).data}`)).toEqual(records.map((r, i) => `${r.name} 192.0.2.${i}`));
    expect((p.authorities![0] as { data: string }).data).toBe('ns.sub.example.com');
    expect(p.additionals![0]!.type).toBe('OPT');
    const ours = decodeMessage(buf);
    expect(ours.answers.map((a) => a.name)).toEqual(records.map((r) => r.name));
  });

  it('sets TC and drops the sections when the limit is exceeded', () => {
    const w = new Writer();
    const answers = Array.from({ length: 60 }, (_, i) => A(`n${i}.example.com`, [10, 0, 0, i]));
    const buf = encodeLimited(w, { id: 9, qr: true, opcode: 0, aa: true, rd: false, rcode: 0, question: { name: 'x.example.com', type: 1, klass: 1 }, answers, authorities: [], additionals: [] }, 512);
    const p = dnsPacket.decode(buf);
    expect(p.flags! & dnsPacket.TRUNCATED_RESPONSE).toBeTruthy();
    expect(p.answers).toEqual([]);
    expect(buf.length).toBeLessThanOrEqual(512);
  });

  it('refuses pointer loops, forward pointers, long names and trailing bytes', () => {
    expect(() => new Reader(Uint8Array.from([0xc0, 0x00])).name()).toThrow(WireError);
    expect(() => new Reader(Uint8Array.from([0x01, 0x61, 0xc0, 0x00])).name()).toThrow(/backwards/);
    const ok = new Reader(Uint8Array.from([0x01, 0x62, 0x00, 0x01, 0x61, 0xc0, 0x00]));
    ok.pos = 3;
    expect(ok.name()).toBe('a.b');
    expect(() => new Reader(Uint8Array.from([0xc0, 0x02, 0x00])).name()).toThrow(WireError);
    const long = new Uint8Array(300);
    for (let i = 0; i < 296; i += 2) { long[i] = 1; long[i + 1] = 0x61; }
    expect(() => new Reader(long).name()).toThrow(/255/);
    expect(() => new Reader(Uint8Array.from([0x40, 0x61])).name()).toThrow(/label type/);
    const q = dnsPacket.encode({ type: 'query', id: 1, questions: [{ type: 'A', name: 'a.example' }] });
    expect(() => decodeMessage(Buffer.concat([q, Buffer.from([0])]))).toThrow(/trailing/);
    expect(() => decodeMessage(q.subarray(0, q.length - 1))).toThrow(WireError);
  });

  it('refuses to write labels that are not labels', () => {
    const w = new Writer();
    expect(() => w.name('a..b')).toThrow(RangeError);
    expect(() => w.name(`${'x'.repeat(64)}.com`)).toThrow(RangeError);
  });
});
