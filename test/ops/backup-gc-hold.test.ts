/**
 * The backup's hold on garbage collection, on real SQLite files and blob files: bodies that a backup's snapshot
 * references survive writes and collections that happen after the snapshot (replacements, deletes, a collector
 * with no delay), the backup restores to the snapshot's objects with every body, and the collector resumes once
 * the hold ends. A hold that lapsed is noticed.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { openBucketStore } from '../../src/store/open.js';
import { openDatabase } from '../../src/db/database.js';
import { FileBlobStore } from '../../src/store/adapters/file-blobs.js';
import type { BucketStore, StoreObjectBody } from '../../src/store/types.js';
import { runBackup } from '../../src/ops/backup/backup.js';
import { runRestore } from '../../src/ops/backup/restore.js';
import { GcHold } from '../../src/ops/backup/gc-hold.js';
import { bytes, tempDir } from '../store/helpers.js';

const open: BucketStore[] = [];
afterEach(async () => { for (const s of open.splice(0)) await s.close(); });

async function store(dataDir: string): Promise<BucketStore> {
  const s = await openBucketStore({ dataDir, sweepOnOpen: false, gcDelayMs: 0, orphanGraceMs: 0, maintenanceIntervalMs: 0 });
  open.push(s);
  return s;
}

async function blobIds(dataDir: string): Promise<string[]> {
  const out: string[] = [];
  for await (const b of new FileBlobStore(path.join(dataDir, 'blobs')).list()) out.push(b.blobId);
  return out.sort();
}

/** A data folder with both databases and five objects with file bodies. */
async function folder(): Promise<{ dir: string; s: BucketStore }> {
  const dir = tempDir('stratus-backup-hold-');
  await (await openDatabase({ dataDir: dir })).close();
  const s = await store(dir);
  for (let i = 0; i < 5; i++) await s.bucket('photos').put(`k${i}`, bytes(100_000, i + 1));
  return { dir, s };
}

describe('a backup holds garbage collection from its snapshot until its blobs are copied', () => {
  it('objects replaced and deleted after the snapshot, and collected at once, still restore whole', async () => {
    const { dir, s } = await folder();
    const before = await blobIds(dir);
    expect(before).toHaveLength(5);
    const to = path.join(tempDir('stratus-backup-to-'), 'b');
    const lines: string[] = [];
    const summary = await runBackup({
      dataDir: dir, blobsDir: path.join(dir, 'blobs'), to, stratusVersion: 'test', say: (l) => lines.push(l),
      afterSnapshot: async () => {
        for (let i = 0; i < 5; i++) {
          if (i % 2 === 0) await s.bucket('photos').delete(`k${i}`);
          else await s.bucket('photos').put(`k${i}`, bytes(100_000, 100 + i));
        }
        await s.sweep();
        // Without the hold the collector (no delay, no grace) would have deleted all five by now.
        const now = await blobIds(dir);
        for (const id of before) expect(now).toContain(id);
      },
    });
    expect(summary.blobs).toBe(5);
    expect(lines.join('\n')).toMatch(/bodies 5 of 5/);
    // The hold is gone: the next pass collects the five old bodies.
    await s.sweep();
    const after = await blobIds(dir);
    for (const id of before) expect(after).not.toContain(id);

    const restored = tempDir('stratus-backup-restored-');
    await runRestore({ from: to, dataDir: restored, blobsDir: path.join(restored, 'blobs'), say: () => undefined });
    const r = await store(restored);
    for (let i = 0; i < 5; i++) {
      const got = (await r.bucket('photos').get(`k${i}`)) as StoreObjectBody;
      expect(got, `k${i}`).not.toBeNull();
      expect(Buffer.from(await got.bytes()).equals(Buffer.from(bytes(100_000, i + 1))), `k${i}`).toBe(true);
    }
    // The backup's own lease row is not in the copy.
    expect(fs.existsSync(path.join(restored, 'buckets.sqlite'))).toBe(true);
  });

  it('a hold that lapsed is noticed, and a live one stops collection until released', async () => {
    const { dir, s } = await folder();
    const lapsing = GcHold.take(path.join(dir, 'buckets.sqlite'), 50);
    // Blocked past its TTL (as a long VACUUM INTO blocks the process): its renewals could not run.
    const end = Date.now() + 150;
    while (Date.now() < end) { /* busy */ }
    expect(() => lapsing.check()).toThrow(/lapsed/);
    lapsing.release();

    const hold = GcHold.take(path.join(dir, 'buckets.sqlite'));
    await s.bucket('photos').delete('k0');
    await s.sweep();
    expect(await blobIds(dir)).toHaveLength(5);
    hold.check();
    hold.release();
    await s.sweep();
    expect(await blobIds(dir)).toHaveLength(4);
  });
});
