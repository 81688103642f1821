/**
 * Scale-out without a shared file system: two Stratus nodes share a PostgreSQL database for metadata and keep
 * object bodies in an S3-compatible store (here a third Stratus's own S3 API), each node with a data folder of
 * its own. What one node stores over S3, the other serves.
 */
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { CreateBucketCommand, GetObjectCommand, ListObjectsV2Command, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { startTestServer, TEST_S3_ACCESS_KEY_ID, TEST_S3_SECRET, type TestServer } from '../helpers/server.js';
import { freshPostgresUrl } from '../helpers/postgres.js';

let drop: () => Promise<void>;
let provider: TestServer;
let x: TestServer;
let y: TestServer;
const clients: S3Client[] = [];

function s3(node: TestServer): S3Client {
  const c = new S3Client({
    endpoint: node.running.s3Url!, region: 'auto', forcePathStyle: true, maxAttempts: 1,
    credentials: { accessKeyId: TEST_S3_ACCESS_KEY_ID, secretAccessKey: TEST_S3_SECRET },
  });
  clients.push(c);
  return c;
}

beforeAll(async () => {
  let url: string;
  ({ url, drop } = await freshPostgresUrl('s3blobs'));
  provider = await startTestServer();
  await s3(provider).send(new CreateBucketCommand({ Bucket: 'stratus-blobs' }));
  const flags = {
    'database-url': url,
    'blobs-s3-bucket': 'stratus-blobs',
    'blobs-s3-endpoint': provider.running.s3Url!,
    'blobs-s3-access-key-id': TEST_S3_ACCESS_KEY_ID,
    'blobs-s3-secret-access-key': TEST_S3_SECRET,
  };
  x = await startTestServer({ flags });
  y = await startTestServer({ flags });
});

afterAll(async () => {
  for (const c of clients) c.destroy();
  await y?.stop();
  await x?.stop();
  await provider?.stop();
  await drop?.();
});

it('keeps bodies in the S3 store and metadata in PostgreSQL: either node serves what the other stored', async () => {
  const body = randomBytes(2 * 1024 * 1024 + 17);
  await s3(x).send(new CreateBucketCommand({ Bucket: 'photos' }));
  await s3(x).send(new PutObjectCommand({ Bucket: 'photos', Key: 'big.bin', Body: body }));
  const got = await s3(y).send(new GetObjectCommand({ Bucket: 'photos', Key: 'big.bin' }));
  expect(Buffer.from(await got.Body!.transformToByteArray()).equals(body)).toBe(true);
  const ranged = await s3(y).send(new GetObjectCommand({ Bucket: 'photos', Key: 'big.bin', Range: 'bytes=1048570-1048589' }));
  expect(Buffer.from(await ranged.Body!.transformToByteArray()).equals(body.subarray(1048570, 1048590))).toBe(true);
  const stored = await s3(provider).send(new ListObjectsV2Command({ Bucket: 'stratus-blobs', Prefix: 'blobs/' }));
  expect(stored.Contents?.map((o) => o.Size)).toEqual([body.length]);
});
