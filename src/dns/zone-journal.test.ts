import { describe, expect, it } from 'vitest';
import { soaSerial, ZoneJournal } from './zone-journal.js';
import { TYPE } from './wire/constants.js';
import type { RRset } from './snapshot.js';
import type { WireRecord } from './wire/message.js';

const soa = (serial: number): WireRecord => {
  const nums = Buffer.alloc(20);
  nums.writeUInt32BE(serial, 0);
  return { name: 'z.example', type: TYPE.SOA, ttl: 300, rdata: [{ name: 'ns.z.example' }, { name: 'h.z.example' }, new Uint8Array(nums)] };
};
const a = (octet: number): WireRecord => ({ name: 'www.z.example', type: TYPE.A, ttl: 300, rdata: [new Uint8Array([192, 0, 2, octet])] });

/** One name's served records as the tree would hand them. */
function state(records: WireRecord[]): (n: string) => Map<number, RRset> | undefined {
  return (n) => (n === 'www.z.example' && records.length ? new Map([[TYPE.A, { type: TYPE.A, ttl: 300, records }]]) : undefined);
}

describe('ZoneJournal versions numbered by the served SOA', () => {
  it('reads an SOA record\'s serial', () => {
    expect(soaSerial(soa(2026010101))).toBe(2026010101);
    expect(soaSerial(undefined)).toBeUndefined();
    expect(soaSerial(a(1))).toBeUndefined();
  });

  it('records a step between served serials; a change that leaves the served serial empties the journal', () => {
    const j = new ZoneJournal(10);
    const step = (from: number, to: number, before: WireRecord[], after: WireRecord[]) =>
      j.record(ZoneJournal.capture(['www.z.example'], 'z.example', state(before)), ['www.z.example'], 'z.example', state(after), { serial: from, soa: soa(from) }, { serial: to, soa: soa(to) });
    step(1, 2, [a(1)], [a(2)]);
    expect(j.newest).toBe(2);
    expect(j.since(1)).toMatchObject({ deleted: [a(1)], added: [a(2)] });
    step(2, 2, [a(2)], [a(2)]); // nothing served moved: kept
    expect(j.newest).toBe(2);
    step(2, 2, [a(2)], [a(3)]); // records moved, the served serial did not: no kept version is true any more
    expect(j.newest).toBeUndefined();
    expect(j.since(1)).toBeUndefined();
  });
});
