/**
 * Multipart checksums on SQLite metadata and file blobs: CRC32, CRC32C, CRC64NVME, SHA1 and SHA256 per part,
 * composite and full-object object checksums, as @aws-sdk/client-s3 sends and validates them
 * (test/s3/multipart-checksums.cases.ts).
 */
import { afterAll, beforeAll, describe } from 'vitest';
import { openBucketStore, type BucketStore } from '../../src/index.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { testS3Client } from '../helpers/s3-sdk.js';
import { addUser } from '../helpers/users.js';
import { clientWith, r2WriteKeys } from '../helpers/s3-keys.js';
import { multipartChecksumCases, type MultipartChecksumContext } from './multipart-checksums.cases.js';

let server: TestServer;
let store: BucketStore;
let ctx: MultipartChecksumContext;

beforeAll(async () => {
  server = await startTestServer();
  const url = server.running.s3Url!;
  store = await openBucketStore({ dataDir: server.dataDir });
  const second = await addUser(server, 'second@example.com');
  ctx = {
    s3: testS3Client(url),
    plain: testS3Client(url, { requestChecksumCalculation: 'WHEN_REQUIRED' }),
    other: clientWith(url, await r2WriteKeys(second.sdk(), second.accountId)),
    binding: store.forAccount(server.running.adminAccountId),
  };
});

afterAll(async () => {
  for (const c of [ctx?.s3, ctx?.plain, ctx?.other]) c?.destroy();
  await store?.close();
  await server?.stop();
});

describe('multipart checksums (SQLite)', () => {
  multipartChecksumCases(() => ctx, 'mp-sums');
});
