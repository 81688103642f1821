/**
 * Zone transfer (AXFR, RFC 5936): the served zone as a sequence of response messages, SOA first and last.
 * An IXFR request is answered the same way (a full transfer, RFC 1995 §4), which every secondary accepts.
 * The records are what queries are answered with (edge addresses, flattened CNAMEs, synthesized HTTPS), so a
 * secondary answers identically.
 *
 * A zone tree is transferred as a stream ({@link axfrStream}): the tree's current version is frozen
 * (zone-tree-transfer.ts: three references per name) and its messages are made a slice at a time, as the
 * connection takes them, so a million-record zone's transfer never holds more than a slice of records and
 * messages (it used to derive and encode the whole zone at once: about 400 MiB at a million records).
 */
import type { ZoneSnapshot } from '../dns/snapshot.js';
import { ZoneTree } from '../dns/zone-tree.js';
import { FrozenZone } from '../dns/zone-tree-transfer.js';
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

/** Packs records into response messages of about `maxBytes` each; the first message made echoes the question. */
class MessagePacker {
  private readonly w: Writer;
  private batch: WireRecord[] = [];
  private size = 0;
  private made = 0;
  out: Buffer[] = [];

  constructor(private readonly id: number, private readonly question: Question, private readonly maxBytes: number) {
    this.w = new Writer(maxBytes * 2);
  }

  add(r: WireRecord): void {
    const e = estimate(r);
    if (this.batch.length > 0 && this.size + e > this.maxBytes) this.flush();
    this.batch.push(r);
    this.size += e;
  }

  flush(): void {
    encodeMessage(this.w, {
      id: this.id, qr: true, opcode: 0, aa: true, rd: false, rcode: 0,
      question: this.made++ === 0 ? this.question : undefined,
      answers: this.batch, authorities: [], additionals: [],
    });
    this.out.push(this.w.result());
    this.batch = [];
    this.size = 0;
  }

  /** The messages made since the last call. */
  takeOut(): Buffer[] {
    const out = this.out;
    this.out = [];
    return out;
  }
}

/** The AXFR response messages for a query (question echoed in the first message only); `records` default to the snapshot's. */
export function axfrMessages(s: ZoneSnapshot, id: number, question: Question, maxBytes = 16_000, records = transferRecords(s)): Buffer[] {
  const packer = new MessagePacker(id, question, maxBytes);
  for (const r of records) packer.add(r);
  packer.flush();
  return packer.out;
}

/** Names read per slice of a streamed transfer. */
const SLICE_NAMES = 2000;

/**
 * The AXFR response messages of a zone tree's current version, made a slice (about {@link SLICE_NAMES} names)
 * per call: the first call's messages are returned, then `more()` gives the next slice's until it returns
 * undefined. Other snapshots (built whole) are answered at once.
 */
export function axfrStream(s: ZoneSnapshot, id: number, question: Question, maxBytes = 16_000): { first: Buffer[]; more?: () => Buffer[] | undefined } {
  if (!(s instanceof ZoneTree)) return { first: axfrMessages(s, id, question, maxBytes) };
  const frozen = new FrozenZone(s);
  const packer = new MessagePacker(id, question, maxBytes);
  let done = false;
  packer.add(frozen.soa);
  const slice = (): Buffer[] | undefined => {
    if (done) return undefined;
    for (const r of frozen.take(SLICE_NAMES)) packer.add(r);
    if (frozen.remaining === 0) {
      packer.add(frozen.soa);
      packer.flush();
      done = true;
    }
    return packer.takeOut();
  };
  const first = slice()!;
  return { first, more: slice };
}
