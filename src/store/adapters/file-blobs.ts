/**
 * BlobStore on the local file system: `<dataDir>/blobs/<2 hex>/<id>` where the id is 32 random bytes plus the
 * creation time (80 hex characters, unguessable). A write goes to `blobs/tmp/<id>.tmp`, is fsynced, then
 * renamed into place, so a blob id never names a partial file. Blobs are never modified after that.
 */
import fs from 'node:fs';
import fsp from 'node:fs/promises';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import type { BlobHandle, BlobStore } from '../ports.js';
import { StoreInvariantError } from '../errors.js';

const ID_RE = /^[0-9a-f]{80}$/;
const READ_CHUNK = 1024 * 1024;
const WRITE_AHEAD = 4;
const SYNC_EVERY = 64 * 1024 * 1024;

async function writeAll(fh: fsp.FileHandle, chunk: Uint8Array, at: number): Promise<void> {
  let done = 0;
  while (done < chunk.byteLength) {
    const { bytesWritten } = await fh.write(chunk, done, chunk.byteLength - done, at + done);
    done += bytesWritten;
  }
}

/** A new blob id: 32 random bytes and an 8-byte big-endian ms timestamp, in hex. */
export function newBlobId(now = Date.now()): string {
  const time = Buffer.alloc(8);
  time.writeBigUInt64BE(BigInt(now));
  return randomBytes(32).toString('hex') + time.toString('hex');
}

/** Files under a folder. */
export class FileBlobStore implements BlobStore {
  private readonly root: string;
  private readonly tmp: string;

  constructor(root: string) {
    this.root = root;
    this.tmp = path.join(root, 'tmp');
    fs.mkdirSync(this.tmp, { recursive: true });
  }

  private file(id: string): string {
    if (!ID_RE.test(id)) throw new StoreInvariantError(`invalid blob id ${id}`);
    return path.join(this.root, id.slice(0, 2), id);
  }

  async write(source: AsyncIterable<Uint8Array>): Promise<string> {
    const id = newBlobId();
    const tmpFile = path.join(this.tmp, `${id}.tmp`);
    const fh = await fsp.open(tmpFile, 'wx');
    const inflight: Promise<void>[] = [];
    let synced = 0;
    let syncing: Promise<unknown> | undefined;
    try {
      // Writes are queued one after another (two writes to one file at once only contend for its inode lock,
      // which the kernel spins on), while the caller reads and digests the next chunks; at most WRITE_AHEAD
      // chunks wait (bounded memory).
      let pos = 0;
      for await (const chunk of source) {
        const at = pos;
        const previous = inflight.at(-1);
        const w = previous ? previous.then(() => writeAll(fh, chunk, at)) : writeAll(fh, chunk, at);
        w.catch(() => undefined); // observed below; avoids an unhandled rejection while it waits in line
        inflight.push(w);
        pos += chunk.byteLength;
        if (inflight.length >= WRITE_AHEAD) await inflight.shift();
        // Flush in the background every SYNC_EVERY bytes, so the final fsync has little left to do.
        if (pos - synced >= SYNC_EVERY && !syncing) {
          synced = pos;
          syncing = Promise.all(inflight)
            .then(() => fh.datasync())
            .catch(() => undefined)
            .finally(() => (syncing = undefined));
        }
      }
      await Promise.all(inflight);
      await syncing;
      await fh.sync();
    } catch (err) {
      await Promise.allSettled(inflight);
      await syncing;
      await fh.close().catch(() => undefined);
      await fsp.rm(tmpFile, { force: true });
      throw err;
    }
    await fh.close();
    const dest = this.file(id);
    await fsp.mkdir(path.dirname(dest), { recursive: true });
    await fsp.rename(tmpFile, dest);
    return id;
  }

  async open(blobId: string): Promise<BlobHandle> {
    const fh = await fsp.open(this.file(blobId), 'r');
    const { size } = await fh.stat();
    let closed = false;
    return {
      size,
      async *read(offset: number, length: number): AsyncIterable<Uint8Array> {
        // One chunk is read ahead while the consumer handles the current one (a get piped to a socket or a
        // file overlaps its reads with the consumer's writes); nothing is read before the first chunk is asked for.
        const end = offset + length;
        const readAt = async (pos: number): Promise<Uint8Array> => {
          const n = Math.min(READ_CHUNK, end - pos);
          const buf = Buffer.allocUnsafe(n);
          const { bytesRead } = await fh.read(buf, 0, n, pos);
          if (bytesRead === 0) throw new StoreInvariantError(`blob ${blobId} is shorter than expected`);
          return bytesRead === n ? buf : buf.subarray(0, bytesRead);
        };
        let pos = offset;
        let next = pos < end ? readAt(pos) : undefined;
        try {
          while (next) {
            const chunk = await next;
            pos += chunk.byteLength;
            next = pos < end ? readAt(pos) : undefined;
            next?.catch(() => undefined); // observed on the next turn, or dropped if the consumer stops here
            yield chunk;
          }
        } finally {
          // A consumer that stops early must not leave a read running on a handle about to be closed.
          await next?.catch(() => undefined);
        }
      },
      async close() {
        if (closed) return;
        closed = true;
        await fh.close();
      },
    };
  }

  async delete(blobId: string): Promise<void> {
    await fsp.rm(this.file(blobId), { force: true });
  }

  async *list(): AsyncIterable<{ blobId: string; created: number }> {
    const dirs = await fsp.readdir(this.root).catch(() => [] as string[]);
    for (const dir of dirs) {
      if (!/^[0-9a-f]{2}$/.test(dir)) continue;
      const names = await fsp.readdir(path.join(this.root, dir)).catch(() => [] as string[]);
      for (const name of names) {
        if (!ID_RE.test(name)) continue;
        const st = await fsp.stat(path.join(this.root, dir, name)).catch(() => null);
        if (st) yield { blobId: name, created: st.mtimeMs };
      }
    }
  }

  async sweepIncomplete(before: number): Promise<number> {
    let removed = 0;
    for (const name of await fsp.readdir(this.tmp).catch(() => [] as string[])) {
      const file = path.join(this.tmp, name);
      const st = await fsp.stat(file).catch(() => null);
      if (st && st.mtimeMs < before) {
        await fsp.rm(file, { force: true });
        removed++;
      }
    }
    return removed;
  }
}
