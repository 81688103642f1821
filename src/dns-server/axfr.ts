/**
 * Zone transfer (AXFR, RFC 5936): the served zone as a sequence of response messages, SOA first and last.
 * An IXFR request is answered the same way (a full transfer, RFC 1995 §4), which every secondary accepts.
 * The records are what queries are answered with (edge addresses, flattened CNAMEs, synthesized HTTPS), so a
 * secondary answers identically.
 */
import type { ZoneSnapshot } from '../dns/snapshot.js';
import { TYPE } from '../dns/wire/constants.js';
import { encodeMessage, type Question, type WireRecord } from '../dns/wire/message.js';
import { Writer } from '../dns/wire/writer.js';

/** Every record of the snapshot in transfer order: SOA, the rest, SOA. */
export function transferRecords(s: ZoneSnapshot): WireRecord[] {
  const soa = s.soa.records[0]!;
  const out: WireRecord[] = [soa];
  for (const node of s.nodes.values()) {
    for (const set of node.rrsets.values()) {
      if (set.type === TYPE.SOA && node.name === s.origin) continue;
      out.push(...set.records);
    }
  }
  out.push(soa);
  return out;
}

function estimate(r: WireRecord): number {
  let n = r.name.length + 12;
  for (const p of r.rdata) n += p instanceof Uint8Array ? p.length : p.name.length + 2;
  return n;
}

/** The AXFR response messages for a query (question echoed in the first message only); `records` default to the snapshot's. */
export function axfrMessages(s: ZoneSnapshot, id: number, question: Question, maxBytes = 16_000, records = transferRecords(s)): Buffer[] {
  const w = new Writer(maxBytes * 2);
  const out: Buffer[] = [];
  let batch: WireRecord[] = [];
  let size = 0;
  const flush = () => {
    encodeMessage(w, {
      id, qr: true, opcode: 0, aa: true, rd: false, rcode: 0,
      question: out.length === 0 ? question : undefined,
      answers: batch, authorities: [], additionals: [],
    });
    out.push(w.result());
    batch = [];
    size = 0;
  };
  for (const r of records) {
    const e = estimate(r);
    if (batch.length > 0 && size + e > maxBytes) flush();
    batch.push(r);
    size += e;
  }
  flush();
  return out;
}
