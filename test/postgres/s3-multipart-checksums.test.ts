/**
 * Multipart checksums with bucket metadata in PostgreSQL (schema step 4's columns there): two Stratus nodes share
 * the database and the blob folder; the cases (test/s3/multipart-checksums.cases.ts) write through one node and
 * read through the other, so the parts' and the upload's checksum settings travel through the database.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe } from 'vitest';
import { S3Client } from '@aws-sdk/client-s3';
import { openBucketStore, type BucketStore } from '../../src/index.js';
import { PostgresMetadataStore } from '../../src/store/adapters/postgres-metadata.js';
import { FileBlobStore } from '../../src/store/adapters/file-blobs.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { freshPostgresUrl } from '../helpers/postgres.js';
import { testS3Client } from '../helpers/s3-sdk.js';
import { addUser } from '../helpers/users.js';
import { clientWith, r2WriteKeys } from '../helpers/s3-keys.js';
import { multipartChecksumCases, type MultipartChecksumContext } from '../s3/multipart-checksums.cases.js';

let drop: () => Promise<void>;
let blobsDir: string;
let x: TestServer;
let y: TestServer;
let store: BucketStore;
let ctx: MultipartChecksumContext;

/** A client whose commands alternate between the two nodes (writes on one, reads on the other). */
function alternating(a: S3Client, b: S3Client): S3Client {
  let turn = 0;
  return new Proxy(a, { get: (target, prop) => (prop === 'send' ? (cmd: never) => ((turn++ % 2 === 0 ? a : b).send(cmd)) : Reflect.get(target, prop)) });
}

beforeAll(async () => {
  let url: string;
  ({ url, drop } = await freshPostgresUrl('s3mpsums'));
  blobsDir = fs.mkdtempSync(path.join(os.tmpdir(), 'stratus-mpsums-blobs-'));
  const flags = { 'database-url': url, 'blobs-dir': blobsDir };
  x = await startTestServer({ flags });
  y = await startTestServer({ flags });
  store = await openBucketStore({ dataDir: blobsDir, sweepOnOpen: false, adapters: { meta: await PostgresMetadataStore.connect(url), blobs: new FileBlobStore(blobsDir) } });
  const second = await addUser(x, 'second@example.com', undefined, { databaseUrl: url });
  ctx = {
    s3: alternating(testS3Client(x.running.s3Url!), testS3Client(y.running.s3Url!)),
    plain: testS3Client(y.running.s3Url!, { requestChecksumCalculation: 'WHEN_REQUIRED' }),
    other: clientWith(y.running.s3Url!, await r2WriteKeys(second.sdk(), second.accountId)),
    binding: store.forAccount(x.running.adminAccountId),
  };
});

afterAll(async () => {
  for (const c of [ctx?.s3, ctx?.plain, ctx?.other]) c?.destroy();
  await store?.close();
  await y?.stop();
  await x?.stop();
  await drop?.();
  if (blobsDir) fs.rmSync(blobsDir, { recursive: true, force: true });
});

describe('multipart checksums (PostgreSQL, two nodes)', () => {
  multipartChecksumCases(() => ctx, 'pg-mp-sums');
});
