/**
 * Schema step 3 on data written before buckets belonged to accounts: a store is filled through the binding
 * (flat bucket names, as every earlier version wrote them), taken back to the previous schema (the step's
 * columns and tables dropped, its marker gone), then Stratus starts on it. Every bucket, object, upload,
 * part and CORS rule is then the admin's, seen over S3 with the instance key; nothing is lost; the move runs
 * once. On SQLite, and on PostgreSQL with two nodes.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import {
  CompleteMultipartUploadCommand, GetBucketCorsCommand, GetObjectCommand, ListBucketsCommand, ListMultipartUploadsCommand,
  ListPartsCommand, type S3Client,
} from '@aws-sdk/client-s3';
import { openBucketStore, type BucketStore } from '../../src/index.js';
import { PostgresMetadataStore } from '../../src/store/adapters/postgres-metadata.js';
import { FileBlobStore } from '../../src/store/adapters/file-blobs.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { freshPostgresUrl } from '../helpers/postgres.js';
import { testS3Client } from '../helpers/s3-sdk.js';

const BIG = 'b'.repeat(200_000); // stored as a blob file, not inline
const PART = 'p'.repeat(5 * 1024 * 1024);

/** Writes what an older version would have: two buckets with objects, an upload with a part, CORS rules. */
async function fillLegacy(store: BucketStore): Promise<string> {
  await store.createBucket('legacy');
  await store.createBucket('empty-one');
  await store.bucket('legacy').put('small.txt', 'small', { customMetadata: { kept: 'yes' } });
  await store.bucket('legacy').put('big.bin', BIG);
  await store.putBucketCors('legacy', [{ allowedOrigins: ['https://a.example'], allowedMethods: ['GET'], allowedHeaders: [], exposeHeaders: [] }]);
  const upload = await store.bucket('legacy').createMultipartUpload('multi.bin');
  await upload.uploadPart(1, PART);
  return upload.uploadId;
}

/** What the admin sees over S3 after the move; completes the upload to prove its part survived. */
async function expectAdopted(s3: S3Client, uploadId: string): Promise<void> {
  expect((await s3.send(new ListBucketsCommand({}))).Buckets!.map((b) => b.Name)).toEqual(['empty-one', 'legacy']);
  const small = await s3.send(new GetObjectCommand({ Bucket: 'legacy', Key: 'small.txt' }));
  expect(await small.Body!.transformToString()).toBe('small');
  expect(small.Metadata).toEqual({ kept: 'yes' });
  expect(await (await s3.send(new GetObjectCommand({ Bucket: 'legacy', Key: 'big.bin' }))).Body!.transformToString()).toBe(BIG);
  expect((await s3.send(new GetBucketCorsCommand({ Bucket: 'legacy' }))).CORSRules![0]!.AllowedOrigins).toEqual(['https://a.example']);
  expect((await s3.send(new ListMultipartUploadsCommand({ Bucket: 'legacy' }))).Uploads!.map((u) => u.UploadId)).toEqual([uploadId]);
  const parts = await s3.send(new ListPartsCommand({ Bucket: 'legacy', Key: 'multi.bin', UploadId: uploadId }));
  expect(parts.Parts!.map((p) => p.Size)).toEqual([PART.length]);
  await s3.send(new CompleteMultipartUploadCommand({
    Bucket: 'legacy', Key: 'multi.bin', UploadId: uploadId, MultipartUpload: { Parts: [{ PartNumber: 1, ETag: parts.Parts![0]!.ETag! }] },
  }));
  expect((await (await s3.send(new GetObjectCommand({ Bucket: 'legacy', Key: 'multi.bin' }))).Body!.transformToByteArray()).length).toBe(PART.length);
}

describe('moving older buckets into the admin account', () => {
  const cleanups: (() => Promise<void>)[] = [];
  afterAll(async () => {
    for (const c of cleanups.reverse()) await c();
  });

  it('SQLite: a store of the previous schema keeps everything, now in the admin account, and moves once', async () => {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'stratus-adopt-'));
    cleanups.push(async () => fs.rmSync(dataDir, { recursive: true, force: true }));
    const store = await openBucketStore({ dataDir });
    const uploadId = await fillLegacy(store);
    await store.close();
    const db = new Database(path.join(dataDir, 'buckets.sqlite'));
    for (const column of ['storage_class', 'location', 'lifecycle']) db.exec(`ALTER TABLE store_buckets DROP COLUMN ${column}`);
    db.exec("DROP TABLE store_leases; DELETE FROM store_meta WHERE name = 'buckets_adopted_by'");
    db.close();

    const flags = { 'blobs-dir': path.join(dataDir, 'blobs') };
    let server: TestServer = await startTestServer({ dataDir, keepDataDir: true, flags });
    const admin = server.running.adminAccountId;
    await expectAdopted(testS3Client(server.running.s3Url!), uploadId);
    await server.stop();
    // The library's flat names are now free; a bucket written there after the move stays where it is.
    const after = await openBucketStore({ dataDir });
    expect((await after.listBuckets()).map((b) => b.name)).toEqual([`${admin}/empty-one`, `${admin}/legacy`]);
    await after.bucket('dev-only').put('k', 'v');
    await after.close();
    server = await startTestServer({ dataDir, keepDataDir: true, flags });
    expect((await testS3Client(server.running.s3Url!).send(new ListBucketsCommand({}))).Buckets!.map((b) => b.Name)).toEqual(['empty-one', 'legacy']);
    await server.stop();
    const reopened = await openBucketStore({ dataDir });
    expect(await ((await reopened.bucket("dev-only").get("k")) as { text(): Promise<string> }).text()).toBe('v');
    await reopened.close();
  });

  it('PostgreSQL: two nodes on a database of the previous schema; the first moves the buckets, once', async () => {
    const { url, drop } = await freshPostgresUrl('adopt');
    const blobsDir = fs.mkdtempSync(path.join(os.tmpdir(), 'stratus-adopt-blobs-'));
    cleanups.push(async () => { await drop(); fs.rmSync(blobsDir, { recursive: true, force: true }); });
    const store = await openBucketStore({ dataDir: blobsDir, adapters: { meta: await PostgresMetadataStore.connect(url), blobs: new FileBlobStore(blobsDir) } });
    const uploadId = await fillLegacy(store);
    await store.close();
    const c = new pg.Client({ connectionString: url });
    await c.connect();
    await c.query('ALTER TABLE store_buckets DROP COLUMN storage_class, DROP COLUMN location, DROP COLUMN lifecycle; DROP TABLE store_leases; DROP TABLE store_meta');
    await c.end();

    const flags = { 'database-url': url, 'blobs-dir': blobsDir };
    // Nodes start one after the other: two first starts at once race creating the admin user (not the buckets).
    const x = await startTestServer({ flags });
    const y = await startTestServer({ flags });
    cleanups.push(async () => { await x.stop(); await y.stop(); });
    expect(x.running.adminAccountId).toBe(y.running.adminAccountId);
    await expectAdopted(testS3Client(y.running.s3Url!), uploadId);
    expect((await testS3Client(x.running.s3Url!).send(new ListBucketsCommand({}))).Buckets!.map((b) => b.Name)).toEqual(['empty-one', 'legacy']);
    const check = new pg.Client({ connectionString: url });
    await check.connect();
    const { rows } = await check.query<{ name: string }>('SELECT name FROM store_buckets ORDER BY name');
    await check.end();
    expect(rows.map((r) => r.name)).toEqual([`${x.running.adminAccountId}/empty-one`, `${x.running.adminAccountId}/legacy`]);
  });
});
