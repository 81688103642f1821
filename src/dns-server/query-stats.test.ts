import { describe, expect, it } from 'vitest';
import { QTYPES, QueryStats, RCODES, qtypeIndex, rcodeIndex } from './query-stats.js';

/** A header and one question (`www.example` of `type`), optionally with an OPT record of extended rcode `ext`. */
function message(type: number, opts: { qr?: boolean; rcode?: number; tc?: boolean; opt?: { ext: number } } = {}): Buffer {
  const header = Buffer.alloc(12);
  header.writeUInt16BE(0x1234, 0);
  header[2] = (opts.qr ? 0x80 : 0) | (opts.tc ? 0x02 : 0);
  header[3] = opts.rcode ?? 0;
  header.writeUInt16BE(1, 4);
  header.writeUInt16BE(opts.opt ? 1 : 0, 10);
  const question = Buffer.concat([Buffer.from('03777777076578616d706c6500', 'hex'), Buffer.from([type >> 8, type & 0xff, 0, 1])]);
  const opt = opts.opt ? Buffer.from([0, 0, 41, 0x04, 0xd0, opts.opt.ext, 0, 0, 0, 0, 0]) : Buffer.alloc(0);
  return Buffer.concat([header, question, opt]);
}

describe('DNS query stats', () => {
  it('reads the query type, with unknown types as other', () => {
    expect(QTYPES[qtypeIndex(message(1))]).toBe('A');
    expect(QTYPES[qtypeIndex(message(65))]).toBe('HTTPS');
    expect(QTYPES[qtypeIndex(message(252))]).toBe('AXFR');
    expect(QTYPES[qtypeIndex(message(4242))]).toBe('other');
    expect(QTYPES[qtypeIndex(Buffer.alloc(5))]).toBe('other');
  });

  it('reads the rcode, BADVERS from the OPT record of an empty answer', () => {
    expect(RCODES[rcodeIndex(message(1, { qr: true, rcode: 3 }))]).toBe('NXDOMAIN');
    expect(RCODES[rcodeIndex(message(1, { qr: true, opt: { ext: 0 } }))]).toBe('NOERROR');
    expect(RCODES[rcodeIndex(message(1, { qr: true, opt: { ext: 1 } }))]).toBe('BADVERS');
  });

  it('counts queries, truncations and latency, and moves counts between processes', () => {
    const worker = new QueryStats();
    worker.record(message(1), message(1, { qr: true, tc: true }), 'udp', 0.0003);
    worker.record(message(1), undefined, 'udp', 0.00001);
    expect(worker.idle).toBe(false);
    const main = new QueryStats();
    main.record(message(6), message(6, { qr: true }), 'tcp', 2);
    main.add(worker.drain());
    expect(worker.idle).toBe(true);
    const q = main.counts.queries;
    const at = (t: number, type: string, rcode: string) => q[(t * QTYPES.length + QTYPES.indexOf(type as never)) * RCODES.length + RCODES.indexOf(rcode as never)];
    expect(at(0, 'A', 'NOERROR')).toBe(1);
    expect(at(0, 'A', 'dropped')).toBe(1);
    expect(at(1, 'SOA', 'NOERROR')).toBe(1);
    expect([...main.counts.truncated]).toEqual([1, 0]);
    expect(main.counts.latencySum[0]).toBeCloseTo(0.00031, 8);
    expect(main.counts.latency.reduce((a, b) => a + b, 0)).toBe(3);
  });
});
