/**
 * The bucket registry and the upload listing of an open store (what an S3 API's ListBuckets, CreateBucket,
 * DeleteBucket, HeadBucket and ListMultipartUploads use), and the registry of folders written before it existed.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import SQLite from 'better-sqlite3';
import type { BucketStore } from '../../src/store/types.js';
import { UPLOAD_MAX_AGE_MS } from '../../src/store/gc.js';
import { bundleChild } from './child-bundle.js';
import { openTemp } from './helpers.js';

const T0 = Date.UTC(2026, 0, 1);

/** A store on a new folder whose clock the test sets. */
async function withClock(fn: (store: BucketStore, setNow: (ms: number) => void, dir: string) => Promise<void>): Promise<void> {
  let now = T0;
  const { store, dir } = await openTemp({ clock: { now: () => new Date(now) } });
  try {
    await fn(store, (ms) => (now = ms), dir);
  } finally {
    await store.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

describe('bucket registry', () => {
  it('creates, reports existing buckets, gives their creation date and lists them by name bytes', () =>
    withClock(async (store, setNow) => {
      expect(await store.listBuckets()).toEqual([]);
      expect(await store.bucketInfo('photos')).toBeNull();
      expect(await store.createBucket('photos')).toBe('created');
      setNow(T0 + 5000);
      expect(await store.createBucket('photos')).toBe('exists');
      expect(await store.createBucket('Logs')).toBe('created');
      expect(await store.createBucket('any name at all: not validated here')).toBe('created');
      expect(await store.bucketInfo('photos')).toEqual({ name: 'photos', created: new Date(T0) });
      expect(await store.listBuckets()).toEqual([
        { name: 'Logs', created: new Date(T0 + 5000) },
        { name: 'any name at all: not validated here', created: new Date(T0 + 5000) },
        { name: 'photos', created: new Date(T0) },
      ]);
    }));

  it('a put or a multipart upload through the binding registers its bucket, dated by that write', () =>
    withClock(async (store, setNow) => {
      setNow(T0 + 1000);
      await store.bucket('by-put').put('k', 'v');
      setNow(T0 + 2000);
      await store.bucket('by-put').put('k2', 'v');
      await store.bucket('by-upload').createMultipartUpload('k');
      expect(await store.bucket('by-conditional').put('k', 'v', { onlyIf: { etagMatches: 'nope' } })).toBeNull();
      expect(await store.listBuckets()).toEqual([
        { name: 'by-put', created: new Date(T0 + 1000) },
        { name: 'by-upload', created: new Date(T0 + 2000) },
      ]);
    }));

  it('deletes only an empty bucket: objects and active uploads keep it, aborted and expired uploads do not', () =>
    withClock(async (store, setNow) => {
      expect(await store.deleteBucket('nope')).toBe('missing');
      const b = store.bucket('b');
      await b.put('k', 'v');
      expect(await store.deleteBucket('b')).toBe('not-empty');
      await b.delete('k');
      const up = await b.createMultipartUpload('m');
      await up.uploadPart(1, 'part');
      expect(await store.deleteBucket('b')).toBe('not-empty');
      await up.abort();
      expect(await store.deleteBucket('b')).toBe('deleted');
      expect(await store.bucketInfo('b')).toBeNull();
      expect(await store.deleteBucket('b')).toBe('missing');

      await store.bucket('old').createMultipartUpload('stale');
      setNow(T0 + UPLOAD_MAX_AGE_MS + 1);
      expect(await store.deleteBucket('old')).toBe('deleted');
    }));

  it('a completed upload keeps the bucket through its object only', () =>
    withClock(async (store) => {
      const b = store.bucket('b');
      const up = await b.createMultipartUpload('m');
      await up.complete([await up.uploadPart(1, 'only part')]);
      expect(await store.deleteBucket('b')).toBe('not-empty');
      await b.delete('m');
      expect(await store.deleteBucket('b')).toBe('deleted');
      expect(await store.listBuckets()).toEqual([]);
    }));

  it('the methods refuse once the store is closed', async () => {
    const { store, dir } = await openTemp();
    await store.close();
    await expect(store.listBuckets()).rejects.toThrow('The bucket store is closed');
    await expect(store.createBucket('b')).rejects.toThrow('The bucket store is closed');
    await expect(store.listUploads('b')).rejects.toThrow('The bucket store is closed');
    fs.rmSync(dir, { recursive: true, force: true });
  });
});

describe('upload listing', () => {
  it('lists active uploads by key, then initiation, with their storage class', () =>
    withClock(async (store, setNow) => {
      const b = store.bucket('b', { defaultStorageClass: 'InfrequentAccess' });
      setNow(T0 + 300);
      const late = await b.createMultipartUpload('same');
      setNow(T0 + 100);
      const early = await b.createMultipartUpload('same', { storageClass: 'Standard' });
      const other = await b.createMultipartUpload('another');
      const done = await b.createMultipartUpload('done');
      await done.abort();
      await store.bucket('elsewhere').createMultipartUpload('same');
      expect(await store.listUploads('b')).toEqual([
        { key: 'another', uploadId: other.uploadId, initiated: new Date(T0 + 100), storageClass: 'InfrequentAccess' },
        { key: 'same', uploadId: early.uploadId, initiated: new Date(T0 + 100), storageClass: 'Standard' },
        { key: 'same', uploadId: late.uploadId, initiated: new Date(T0 + 300), storageClass: 'InfrequentAccess' },
      ]);
      expect(await store.listUploads('missing')).toEqual([]);
      await late.complete([]);
      expect((await store.listUploads('b')).map((u) => u.uploadId)).toEqual([other.uploadId, early.uploadId]);
    }));

  it('pages with prefix, markers and limit like ListMultipartUploads', () =>
    withClock(async (store, setNow) => {
      const b = store.bucket('b');
      const made: { key: string; uploadId: string }[] = [];
      for (const [i, key] of ['x/1', 'x/1', 'x/2', 'y', 'x/1', 'x/3'].entries()) {
        setNow(T0 + i);
        made.push(await b.createMultipartUpload(key));
      }
      const order = [made[0], made[1], made[4], made[2], made[5]].map((u) => u!.uploadId);
      const pages: string[][] = [];
      let markers: { keyMarker?: string; uploadIdMarker?: string } = { keyMarker: '' };
      for (;;) {
        // Ask one more than the page size to learn whether the listing is truncated.
        const rows = await store.listUploads('b', { prefix: 'x/', limit: 3, ...markers });
        const page = rows.slice(0, 2);
        pages.push(page.map((u) => u.uploadId));
        if (rows.length <= 2) break;
        markers = { keyMarker: page[1]!.key, uploadIdMarker: page[1]!.uploadId };
      }
      expect(pages).toEqual([order.slice(0, 2), order.slice(2, 4), order.slice(4)]);
      expect((await store.listUploads('b', { keyMarker: 'x/1' })).map((u) => u.key)).toEqual(['x/2', 'x/3', 'y']);
      expect(await store.listUploads('b', { limit: 0 })).toEqual([]);
      expect(await store.listUploads('b', { limit: -5 })).toEqual([]);
      expect((await store.listUploads('b', { limit: 2.9 })).length).toBe(2);
      expect((await store.listUploads('b')).length).toBe(6);
    }));

  it('leaves out uploads past the 7-day limit (and aborts them)', () =>
    withClock(async (store, setNow) => {
      const b = store.bucket('b');
      const stale = await b.createMultipartUpload('stale');
      setNow(T0 + 10);
      const fresh = await b.createMultipartUpload('fresh');
      setNow(T0 + UPLOAD_MAX_AGE_MS + 5);
      expect((await store.listUploads('b')).map((u) => u.uploadId)).toEqual([fresh.uploadId]);
      await expect(stale.uploadPart(1, 'x')).rejects.toThrow('(10024)');
    }));
});

describe('folders written before the registry existed', () => {
  let bundle: string;
  beforeAll(async () => {
    bundle = await bundleChild('registry/child.ts');
  });
  afterAll(() => fs.rmSync(bundle, { force: true }));

  /** Writes objects and uploads, then removes the registry and its marker as a folder of the older schema has neither. */
  async function oldFolder(): Promise<string> {
    let now = T0 + 500;
    const { store, dir } = await openTemp({ clock: { now: () => new Date(now) } });
    await store.bucket('photos').put('b', 'v');
    now = T0 + 100;
    await store.bucket('photos').put('a', 'v');
    await store.bucket('logs').put('k', 'v');
    await store.bucket('uploads-only').createMultipartUpload('k');
    const aborted = await store.bucket('aborted-only').createMultipartUpload('k');
    await aborted.abort();
    await store.createBucket('registered-but-gone');
    await store.close();
    const db = new SQLite(path.join(dir, 'buckets.sqlite'));
    db.exec('DROP TABLE store_buckets; DROP TABLE store_meta; DROP INDEX store_uploads_listing;');
    db.close();
    return dir;
  }

  it('lists the buckets of existing objects and active uploads after reopening, dated by their oldest write', async () => {
    const dir = await oldFolder();
    try {
      const { store } = await openTemp({ dataDir: dir });
      try {
        expect(await store.listBuckets()).toEqual([
          { name: 'logs', created: new Date(T0 + 100) },
          { name: 'photos', created: new Date(T0 + 100) },
          { name: 'uploads-only', created: new Date(T0 + 100) },
        ]);
        expect(await store.deleteBucket('logs')).toBe('not-empty');
        await store.bucket('logs').delete('k');
        expect(await store.deleteBucket('logs')).toBe('deleted');
      } finally {
        await store.close();
      }
      // The fill runs once: a bucket unregistered behind the store's back is not registered again.
      const db = new SQLite(path.join(dir, 'buckets.sqlite'));
      db.prepare('DELETE FROM store_buckets WHERE name = ?').run('photos');
      db.close();
      const { store: again } = await openTemp({ dataDir: dir });
      try {
        expect((await again.listBuckets()).map((b) => b.name)).toEqual(['uploads-only']);
      } finally {
        await again.close();
      }
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('several processes opening an old folder at once all see its buckets, filled once', async () => {
    const dir = await oldFolder();
    try {
      const run = promisify(execFile);
      const startAt = Date.now() + 1000;
      const outs = await Promise.all([1, 2, 3].map(() => run(process.execPath, [bundle, dir, String(startAt)])));
      const expected = [
        { name: 'logs', created: T0 + 100 },
        { name: 'photos', created: T0 + 100 },
        { name: 'uploads-only', created: T0 + 100 },
      ];
      for (const o of outs) expect(JSON.parse(o.stdout)).toEqual(expected);
      const db = new SQLite(path.join(dir, 'buckets.sqlite'), { readonly: true });
      expect(db.prepare('SELECT COUNT(*) AS n FROM store_meta').get()).toEqual({ n: 1 });
      db.close();
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  }, 60_000);
});
