/** Splits a protocol PUT body (`n` bytes of JSON, then the value) without buffering the value. */
import { withKnownLength } from '../../store/value/known-length.js';

/** The request JSON and the value: bytes when small, else a stream of known length. */
export interface SplitBody {
  json: unknown;
  value: ReadableStream<Uint8Array> | Uint8Array;
  valueLength: number;
}

/** Values up to this size are read whole before the store is called (cheaper than a stream for small puts). */
export const SMALL_VALUE = 64 * 1024;

/**
 * Reads the first `metadataSize` bytes of the body `it` yields as JSON; the rest streams on as the value
 * (`contentLength - metadataSize` bytes).
 */
export async function splitBody(it: AsyncIterator<Buffer>, metadataSize: number, contentLength: number): Promise<SplitBody> {
  const head: Buffer[] = [];
  let have = 0;
  let leftover: Buffer | undefined;
  while (have < metadataSize) {
    const next = await it.next();
    if (next.done) throw new Error('the request body ended inside its metadata');
    const chunk = next.value;
    const need = metadataSize - have;
    if (chunk.length > need) {
      head.push(chunk.subarray(0, need));
      leftover = chunk.subarray(need);
      have = metadataSize;
    } else {
      head.push(chunk);
      have += chunk.length;
    }
  }
  const valueLength = contentLength - metadataSize;
  const json = JSON.parse(Buffer.concat(head).toString('utf8'));
  if (valueLength <= SMALL_VALUE) {
    const parts: Buffer[] = leftover ? [leftover] : [];
    let got = leftover?.length ?? 0;
    for (;;) {
      const next = await it.next();
      if (next.done) break;
      parts.push(next.value);
      got += next.value.length;
    }
    // A client that went away mid-body ends the iteration early (or throws): never store a short value.
    if (got !== valueLength) throw new Error(`the request body ended after ${got} of ${valueLength} value bytes`);
    return { json, value: new Uint8Array(Buffer.concat(parts, got)), valueLength };
  }
  const value = new ReadableStream<Uint8Array>({
    start(controller) {
      if (leftover && leftover.length > 0) controller.enqueue(new Uint8Array(leftover));
    },
    async pull(controller) {
      const next = await it.next();
      if (next.done) controller.close();
      else controller.enqueue(new Uint8Array(next.value.buffer, next.value.byteOffset, next.value.byteLength));
    },
    async cancel() {
      await it.return?.();
    },
  }, { highWaterMark: 0 });
  return { json, value: withKnownLength(value, valueLength), valueLength };
}
