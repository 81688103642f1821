/**
 * Normalises a `put` / `uploadPart` value into a byte source of known length (reference §1.20, §7.1).
 * Streams must have a known length (see known-length.ts); they are read incrementally, never buffered whole.
 */
import { knownLength, SHORT_STREAM_MESSAGE } from './known-length.js';

/** The runtime's error for a stream of unknown length. */
export const UNKNOWN_LENGTH_MESSAGE =
  'Provided readable stream must have a known length (request/response body or readable half of FixedLengthStream)';

/** A value ready to store. */
export interface ValueSource {
  length: number;
  /** The whole value when it is already in memory. */
  bytes?: Uint8Array;
  /** Otherwise, its chunks. */
  stream?: ReadableStream;
  /** Cancels an unread stream after a failure before the write started. */
  cancel(reason: unknown): void;
}

const TYPES = 'ReadableStream or ArrayBuffer or ArrayBufferView or string or Blob';

function copy(view: ArrayBuffer | ArrayBufferView): Uint8Array {
  const src = view instanceof ArrayBuffer ? new Uint8Array(view) : new Uint8Array(view.buffer, view.byteOffset, view.byteLength);
  return new Uint8Array(src);
}

/**
 * Classifies a value without reading it. `method`/`owner` name the call in the type error
 * (`put` on `R2Bucket`, `uploadPart` on `R2MultipartUpload`), as the runtime does.
 */
export function classifyValue(value: unknown, method: 'put' | 'uploadPart'): ValueSource {
  const none = (): void => undefined;
  if (method === 'put' && (value === null || value === undefined)) return { length: 0, bytes: new Uint8Array(0), cancel: none };
  if (typeof value === 'string') {
    const bytes = new TextEncoder().encode(value);
    return { length: bytes.byteLength, bytes, cancel: none };
  }
  if (value instanceof ArrayBuffer || ArrayBuffer.isView(value)) {
    const bytes = copy(value);
    return { length: bytes.byteLength, bytes, cancel: none };
  }
  if (value instanceof Blob) return { length: value.size, stream: value.stream(), cancel: none };
  if (value instanceof ReadableStream) {
    return {
      length: knownLength(value) ?? -1,
      stream: value,
      cancel: (reason) => {
        if (!value.locked) value.cancel(reason).catch(() => undefined);
      },
    };
  }
  const owner = method === 'put' ? 'R2Bucket' : 'R2MultipartUpload';
  throw new TypeError(`Failed to execute '${method}' on '${owner}': parameter 2 is not of type '${TYPES}'.`);
}

/** Throws the runtime's TypeError when a stream's length is unknown. */
export function requireKnownLength(src: ValueSource): void {
  if (src.length < 0) throw new TypeError(UNKNOWN_LENGTH_MESSAGE);
}

function asBytes(chunk: unknown): Uint8Array {
  if (chunk instanceof Uint8Array) return chunk;
  if (ArrayBuffer.isView(chunk)) return new Uint8Array(chunk.buffer, chunk.byteOffset, chunk.byteLength);
  if (chunk instanceof ArrayBuffer) return new Uint8Array(chunk);
  throw new TypeError('This ReadableStream did not return bytes.');
}

/** Coalesce stream chunks into pieces of about this size before they reach the disk. */
const COALESCE = 1024 * 1024;

/**
 * Yields the value's bytes, checking that a stream delivers exactly its declared length, in pieces of about
 * 1 MiB (each piece is a fresh buffer the consumer may keep).
 */
export async function* readSource(src: ValueSource): AsyncGenerator<Uint8Array> {
  if (src.bytes) {
    yield src.bytes;
    return;
  }
  const reader = (src.stream as ReadableStream).getReader();
  let seen = 0;
  let pending: Uint8Array[] = [];
  let pendingBytes = 0;
  const flush = (): Uint8Array => {
    const out = pending.length === 1 ? pending[0]! : Buffer.concat(pending, pendingBytes);
    pending = [];
    pendingBytes = 0;
    return out;
  };
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      const bytes = asBytes(value);
      seen += bytes.byteLength;
      if (seen > src.length) throw new TypeError('Attempt to write too many bytes through a FixedLengthStream.');
      pending.push(bytes);
      pendingBytes += bytes.byteLength;
      if (pendingBytes >= COALESCE) yield flush();
    }
    if (seen < src.length) throw new TypeError(SHORT_STREAM_MESSAGE);
    if (pendingBytes > 0) yield flush();
  } catch (err) {
    reader.cancel(err).catch(() => undefined);
    throw err;
  } finally {
    reader.releaseLock();
  }
}
