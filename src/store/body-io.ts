/**
 * Moving object bytes between values and storage. Writes digest the plaintext while streaming (in a worker
 * thread for large bodies, overlapping the disk writes), encrypt with SSE-C when asked, and either keep a
 * small body inline in the metadata row or stream it into a new blob.
 * Reads open every needed blob before returning (so a concurrent overwrite cannot delete them under the
 * reader), then stream the requested range, decrypting with a counter positioned at the range start.
 */
import type { BlobHandle, BlobStore, BodyRef, MetadataStore, ObjectRecord } from './ports.js';
import type { Digester } from './checksums.js';
import { ctrAt, ctrDecipherAt } from './ssec.js';
import { readSource, type ValueSource } from './value/input.js';
import type { ResolvedRange } from './range.js';
import { StoreInvariantError } from './errors.js';
import { hashPool, OFFLOAD_HASHING, SLOT_BYTES } from './hash-pool.js';

/** Bodies up to this size live inline in the metadata row. */
export const INLINE_MAX = 64 * 1024;

/** At most this many part blobs are opened up front for one read (bounded file descriptors); later ones open as the read reaches them. */
const EAGER_OPEN = 256;

/** Encryption of a body being written. */
export interface WriteCipher {
  key: Buffer;
  iv: string;
}

/** Bodies at least this large are hashed in a worker thread (below it, the round trips cost more than they save). */
export const OFFLOAD_MIN = 4 * 1024 * 1024;

/** Digests on this thread, piece by piece. */
async function* digestHere(pieces: AsyncIterable<Uint8Array>, digester: Digester): AsyncGenerator<Uint8Array> {
  for await (const piece of pieces) {
    digester.update(piece);
    yield piece;
  }
}

/**
 * Digests in a hashing worker: each piece (split to at most SLOT_BYTES) is copied into the job's ring and
 * yielded at once, so the consumer writes it while the worker hashes it. The digests are adopted once the
 * last piece is through; an abandoned generator drops the job.
 */
async function* digestInWorker(pieces: AsyncIterable<Uint8Array>, digester: Digester): AsyncGenerator<Uint8Array> {
  const job = hashPool.open(digester.algorithms);
  try {
    for await (const piece of pieces) {
      for (let at = 0; at < piece.byteLength; at += SLOT_BYTES) {
        const view = at === 0 && piece.byteLength <= SLOT_BYTES ? piece : piece.subarray(at, at + SLOT_BYTES);
        await job.update(view);
        yield view;
      }
    }
    digester.adopt(await job.digest());
  } finally {
    job.close();
  }
}

async function* transform(src: ValueSource, digester: Digester, cipher: WriteCipher | undefined, offload: boolean): AsyncGenerator<Uint8Array> {
  const enc = cipher ? ctrAt(cipher.key, cipher.iv, 0) : undefined;
  const plain = offload ? digestInWorker(readSource(src), digester) : digestHere(readSource(src), digester);
  for await (const chunk of plain) yield enc ? enc.update(chunk) : chunk;
}

/** Stores the value's bytes: inline when small, else as a new blob. Returns the body reference. */
export async function storeBody(
  blobs: BlobStore,
  src: ValueSource,
  digester: Digester,
  cipher: WriteCipher | undefined,
  allowInline = true,
): Promise<BodyRef> {
  if (allowInline && src.length <= INLINE_MAX) {
    const pieces: Uint8Array[] = [];
    for await (const piece of transform(src, digester, cipher, false)) pieces.push(piece);
    return { kind: 'inline', data: pieces.length === 1 ? pieces[0]! : Buffer.concat(pieces) };
  }
  const offload = OFFLOAD_HASHING && src.length >= OFFLOAD_MIN;
  return { kind: 'blob', blobId: await blobs.write(transform(src, digester, cipher, offload)) };
}

/** One contiguous piece of a read: bytes [offset, offset+length) of a blob, with its cipher parameters. */
interface Segment {
  blobId: string;
  offset: number;
  length: number;
  iv: string | null;
}

/** An opened body: the chunks of the range and a release function. */
export interface OpenedBody {
  chunks: AsyncIterator<Uint8Array>;
  release: () => Promise<void>;
  /** The whole range's bytes when they are already in memory (an inline body): the same bytes `chunks` yields. */
  whole?: Uint8Array;
}

/*
 * The generators below are declared once at the top level, never as a closure per call: V8 gives every new
 * generator function its own prototype and map, made in the old generation, so a closure per read left about
 * 750 B there per read of a small object and brought a full collection (a pause of several ms) every few
 * seconds under load (bench/edge.mjs, bucket read; bench/store.mjs).
 */

/** The one chunk of a body already in memory (none when it is empty). */
async function* inMemory(bytes: Uint8Array): AsyncGenerator<Uint8Array> {
  if (bytes.byteLength > 0) yield bytes;
}

/** `source`'s chunks decrypted with `dec`. */
async function* deciphered(dec: ReturnType<typeof ctrDecipherAt>, source: AsyncIterable<Uint8Array>): AsyncGenerator<Uint8Array> {
  for await (const c of source) yield dec.update(c);
}

function decrypting(key: Buffer | undefined, iv: string | null, offset: number, source: AsyncIterable<Uint8Array>): AsyncIterable<Uint8Array> {
  if (!key || !iv) return source;
  return deciphered(ctrDecipherAt(key, iv, offset), source);
}

/** The bytes of `segments` in order, each blob opened when reached (unless opened already) and closed once read. */
async function* segmentChunks(blobs: BlobStore, segments: Segment[], handles: Map<number, BlobHandle>, key: Buffer | undefined): AsyncGenerator<Uint8Array> {
  for (let i = 0; i < segments.length; i++) {
    const seg = segments[i]!;
    const handle = handles.get(i) ?? (await blobs.open(seg.blobId));
    handles.set(i, handle);
    try {
      yield* decrypting(key, seg.iv, seg.offset, handle.read(seg.offset, seg.length));
    } finally {
      handles.delete(i);
      await handle.close();
    }
  }
}

const nothingToRelease = async (): Promise<void> => undefined;

/** Opens the bytes of `range` of a stored object. `key` is the SSE-C key when the object is encrypted. */
export async function openBody(meta: MetadataStore, blobs: BlobStore, bucket: string, rec: ObjectRecord, range: ResolvedRange, key: Buffer | undefined): Promise<OpenedBody> {
  const body = rec.body;
  if (body.kind === 'inline') {
    const slice = body.data.subarray(range.offset, range.offset + range.length);
    // A copy of its own (an ArrayBuffer of exactly the range), decrypted when the object is.
    const whole = new Uint8Array(key && rec.ssec ? ctrDecipherAt(key, rec.ssec.iv, range.offset).update(slice) : slice);
    return { chunks: inMemory(whole), release: nothingToRelease, whole };
  }
  const segments: Segment[] = [];
  if (body.kind === 'blob') {
    segments.push({ blobId: body.blobId, offset: range.offset, length: range.length, iv: rec.ssec?.iv ?? null });
  } else {
    let pos = 0;
    const end = range.offset + range.length;
    const parts = body.parts ?? (await meta.listParts(bucket, body.uploadId));
    // Never serve a short body: the parts must add up to the size the row states.
    if (parts.reduce((n, p) => n + p.size, 0) !== rec.size) throw new StoreInvariantError(`parts of ${rec.key} do not add up to its size`);
    for (const part of parts) {
      const start = pos;
      pos += part.size;
      if (pos <= range.offset || start >= end) continue;
      const from = Math.max(range.offset, start) - start;
      const to = Math.min(end, pos) - start;
      segments.push({ blobId: part.blobId, offset: from, length: to - from, iv: part.iv });
    }
  }
  const handles = new Map<number, BlobHandle>();
  const closeAll = async (): Promise<void> => {
    const all = [...handles.values()];
    handles.clear();
    await Promise.all(all.map((h) => h.close().catch(() => undefined)));
  };
  try {
    // Opened together: on a remote blob store each open is a round trip.
    const opened = await Promise.allSettled(segments.slice(0, EAGER_OPEN).map((seg) => blobs.open(seg.blobId)));
    opened.forEach((o, i) => { if (o.status === 'fulfilled') handles.set(i, o.value); });
    const failed = opened.find((o): o is PromiseRejectedResult => o.status === 'rejected');
    if (failed) throw failed.reason;
  } catch (err) {
    await closeAll();
    throw err;
  }
  return { chunks: segmentChunks(blobs, segments, handles, key), release: closeAll };
}
