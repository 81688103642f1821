/**
 * Flexible checksums are stored, not only verified: PutObject's CRC32, CRC32C, CRC64NVME, SHA1 or SHA256 (header
 * or aws-chunked trailer, as @aws-sdk/client-s3 sends them) is returned by GetObject and HeadObject with
 * ChecksumMode=ENABLED (the SDK then validates the body against it), carried by CopyObject, and SHA-1/SHA-256
 * show in the binding's `checksums`.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHash } from 'node:crypto';
import { type ChecksumAlgorithm, CopyObjectCommand, CreateBucketCommand, GetObjectCommand, HeadObjectCommand, PutObjectCommand, type S3Client } from '@aws-sdk/client-s3';
import { signedHeaders } from '../helpers/s3-sign.js';
import { testS3Client } from '../helpers/s3-sdk.js';
import { openBucketStore, type BucketNamespace, type BucketStore } from '../../src/index.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

let server: TestServer;
let s3: S3Client;
let store: BucketStore;
/** The admin's buckets (the account the test's S3 key acts for), as the binding sees them. */
let binding: BucketNamespace;
let base: URL;
const BUCKET = 'sums';

beforeAll(async () => {
  server = await startTestServer();
  base = new URL(server.running.s3Url!);
  s3 = testS3Client(server.running.s3Url!);
  store = await openBucketStore({ dataDir: server.dataDir });
  binding = store.forAccount(server.running.adminAccountId);
  await s3.send(new CreateBucketCommand({ Bucket: BUCKET }));
});

afterAll(async () => {
  s3?.destroy();
  await store?.close();
  await server?.stop();
});

const FIELD = { CRC32: 'ChecksumCRC32', CRC32C: 'ChecksumCRC32C', CRC64NVME: 'ChecksumCRC64NVME', SHA1: 'ChecksumSHA1', SHA256: 'ChecksumSHA256' } as const;

describe('stored checksums', () => {
  it.each(Object.keys(FIELD) as Array<keyof typeof FIELD>)('%s is stored and returned with ChecksumMode=ENABLED', async (algorithm) => {
    const key = `sum/${algorithm}`;
    const body = `checksummed body ${algorithm}`;
    const put = await s3.send(new PutObjectCommand({ Bucket: BUCKET, Key: key, Body: body, ChecksumAlgorithm: algorithm as ChecksumAlgorithm }));
    const sent = put[FIELD[algorithm]];
    expect(sent).toBeDefined();
    const got = await s3.send(new GetObjectCommand({ Bucket: BUCKET, Key: key, ChecksumMode: 'ENABLED' }));
    expect(got[FIELD[algorithm]]).toBe(sent);
    expect(got.ChecksumType).toBe('FULL_OBJECT');
    expect(await got.Body!.transformToString()).toBe(body);
    const head = await s3.send(new HeadObjectCommand({ Bucket: BUCKET, Key: key, ChecksumMode: 'ENABLED' }));
    expect(head[FIELD[algorithm]]).toBe(sent);
    const copied = `${key}-copy`;
    await s3.send(new CopyObjectCommand({ Bucket: BUCKET, Key: copied, CopySource: `${BUCKET}/${key}` }));
    expect((await s3.send(new HeadObjectCommand({ Bucket: BUCKET, Key: copied, ChecksumMode: 'ENABLED' })))[FIELD[algorithm]]).toBe(sent);
    const seen = (await binding.bucket(BUCKET).head(key))!.checksums.toJSON();
    if (algorithm === 'SHA256') expect(seen.sha256).toBe(createHash('sha256').update(body).digest('hex'));
    if (algorithm === 'SHA1') expect(seen.sha1).toBe(createHash('sha1').update(body).digest('hex'));
  });

  it('without ChecksumMode, and for ranges, no checksum is returned; a header checksum is stored too', async () => {
    const body = 'header checksum';
    const sha = createHash('sha256').update(body).digest('base64');
    const target = `/${BUCKET}/sum/header`;
    const headers = await signedHeaders('PUT', base, target, { 'x-amz-content-sha256': 'UNSIGNED-PAYLOAD', 'x-amz-checksum-sha256': sha });
    expect((await fetch(`${base.origin}${target}`, { method: 'PUT', headers, body })).status).toBe(200);
    const plain = await fetch(`${base.origin}${target}`, { headers: await signedHeaders('GET', base, target, { 'x-amz-content-sha256': 'UNSIGNED-PAYLOAD' }) });
    expect(plain.headers.get('x-amz-checksum-sha256')).toBeNull();
    const enabled = await fetch(`${base.origin}${target}`, { headers: await signedHeaders('GET', base, target, { 'x-amz-content-sha256': 'UNSIGNED-PAYLOAD', 'x-amz-checksum-mode': 'ENABLED' }) });
    expect(enabled.headers.get('x-amz-checksum-sha256')).toBe(sha);
    const ranged = await fetch(`${base.origin}${target}`, { headers: await signedHeaders('GET', base, target, { 'x-amz-content-sha256': 'UNSIGNED-PAYLOAD', 'x-amz-checksum-mode': 'ENABLED', range: 'bytes=0-3' }) });
    expect(ranged.status).toBe(206);
    expect(ranged.headers.get('x-amz-checksum-sha256')).toBeNull();
  });
});
