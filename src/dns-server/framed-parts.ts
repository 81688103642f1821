/**
 * Transfer messages laid out already framed for TCP (RFC 1035 §4.2.2: each behind its two-byte length), in
 * chunks of their own, so a part of a zone transfer costs no copy after it is made: the DNS thread hands the
 * chunks to the main thread in postMessage's transfer list ({@link transferList}), and the TCP listener writes
 * each run of framed messages as one slice of its chunk ({@link framedRuns}) instead of framing a copy.
 */

/** Bytes of a new chunk (more when one message needs more). */
const CHUNK_BYTES = 256 * 1024;

/** Chunks made by {@link FramedChunks}: only these are ever handed over (a pooled Buffer's memory never is). */
const owned = new WeakSet<ArrayBufferLike>();

/** Writes messages behind their length into chunks of its own; {@link takeChunk} starts a new chunk. */
export class FramedChunks {
  private chunk = Buffer.alloc(0);
  private at = 0;

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

  /** Messages pushed from now on go into a new chunk (the ones before may be handed over). */
  takeChunk(): void {
    this.chunk = Buffer.alloc(0);
    this.at = 0;
  }

  private newChunk(need: number): void {
    // Its own memory (never the shared pool), not zeroed: every byte handed over is written first.
    this.chunk = Buffer.allocUnsafeSlow(Math.max(CHUNK_BYTES, need));
    owned.add(this.chunk.buffer);
    this.at = 0;
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
