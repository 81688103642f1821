/**
 * Schema step 4 (multipart checksums) on a store of the previous schema: the step's columns are dropped from a
 * store holding an upload in progress, the store is opened again (SQLite, PostgreSQL), the columns come back,
 * the upload and its part are intact, it completes, and a checksummed upload works.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { openBucketStore, type BucketStore } from '../../src/index.js';
import { PostgresMetadataStore } from '../../src/store/adapters/postgres-metadata.js';
import { FileBlobStore } from '../../src/store/adapters/file-blobs.js';
import { freshPostgresUrl } from '../helpers/postgres.js';

const PART = 'p'.repeat(5 * 1024 * 1024);
const DROP = ['ALTER TABLE store_parts DROP COLUMN checksums', 'ALTER TABLE store_uploads DROP COLUMN checksum_algorithm', 'ALTER TABLE store_uploads DROP COLUMN checksum_type'];

/** Starts an upload with one part through the binding; returns its id. */
async function fill(store: BucketStore): Promise<string> {
  const upload = await store.bucket('old').createMultipartUpload('big.bin');
  await upload.uploadPart(1, PART);
  return upload.uploadId;
}

/** The upload survived the step: listed, completes; a new upload keeps a part's checksum. */
async function expectUpgraded(store: BucketStore, uploadId: string): Promise<void> {
  expect((await store.listUploads('old'))!.map((u) => u.uploadId)).toEqual([uploadId]);
  const handle = store.bucket('old').resumeMultipartUpload('big.bin', uploadId);
  const parts = (await store.listParts('old', 'big.bin', uploadId))!.parts;
  expect(parts.map((p) => [p.size, p.checksums])).toEqual([[PART.length, undefined]]);
  expect((await handle.complete([{ partNumber: 1, etag: parts[0]!.etag }])).size).toBe(PART.length);
  const fresh = await store.bucket('old').createMultipartUpload('new.bin', { checksumAlgorithm: 'sha256', checksumType: 'COMPOSITE' });
  await fresh.uploadPart(1, 'x', { extraChecksums: () => ({ sha256: 'ab'.repeat(32) }) });
  expect(await store.listParts('old', 'new.bin', fresh.uploadId)).toMatchObject({ checksumAlgorithm: 'sha256', checksumType: 'COMPOSITE', parts: [{ checksums: { sha256: 'ab'.repeat(32) } }] });
}

describe('schema step 4 on an older store', () => {
  const cleanups: (() => Promise<void>)[] = [];
  afterAll(async () => {
    for (const c of cleanups.reverse()) await c();
  });

  it('SQLite', async () => {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'stratus-step4-'));
    cleanups.push(async () => fs.rmSync(dataDir, { recursive: true, force: true }));
    const before = await openBucketStore({ dataDir });
    const uploadId = await fill(before);
    await before.close();
    const db = new Database(path.join(dataDir, 'buckets.sqlite'));
    for (const sql of DROP) db.exec(sql);
    db.close();
    const after = await openBucketStore({ dataDir });
    try {
      await expectUpgraded(after, uploadId);
    } finally {
      await after.close();
    }
  });

  it('PostgreSQL', async () => {
    const { url, drop } = await freshPostgresUrl('step4');
    cleanups.push(drop);
    const blobsDir = fs.mkdtempSync(path.join(os.tmpdir(), 'stratus-step4-pg-'));
    cleanups.push(async () => fs.rmSync(blobsDir, { recursive: true, force: true }));
    const open = async () => openBucketStore({ dataDir: blobsDir, sweepOnOpen: false, adapters: { meta: await PostgresMetadataStore.connect(url), blobs: new FileBlobStore(blobsDir) } });
    const before = await open();
    const uploadId = await fill(before);
    await before.close();
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    for (const sql of DROP) await client.query(sql);
    await client.end();
    const after = await open();
    try {
      await expectUpgraded(after, uploadId);
    } finally {
      await after.close();
    }
  });
});
