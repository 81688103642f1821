/** Contract suite every BlobStore adapter must pass. */
import { describe, expect, it } from 'vitest';
import type { BlobStore } from '../../../src/store/ports.js';

/** Builds a fresh, empty blob store. */
export interface BlobFactory {
  open(): Promise<{ store: BlobStore; cleanup?: () => Promise<void> }>;
  /**
   * Whether an open handle keeps reading after its blob is deleted (default true, as the port promises).
   * An adapter that cannot pin a blob (S3) declares false and must instead fail such a read with an error,
   * never short or wrong bytes; the store then relies on the collector's `gcDelayMs` (see ports.ts).
   */
  readsSurviveDelete?: boolean;
}

async function* chunks(...parts: string[]): AsyncIterable<Uint8Array> {
  for (const p of parts) yield new TextEncoder().encode(p);
}

async function collect(it: AsyncIterable<Uint8Array>): Promise<string> {
  let s = '';
  for await (const c of it) s += new TextDecoder().decode(c);
  return s;
}

/** Registers the suite. */
export function blobStoreContract(name: string, factory: BlobFactory): void {
  describe(`BlobStore contract: ${name}`, () => {
    const withStore = (fn: (s: BlobStore) => Promise<void>) => async () => {
      const { store, cleanup } = await factory.open();
      try {
        await fn(store);
      } finally {
        await cleanup?.();
      }
    };

    it('writes, reads ranges, lists and deletes', withStore(async (s) => {
      const id = await s.write(chunks('hello ', 'world'));
      const other = await s.write(chunks());
      expect(id).not.toBe(other);
      expect(id.length).toBeGreaterThanOrEqual(32);
      const h = await s.open(id);
      expect(h.size).toBe(11);
      expect(await collect(h.read(0, 11))).toBe('hello world');
      expect(await collect(h.read(6, 3))).toBe('wor');
      await h.close();
      const listed: string[] = [];
      for await (const b of s.list()) listed.push(b.blobId);
      expect(listed.sort()).toEqual([id, other].sort());
      await s.delete(id);
      await s.delete(id);
      await expect(s.open(id)).rejects.toThrow();
    }));

    if (factory.readsSurviveDelete ?? true) {
      it('an open handle keeps reading after the blob is deleted', withStore(async (s) => {
        const id = await s.write(chunks('x'.repeat(100_000)));
        const h = await s.open(id);
        await s.delete(id);
        expect((await collect(h.read(0, 100_000))).length).toBe(100_000);
        await h.close();
      }));
    } else {
      it('a read of a deleted blob through an open handle fails (the adapter declares readsSurviveDelete: false)', withStore(async (s) => {
        const id = await s.write(chunks('x'.repeat(100_000)));
        const h = await s.open(id);
        await s.delete(id);
        await expect(collect(h.read(0, 100_000))).rejects.toThrow();
        await h.close();
      }));
    }

    it('reads a multi-chunk range byte for byte, and a reader that stops early can close at once', withStore(async (s) => {
      const size = 3 * 1024 * 1024 + 12_345;
      const bytes = new Uint8Array(size);
      for (let i = 0; i < size; i++) bytes[i] = (i * 7 + (i >> 12)) & 0xff;
      const id = await s.write((async function* () {
        for (let at = 0; at < size; at += 700_000) yield bytes.subarray(at, at + 700_000);
      })());
      const h = await s.open(id);
      const from = 1_000_003;
      const length = 2 * 1024 * 1024 + 5;
      const pieces: Uint8Array[] = [];
      for await (const c of h.read(from, length)) pieces.push(c);
      expect(Buffer.concat(pieces).equals(Buffer.from(bytes.subarray(from, from + length)))).toBe(true);
      // Stop after the first chunk: whatever the adapter read ahead must not outlive the handle or fail later.
      for await (const c of h.read(0, size)) {
        expect(c.byteLength).toBeGreaterThan(0);
        break;
      }
      await h.close();
      expect(await collect(h.read(0, 0))).toBe('');
    }));

    it('a failed write leaves nothing behind', withStore(async (s) => {
      async function* failing(): AsyncIterable<Uint8Array> {
        yield new Uint8Array(10);
        throw new Error('source broke');
      }
      await expect(s.write(failing())).rejects.toThrow('source broke');
      const listed: string[] = [];
      for await (const b of s.list()) listed.push(b.blobId);
      expect(listed).toEqual([]);
      expect(await s.sweepIncomplete(Date.now() + 1000)).toBe(0);
    }));
  });
}
