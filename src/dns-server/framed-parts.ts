/**
 * Transfer messages laid out already framed for TCP (RFC 1035 §4.2.2: each behind its two-byte length), in
 * chunks of their own, so a part of a zone transfer costs no copy after it is made: the TCP listener writes each
 * run of framed messages as one slice of its chunk ({@link framedRuns}) instead of framing a copy.
 *
 * A streamed transfer's chunks are shared memory from a {@link ChunkPool}: the DNS thread posts the messages
 * (shared, not copied) and gets each chunk back once the connection has taken its bytes, to write the next
 * part into. A million-record AXFR used to make a fresh 256 KiB buffer per part and move it to the main thread;
 * the 28 MB of new memory per transfer, counted against V8's external memory limit, made the main thread run a
 * full collection every few hundred ms of a transfer (70-100 ms of marking each). Shared memory is not counted,
 * and the pool's chunks are reused. Other chunks are the thread's own memory, moved by postMessage's transfer
 * list ({@link transferList}).
 */

/** Bytes of a new chunk (more when one message needs more). */
const CHUNK_BYTES = 256 * 1024;
/** A pooled chunk's first bytes: its number in its pool (messages are written after it). */
const ID_BYTES = 4;
/** Chunks a pool keeps ready to reuse. */
const FREE_CHUNKS = 16;
/** Chunks a pool remembers as lent; past it the oldest is forgotten (never given back: its memory is collected). */
const LENT_CHUNKS = 64;

/** Chunks made by {@link FramedChunks} in the thread's own memory: only these are ever moved (a pooled Buffer's memory never is). */
const owned = new WeakSet<ArrayBufferLike>();

/**
 * Shared chunks lent to transfers and given back by number once written ({@link give}). A number given back twice,
 * or not lent, is ignored, so a chunk is never in use twice.
 */
export class ChunkPool {
  private readonly free: SharedArrayBuffer[] = [];
  private readonly lent = new Map<number, SharedArrayBuffer>();
  private next = 1;

  /** A chunk of at least `need` bytes after its number. */
  take(need: number): Buffer {
    const size = ID_BYTES + Math.max(CHUNK_BYTES, need);
    let memory = size === ID_BYTES + CHUNK_BYTES ? this.free.pop() : undefined;
    memory ??= new SharedArrayBuffer(size);
    const id = this.next;
    this.next = this.next === 0xffffffff ? 1 : this.next + 1;
    new DataView(memory).setUint32(0, id);
    this.lent.set(id, memory);
    if (this.lent.size > LENT_CHUNKS) this.lent.delete(this.lent.keys().next().value!);
    return Buffer.from(memory, ID_BYTES);
  }

  /** Takes back the chunks numbered `ids`: their bytes have been sent, they may be written again. */
  give(ids: readonly number[]): void {
    for (const id of ids) {
      const memory = this.lent.get(id);
      if (!memory) continue;
      this.lent.delete(id);
      if (memory.byteLength === ID_BYTES + CHUNK_BYTES && this.free.length < FREE_CHUNKS) this.free.push(memory);
    }
  }

  /** Chunks lent and not given back (tests). */
  get lentCount(): number {
    return this.lent.size;
  }
}

/** This thread's pool of shared chunks, for streamed transfers. */
export const sharedChunks = new ChunkPool();

/** The numbers of the pooled chunks `messages` (or runs of them) lie in, each once (to give them back, in the thread that lent them). */
export function pooledChunkIds(messages: readonly Uint8Array[]): number[] {
  const ids: number[] = [];
  for (const m of messages) {
    if (!(m.buffer instanceof SharedArrayBuffer) || m.byteOffset < ID_BYTES) continue;
    const id = new DataView(m.buffer).getUint32(0);
    if (!ids.includes(id)) ids.push(id);
  }
  return ids;
}

/**
 * Writes messages behind their length into chunks of its own, from `pool` when given; {@link takeChunk} starts a
 * new chunk.
 */
export class FramedChunks {
  private chunk: Buffer = Buffer.alloc(0);
  private at = 0;

  constructor(private readonly pool?: ChunkPool) {}

  /** A copy of `bytes[0, len)` behind its two-byte length; the message (without the length) is returned. */
  push(bytes: Uint8Array, len: number): Buffer {
    if (this.at + 2 + len > this.chunk.length) this.newChunk(2 + len);
    const c = this.chunk;
    c[this.at] = len >>> 8;
    c[this.at + 1] = len & 0xff;
    c.set(bytes.subarray(0, len), this.at + 2);
    const msg = c.subarray(this.at + 2, this.at + 2 + len);
    this.at += 2 + len;
    return msg;
  }

  /**
   * Room for the next message, written in place (no copy when it is closed with {@link commit}): a view of `size`
   * bytes after room for its length. A message that outgrows it is written elsewhere and closed with {@link push}.
   */
  openRoom(size: number): Buffer {
    if (this.at + 2 + size > this.chunk.length) this.newChunk(2 + size);
    return this.chunk.subarray(this.at + 2, this.at + 2 + size);
  }

  /** Whether `view` is the room {@link openRoom} gave last (the message is still there). */
  isRoom(view: Uint8Array): boolean {
    return view.buffer === this.chunk.buffer && view.byteOffset === this.chunk.byteOffset + this.at + 2;
  }

  /** Closes the message written in place into {@link openRoom}'s view, `len` bytes, behind its length. */
  commit(len: number): Buffer {
    const c = this.chunk;
    c[this.at] = len >>> 8;
    c[this.at + 1] = len & 0xff;
    const msg = c.subarray(this.at + 2, this.at + 2 + len);
    this.at += 2 + len;
    return msg;
  }

  /**
   * Messages pushed from now on go into a new chunk (the ones before may be handed over). A pooled chunk that holds
   * no message yet (taken for a message that was still open when its part ended) goes back to the pool: no part
   * refers to it, so nothing else would ever give it back.
   */
  takeChunk(): void {
    if (this.at === 0 && this.pool && this.chunk.length > 0) this.pool.give(pooledChunkIds([this.chunk]));
    this.chunk = Buffer.alloc(0);
    this.at = 0;
  }

  private newChunk(need: number): void {
    this.at = 0;
    if (this.pool) { this.chunk = this.pool.take(need); return; }
    // Its own memory (never Buffer's shared pool), not zeroed: every byte handed over is written first.
    this.chunk = Buffer.allocUnsafeSlow(Math.max(CHUNK_BYTES, need));
    owned.add(this.chunk.buffer);
  }
}

/** The chunks of {@link FramedChunks} that `messages` lie in (each once): safe to transfer, nothing else uses them. */
export function transferList(messages: readonly Uint8Array[]): ArrayBuffer[] {
  const out: ArrayBuffer[] = [];
  for (const m of messages) {
    const ab = m.buffer as ArrayBuffer;
    if (owned.has(ab) && out[out.length - 1] !== ab && !out.includes(ab)) out.push(ab);
  }
  return out;
}

/**
 * The TCP stream of `messages` (each behind its two-byte length) as slices of the buffers they lie in, when
 * every message is already preceded there by its length and consecutive ones follow each other (one slice per
 * run); undefined otherwise (the caller frames a copy). The bytes are those framing would write, by construction.
 */
export function framedRuns(messages: readonly Uint8Array[]): Buffer[] | undefined {
  const runs: Buffer[] = [];
  let buffer: ArrayBufferLike | undefined;
  let start = 0;
  let end = -1;
  for (const m of messages) {
    const at = m.byteOffset;
    if (at < 2) return undefined;
    const b = new Uint8Array(m.buffer, at - 2, 2);
    if (((b[0]! << 8) | b[1]!) !== m.byteLength) return undefined;
    if (m.buffer !== buffer || at - 2 !== end) {
      if (buffer) runs.push(Buffer.from(buffer, start, end - start));
      buffer = m.buffer;
      start = at - 2;
    }
    end = at + m.byteLength;
  }
  if (buffer) runs.push(Buffer.from(buffer, start, end - start));
  return runs;
}
