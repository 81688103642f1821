/** Background deletion and the sweep: replaced blobs go after the delay, orphans only after the grace period. */
import { describe, expect, it } from 'vitest';
import fs from 'node:fs';
import path from 'node:path';
import { openBucketStore } from '../../src/store/open.js';
import { FileBlobStore } from '../../src/store/adapters/file-blobs.js';
import type { StoreObjectBody } from '../../src/store/types.js';
import { bytes, tempDir } from './helpers.js';

async function blobIds(dir: string): Promise<string[]> {
  const out: string[] = [];
  for await (const b of new FileBlobStore(path.join(dir, 'blobs')).list()) out.push(b.blobId);
  return out;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Polls the blob ids until `done` holds or 10 s pass (background deletion runs after a delay, later under load). */
async function blobIdsWhen(dir: string, done: (ids: string[]) => boolean): Promise<string[]> {
  const end = Date.now() + 10_000;
  for (;;) {
    const ids = await blobIds(dir);
    if (done(ids) || Date.now() > end) return ids;
    await sleep(50);
  }
}

describe('garbage and orphans', () => {
  it('deletes a replaced blob after the delay, while an open reader still reads it fully', async () => {
    const dir = tempDir();
    const s = await openBucketStore({ dataDir: dir, sweepOnOpen: false, gcDelayMs: 50 });
    try {
      const b = s.bucket('gc');
      const first = bytes(300_000, 1);
      await b.put('k', first);
      const [oldId] = await blobIds(dir);
      const reader = (await b.get('k')) as StoreObjectBody;
      await b.put('k', bytes(300_000, 2));
      expect(await blobIdsWhen(dir, (ids) => !ids.includes(oldId!))).not.toContain(oldId);
      expect(Buffer.from(await reader.bytes()).equals(Buffer.from(first))).toBe(true);
      await b.delete('k');
      expect(await blobIdsWhen(dir, (ids) => ids.length === 0)).toEqual([]);
    } finally {
      await s.close();
    }
  });

  it('garbage left by a closed store is collected at the next open', async () => {
    const dir = tempDir();
    const s = await openBucketStore({ dataDir: dir, sweepOnOpen: false, gcDelayMs: 60_000 });
    await s.bucket('gc').put('k', bytes(100_000));
    await s.bucket('gc').delete('k');
    await s.close();
    expect((await blobIds(dir)).length).toBe(1);
    const again = await openBucketStore({ dataDir: dir, sweepOnOpen: false, gcDelayMs: 0 });
    const report = await again.sweep();
    await again.close();
    expect(report.garbageBlobs).toBe(1);
    expect(await blobIds(dir)).toEqual([]);
  });

  it('sweeps unreferenced blobs and temp files only when older than the grace period', async () => {
    const dir = tempDir();
    const blobs = new FileBlobStore(path.join(dir, 'blobs'));
    const orphan = await blobs.write((async function* () { yield new Uint8Array(10); })());
    fs.writeFileSync(path.join(dir, 'blobs', 'tmp', 'x.tmp'), 'partial');
    const s = await openBucketStore({ dataDir: dir, sweepOnOpen: false, orphanGraceMs: 60_000 });
    await s.bucket('gc').put('kept', bytes(100_000));
    expect(await s.sweep()).toEqual({ orphanBlobs: 0, garbageBlobs: 0, expiredUploads: 0 });
    await s.close();
    const old = new Date(Date.now() - 120_000);
    fs.utimesSync(path.join(dir, 'blobs', orphan.slice(0, 2), orphan), old, old);
    fs.utimesSync(path.join(dir, 'blobs', 'tmp', 'x.tmp'), old, old);
    const s2 = await openBucketStore({ dataDir: dir, orphanGraceMs: 60_000 });
    await s2.close(); // waits for the sweep started at open
    const left = await blobIds(dir);
    expect(left).not.toContain(orphan);
    expect(left.length).toBe(1);
    expect(fs.readdirSync(path.join(dir, 'blobs', 'tmp'))).toEqual([]);
    const s3 = await openBucketStore({ dataDir: dir, sweepOnOpen: false });
    expect(await ((await s3.bucket('gc').get('kept')) as StoreObjectBody).bytes()).toHaveLength(100_000);
    await s3.close();
  });
});
