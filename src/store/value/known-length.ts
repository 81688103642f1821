/**
 * Streams of known length. Production accepts a ReadableStream for `put`/`uploadPart` only when its length
 * is known (request/response bodies, FixedLengthStream, bodies of `get`). Node has no such notion, so the
 * length is recorded here, keyed by the stream object: the runtime registers request bodies with
 * `withKnownLength`, and `get` bodies register themselves.
 */

const lengths = new WeakMap<ReadableStream, number>();

/** Marks `stream` as carrying exactly `length` bytes and returns it. */
export function withKnownLength<T extends ReadableStream>(stream: T, length: number): T {
  if (!Number.isSafeInteger(length) || length < 0) throw new RangeError(`Invalid stream length ${length}`);
  lengths.set(stream, length);
  // Both branches of a tee carry the same bytes, so they keep the length (as in the edge runtime).
  const tee = stream.tee;
  Object.defineProperty(stream, 'tee', {
    configurable: true,
    writable: true,
    value: function (this: ReadableStream) {
      const branches = tee.call(this) as [ReadableStream, ReadableStream];
      for (const b of branches) withKnownLength(b, length);
      return branches;
    },
  });
  return stream;
}

/** The declared length of a stream, or undefined when unknown. */
export function knownLength(stream: ReadableStream): number | undefined {
  return lengths.get(stream);
}

/** Error a FixedLengthStream raises when it is closed before all declared bytes passed. */
export const SHORT_STREAM_MESSAGE = 'FixedLengthStream did not see all expected bytes before close().';

/** A pass-through stream whose readable side has a known length, like the edge runtime's FixedLengthStream. */
export class FixedLengthStream extends TransformStream<Uint8Array, Uint8Array> {
  constructor(expectedLength: number | bigint) {
    const expected = Number(expectedLength);
    if (!Number.isSafeInteger(expected) || expected < 0) throw new TypeError('FixedLengthStream requires a non-negative integer length.');
    let seen = 0;
    super({
      transform(chunk, controller) {
        const bytes = toBytes(chunk);
        seen += bytes.byteLength;
        if (seen > expected) {
          controller.error(new TypeError('Attempt to write too many bytes through a FixedLengthStream.'));
          return;
        }
        controller.enqueue(bytes);
      },
      flush(controller) {
        if (seen < expected) controller.error(new TypeError(SHORT_STREAM_MESSAGE));
      },
    });
    withKnownLength(this.readable, expected);
  }
}

function toBytes(chunk: unknown): Uint8Array {
  if (chunk instanceof Uint8Array) return chunk;
  if (ArrayBuffer.isView(chunk)) return new Uint8Array(chunk.buffer, chunk.byteOffset, chunk.byteLength);
  if (chunk instanceof ArrayBuffer) return new Uint8Array(chunk);
  if (typeof chunk === 'string') return new TextEncoder().encode(chunk);
  throw new TypeError('This TransformStream is being used as a byte stream, but received an object of non-ArrayBuffer/ArrayBufferView type on its writable side.');
}
