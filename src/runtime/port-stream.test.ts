import { MessageChannel } from 'node:worker_threads';
import { describe, expect, it } from 'vitest';
import { receiveStream, sendStream } from './port-stream.js';

function source(chunks: number, size: number, onPull?: (n: number) => void): ReadableStream<Uint8Array> {
  let n = 0;
  return new ReadableStream<Uint8Array>({
    pull(c) {
      if (n === chunks) { c.close(); return; }
      n++;
      onPull?.(n);
      c.enqueue(new Uint8Array(size).fill(n % 256));
    },
  }, { highWaterMark: 0 });
}

describe('port streams', () => {
  it('carries every byte in order and ends', async () => {
    const ch = new MessageChannel();
    const sent = sendStream(source(50, 3000), ch.port1);
    const got: number[] = [];
    let total = 0;
    for await (const c of receiveStream(ch.port2)) { got.push(c[0]!); total += c.byteLength; }
    await sent;
    expect(total).toBe(150_000);
    expect(got).toEqual(Array.from({ length: 50 }, (_, i) => (i + 1) % 256));
  });

  it('splits chunks larger than 1 MiB', async () => {
    const ch = new MessageChannel();
    void sendStream(source(1, 3 * 1024 * 1024 + 5), ch.port1);
    const sizes: number[] = [];
    for await (const c of receiveStream(ch.port2)) sizes.push(c.byteLength);
    expect(sizes).toEqual([1 << 20, 1 << 20, 1 << 20, 5]);
  });

  it('stops reading the source while the receiver does not consume (flow control)', async () => {
    const ch = new MessageChannel();
    let pulled = 0;
    void sendStream(source(1000, 1024, (n) => { pulled = n; }), ch.port1);
    const reader = receiveStream(ch.port2).getReader();
    await reader.read();
    await new Promise((r) => setTimeout(r, 100));
    expect(pulled).toBeLessThanOrEqual(12); // the window (8) plus what the source buffers
    await reader.cancel('enough');
  });

  it('cancelling the receiver cancels the source', async () => {
    const ch = new MessageChannel();
    let cancelled: unknown;
    const src = new ReadableStream<Uint8Array>({
      pull(c) { c.enqueue(new Uint8Array(10)); },
      cancel(reason) { cancelled = reason; },
    }, { highWaterMark: 0 });
    const sent = sendStream(src, ch.port1);
    const reader = receiveStream(ch.port2).getReader();
    await reader.read();
    await reader.cancel('client went away');
    await sent;
    expect(String(cancelled)).toContain('client went away');
  });

  it('passes a source error on to the receiver', async () => {
    const ch = new MessageChannel();
    const src = new ReadableStream<Uint8Array>({ start(c) { c.enqueue(new Uint8Array(1)); c.error(new Error('disk on fire')); } });
    await expect(sendStream(src, ch.port1)).rejects.toThrow('disk on fire');
    const reader = receiveStream(ch.port2).getReader();
    await expect((async () => { for (;;) { const { done } = await reader.read(); if (done) return; } })()).rejects.toThrow('disk on fire');
  });
});
