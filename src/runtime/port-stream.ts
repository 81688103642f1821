/**
 * Byte streams across a `MessagePort` (between the HTTP host and the script's worker thread), with flow
 * control: the sender keeps at most `WINDOW` chunks unacknowledged, so a slow reader never makes the other
 * side buffer a whole body. Protocol, one port per body:
 *   sender -> receiver: `{ chunk: Uint8Array }` | `{ done: true }` | `{ error: string }`
 *   receiver -> sender: `{ ack: true }` (one per chunk consumed) | `{ cancel: string }`
 */
import type { MessagePort } from 'node:worker_threads';

const WINDOW = 8;
/** Chunks larger than this are split so that one message never holds a huge buffer. */
const MAX_CHUNK = 1 << 20;

type ToReceiver = { chunk: Uint8Array } | { done: true } | { error: string };
type ToSender = { ack: true } | { cancel: string };

/**
 * Pumps `stream` into `port`, honouring acknowledgements; resolves when the stream ended (or the
 * receiver cancelled), rejects if reading the stream failed (the receiver is told).
 * `onProgress` runs on every chunk sent (used to reset idle timers).
 */
export async function sendStream(stream: ReadableStream<Uint8Array>, port: MessagePort, onProgress?: () => void): Promise<void> {
  let inFlight = 0;
  let wake: (() => void) | undefined;
  let cancelled: string | undefined;
  port.on('message', (msg: ToSender) => {
    if ('ack' in msg) inFlight--;
    else cancelled = msg.cancel;
    wake?.();
  });
  port.on('close', () => { cancelled ??= 'receiver closed'; wake?.(); });
  const reader = stream.getReader();
  try {
    for (;;) {
      while (inFlight >= WINDOW && cancelled === undefined) await new Promise<void>((r) => { wake = r; });
      if (cancelled !== undefined) {
        await reader.cancel(cancelled).catch(() => {});
        return;
      }
      const { done, value } = await reader.read();
      if (done) break;
      const bytes = toBytes(value);
      for (let off = 0; off < bytes.byteLength; off += MAX_CHUNK) {
        const piece = bytes.slice(off, Math.min(off + MAX_CHUNK, bytes.byteLength));
        inFlight++;
        port.postMessage({ chunk: piece } satisfies ToReceiver, [piece.buffer as ArrayBuffer]);
      }
      onProgress?.();
    }
    port.postMessage({ done: true } satisfies ToReceiver);
  } catch (err) {
    port.postMessage({ error: err instanceof Error ? err.message : String(err) } satisfies ToReceiver);
    throw err;
  } finally {
    reader.releaseLock();
    setImmediate(() => port.close());
  }
}

/** Hooks of {@link receiveStream}: the reader waits for data, data arrived, the stream ended (any way). */
export interface ReceiveHooks {
  onWait?(): void;
  onData?(): void;
  onEnd?(): void;
}

/** The readable end of a port fed by {@link sendStream}. */
export function receiveStream(port: MessagePort, hooks: ReceiveHooks = {}): ReadableStream<Uint8Array> {
  const queue: ToReceiver[] = [];
  let waiting: (() => void) | undefined;
  let finished = false;
  const finish = () => { finished = true; port.close(); hooks.onEnd?.(); };
  port.on('message', (msg: ToReceiver) => {
    hooks.onData?.();
    queue.push(msg);
    waiting?.();
  });
  port.on('close', () => {
    if (!finished) { queue.push({ error: 'body stream ended abruptly' }); finished = true; hooks.onEnd?.(); waiting?.(); }
  });
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      if (queue.length === 0) hooks.onWait?.();
      while (queue.length === 0) await new Promise<void>((r) => { waiting = r; });
      waiting = undefined;
      const msg = queue.shift()!;
      if ('chunk' in msg) {
        controller.enqueue(msg.chunk);
        // The consumer took one chunk: acknowledge it so that the sender may send another.
        if (!finished) port.postMessage({ ack: true } satisfies ToSender);
      } else if ('done' in msg) {
        controller.close();
        if (!finished) finish();
      } else {
        controller.error(new Error(msg.error));
        if (!finished) finish();
      }
    },
    cancel(reason) {
      if (!finished) { port.postMessage({ cancel: String(reason ?? 'cancelled') } satisfies ToSender); finish(); }
    },
  }, { highWaterMark: 0 });
}

function toBytes(chunk: unknown): Uint8Array {
  if (chunk instanceof Uint8Array) return chunk;
  if (ArrayBuffer.isView(chunk)) return new Uint8Array(chunk.buffer, chunk.byteOffset, chunk.byteLength);
  if (chunk instanceof ArrayBuffer) return new Uint8Array(chunk);
  if (typeof chunk === 'string') return new TextEncoder().encode(chunk);
  throw new TypeError('body chunks must be bytes');
}
