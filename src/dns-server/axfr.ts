/**
 * Zone transfer (AXFR, RFC 5936): the served zone as a sequence of response messages, SOA first and last.
 * An IXFR request its journal cannot answer (ixfr.ts) is answered the same way (a full transfer, RFC 1995 §4).
 * The records are what queries are answered with (edge addresses, flattened CNAMEs, synthesized HTTPS), so a
 * secondary answers identically.
 *
 * A zone tree is transferred as a stream ({@link axfrStream}): the tree's current version is frozen
 * (zone-tree-transfer.ts: three references per name) and its messages are made a slice at a time, as the
 * connection takes them, so a million-record zone's transfer never holds more than a slice of records and
 * messages (it used to derive and encode the whole zone at once: about 400 MiB at a million records). Records
 * are written into the messages as they come; a plain name's (A, AAAA, TXT as stored) straight from its packed
 * records (dns/packed-wire.ts), without record objects.
 */
import type { ZoneSnapshot } from '../dns/snapshot.js';
import { ZoneTree } from '../dns/zone-tree.js';
import { FrozenZone, type TransferSink } from '../dns/zone-tree-transfer.js';
import type { PlainRecords } from '../dns/packed-wire.js';
import { TYPE } from '../dns/wire/constants.js';
import type { Question, WireRecord } from '../dns/wire/message.js';
import { Writer } from '../dns/wire/writer.js';
import { FramedChunks, pooledChunkIds, sharedChunks, type ChunkPool } from './framed-parts.js';
import type { TransferPart } from './query-types.js';

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

/** The owner, type, class and TTL of a record, and room for its RDATA length (returns where that length goes). */
function writeHeader(w: Writer, name: string, type: number, ttl: number): number {
  w.name(name);
  w.u16(type);
  w.u16(1);
  w.u32(ttl);
  const lenAt = w.pos;
  w.u16(0);
  return lenAt;
}

/**
 * Writes records into response messages of about `maxBytes` each, as they come (no list of records per
 * message); the first message made echoes the question. A message is closed before a record whose estimated
 * size would take it past `maxBytes`, so it holds at least one record.
 */
class MessagePacker implements TransferSink {
  private readonly w: Writer;
  private count = 0;
  private made = 0;
  private open = false;
  /** Where the zone's name is written in the open message (a plain owner's suffix points there), or -1. */
  private originAt = -1;
  /** Where closed messages go: behind their TCP length, in chunks handed over without copies (framed-parts.ts). */
  private readonly chunks: FramedChunks;
  out: Buffer[] = [];
  /** Where a message still open at the end of a part goes on being written. */
  private own: Buffer | undefined;

  /** `pool`: the closed messages' chunks are lent from it (a streamed transfer), each part given back with its `release`. */
  constructor(private readonly id: number, private readonly question: Question, private readonly maxBytes: number, private readonly pool?: ChunkPool) {
    this.w = new Writer(maxBytes * 2);
    this.chunks = new FramedChunks(pool);
  }

  private begin(): void {
    const w = this.w;
    // Written in place in its chunk (flush then adds only its length).
    w.reset(this.chunks.openRoom(this.maxBytes * 2));
    w.u16(this.id);
    w.u16(0x8400); // QR, AA
    w.u16(this.made === 0 ? 1 : 0);
    w.u16(0); // the answer count, set when the message is closed
    w.u16(0);
    w.u16(0);
    this.originAt = -1;
    if (this.made === 0) {
      w.name(this.question.name);
      w.u16(this.question.type);
      w.u16(this.question.klass);
    }
    this.open = true;
  }

  /** Makes room for a record of about `size` bytes: a message open, with room unless it is empty. */
  private room(size: number): void {
    if (this.open && this.count > 0 && this.w.pos + size > this.maxBytes) this.flush();
    if (!this.open) this.begin();
  }

  add(r: WireRecord): void {
    this.room(estimate(r));
    const w = this.w;
    const lenAt = writeHeader(w, r.name, r.type, r.ttl);
    for (const part of r.rdata) {
      if (part instanceof Uint8Array) w.bytes(part);
      else w.name(part.name, true);
    }
    w.patch16(lenAt, w.pos - lenAt - 2);
    this.count++;
  }

  addPlain(name: string, origin: string, records: PlainRecords): void {
    const w = this.w;
    // The owner under the zone's name (labels, then a pointer to it), then a pointer to the owner for its other
    // records. A name given here is the zone's or below it (TransferSink), so its end is not compared.
    const prefix = name.length - origin.length - 1;
    const under = origin !== '' && prefix > 0 && name.charCodeAt(prefix) === 0x2e;
    let ownerAt = -1;
    for (let i = 0; i < records.count; i++) {
      const start = records.starts[i]!;
      const end = records.ends[i]!;
      const made = this.made;
      this.room(name.length + 12 + end - start);
      if (made !== this.made) ownerAt = -1;
      if (ownerAt >= 0) w.u16(0xc000 | ownerAt);
      else {
        if (w.pos < 0x4000) ownerAt = w.pos;
        if (under) this.ownerUnder(name, prefix, origin);
        else w.name(name);
      }
      const buf = w.room(10 + end - start);
      let at = w.pos;
      const type = records.types[i]!;
      const ttl = records.ttls[i]!;
      const len = end - start;
      buf[at] = type >>> 8;
      buf[at + 1] = type & 0xff;
      buf[at + 2] = 0;
      buf[at + 3] = 1;
      buf[at + 4] = ttl >>> 24;
      buf[at + 5] = (ttl >>> 16) & 0xff;
      buf[at + 6] = (ttl >>> 8) & 0xff;
      buf[at + 7] = ttl & 0xff;
      buf[at + 8] = len >>> 8;
      buf[at + 9] = len & 0xff;
      at += 10;
      const rdata = records.rdata;
      for (let k = start; k < end; k++) buf[at++] = rdata[k]!;
      w.pos = at;
      this.count++;
    }
  }

  /** An owner under the zone's name: its first labels, then the zone's name (a pointer once written in this message). */
  private ownerUnder(name: string, prefix: number, origin: string): void {
    const w = this.w;
    w.labelsThen(name, prefix, '');
    w.pos--; // the root label labelsThen ended with
    if (this.originAt >= 0) {
      w.u16(0xc000 | this.originAt);
      return;
    }
    // The zone's name, remembered where it starts (or, written as one pointer, where that points).
    const at = w.pos;
    w.name(origin);
    const b = w.buf;
    const target = w.pos - at === 2 && b[at]! >= 0xc0 ? ((b[at]! & 0x3f) << 8) | b[at + 1]! : at;
    if (target < 0x4000) this.originAt = target;
  }

  /** Closes the open message (an empty one when none is open). */
  flush(): void {
    if (!this.open) this.begin();
    if (this.w.pos > 0xffff) throw new RangeError(`a transfer message of ${this.w.pos} bytes`);
    this.w.patch16(6, this.count);
    this.out.push(this.chunks.isRoom(this.w.buf) ? this.chunks.commit(this.w.pos) : this.chunks.push(this.w.buf, this.w.pos));
    this.made++;
    this.count = 0;
    this.open = false;
  }

  /** The messages made since the last call (with the `release` of their chunks when lent from a pool). */
  takeOut(): TransferPart {
    const out: TransferPart = this.out;
    this.out = [];
    // A message still open goes on in the packer's own buffer (this part's chunks are given back once it is
    // sent; no chunk is taken for a part not asked for yet), copied into the next part's chunk when closed. Its
    // offsets are from its own start, so its bytes move as they are.
    const w = this.w;
    if (this.open && this.chunks.isRoom(w.buf)) {
      const own = (this.own ??= Buffer.allocUnsafe(w.buf.length));
      own.set(w.buf.subarray(0, w.pos));
      w.buf = own;
    }
    this.chunks.takeChunk();
    const pool = this.pool;
    if (pool) out.release = () => pool.give(pooledChunkIds(out));
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
/**
 * Work for a streamed transfer's first part (ms): none past its first message, so the client has bytes within
 * about a millisecond of its query (a full part first held them back for {@link PART_MS} and a round trip, where
 * Knot sends at once), while the next parts are made as the first is sent.
 */
const FIRST_PART_MS = 0;

/**
 * A transfer's messages: the first part now, the next ones from `more()` (undefined: complete). Each part's
 * memory is lent from the thread's pool of shared chunks: its `release` gives it back once sent (query-types.ts).
 */
export interface TransferParts {
  first: TransferPart;
  more?: () => TransferPart | undefined;
}

/** The version of `s` a streamed transfer reads: a frozen zone tree, or the snapshot itself (built whole, immutable). */
export function transferView(s: ZoneSnapshot): ZoneSnapshot {
  return s instanceof ZoneTree ? new FrozenZone(s).snapshot() : s;
}

/**
 * The AXFR response messages of a zone tree's current version, made a part at a time (batches of
 * {@link SLICE_NAMES} names for about {@link PART_MS} per part). Other snapshots are answered at once.
 */
export function axfrStream(s: ZoneSnapshot, id: number, question: Question, maxBytes = 16_000, partMs = PART_MS, pool = sharedChunks): TransferParts {
  if (!(s instanceof ZoneTree)) return { first: axfrMessages(s, id, question, maxBytes) };
  const frozen = new FrozenZone(s);
  // The SOA, the names a slice at a time, the SOA again.
  let stage: 'first' | 'names' | 'last' | 'done' = 'first';
  const batch = (sink: TransferSink): boolean => {
    if (stage === 'done') return false;
    if (stage === 'names' && frozen.remaining > 0) frozen.writeNext(SLICE_NAMES, sink);
    else {
      sink.add(frozen.soa);
      stage = stage === 'first' ? 'names' : 'done';
    }
    return true;
  };
  return packTransfer(id, question, batch, maxBytes, partMs, pool);
}

/** Packs batches of transfer records (SOA first and last) into messages, a part of about `partMs` (at least one message) per call. */
export function streamTransfer(id: number, question: Question, batches: Iterator<WireRecord[], void>, maxBytes = 16_000, partMs = PART_MS, pool = sharedChunks): TransferParts {
  return packTransfer(id, question, (sink) => {
    const next = batches.next();
    if (next.done) return false;
    for (const r of next.value) sink.add(r);
    return true;
  }, maxBytes, partMs, pool);
}

/**
 * Packs what `batch` writes (a batch per call; false: no more) into messages, a part of about `partMs` per call,
 * in chunks lent from `pool` (the thread's own by default).
 */
function packTransfer(id: number, question: Question, batch: (sink: TransferSink) => boolean, maxBytes: number, partMs: number, pool: ChunkPool): TransferParts {
  const packer = new MessagePacker(id, question, maxBytes, pool);
  let done = false;
  const part = (ms = partMs): TransferPart | undefined => {
    if (done) return undefined;
    const end = performance.now() + ms;
    do {
      if (!batch(packer)) {
        packer.flush();
        done = true;
        break;
      }
    } while (performance.now() < end || packer.out.length === 0);
    return packer.takeOut();
  };
  return { first: part(FIRST_PART_MS)!, more: () => part() };
}
