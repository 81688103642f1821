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

/** Names read per batch of a streamed unsigned transfer. */
const SLICE_NAMES = 2000;
/** Work per part of a streamed transfer (ms): batches are taken until this much time has passed. */
const PART_MS = 4;

/** A transfer's messages: the first part now, the next ones from `more()` (undefined: complete). */
export interface TransferParts {
  first: Buffer[];
  more?: () => Buffer[] | undefined;
}

/** The version of `s` a streamed transfer reads: a frozen zone tree, or the snapshot itself (built whole, immutable). */
export function transferView(s: ZoneSnapshot): ZoneSnapshot {
  return s instanceof ZoneTree ? new FrozenZone(s).snapshot() : s;
}

/**
 * The AXFR response messages of a zone tree's current version, made a part at a time (batches of
 * {@link SLICE_NAMES} names for about {@link PART_MS} per part). Other snapshots are answered at once.
 */
export function axfrStream(s: ZoneSnapshot, id: number, question: Question, maxBytes = 16_000, partMs = PART_MS): TransferParts {
  if (!(s instanceof ZoneTree)) return { first: axfrMessages(s, id, question, maxBytes) };
  const frozen = new FrozenZone(s);
  function* batches(): Generator<WireRecord[], void> {
    yield [frozen.soa];
    while (frozen.remaining > 0) yield frozen.take(SLICE_NAMES);
    yield [frozen.soa];
  }
  return streamTransfer(id, question, batches(), maxBytes, partMs);
}

/** Packs batches of transfer records (SOA first and last) into messages, a part of about `partMs` (at least one message) per call. */
export function streamTransfer(id: number, question: Question, batches: Iterator<WireRecord[], void>, maxBytes = 16_000, partMs = PART_MS): TransferParts {
  const packer = new MessagePacker(id, question, maxBytes);
  let done = false;
  const part = (): Buffer[] | undefined => {
    if (done) return undefined;
    const end = performance.now() + partMs;
    do {
      const next = batches.next();
      if (next.done) {
        packer.flush();
        done = true;
        break;
      }
      for (const r of next.value) packer.add(r);
    } while (performance.now() < end || packer.out.length === 0);
    return packer.takeOut();
  };
  return { first: part()!, more: part };
}
