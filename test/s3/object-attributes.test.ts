/**
 * GetObjectAttributes through @aws-sdk/client-s3's GetObjectAttributesCommand against a real Stratus: single-part
 * and multipart objects with stored checksums (object and per part), paging of parts, SSE-C, the errors S3 gives
 * (InvalidArgument for a missing or unknown attribute, NoSuchKey), and a second user's key, which reaches neither
 * the admin's bucket (its own account has none of that name) nor the admin's account named in the host (403).
 */
import http from 'node:http';
import { createHash, randomBytes } from 'node:crypto';
import {
  CompleteMultipartUploadCommand, CreateBucketCommand, CreateMultipartUploadCommand, GetObjectAttributesCommand, PutObjectCommand,
  UploadPartCommand, type ObjectAttributes, type S3Client,
} from '@aws-sdk/client-s3';
import { NodeHttpHandler } from '@smithy/node-http-handler';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { addUser } from '../helpers/users.js';
import { s3Failure, testS3Client } from '../helpers/s3-sdk.js';
import { clientWith, r2WriteKeys, type KeyPair } from '../helpers/s3-keys.js';
import { signedHeaders } from '../helpers/s3-sign.js';
import { loopbackLookup } from '../helpers/loopback.js';

const ALL: ObjectAttributes[] = ['ETag', 'Checksum', 'ObjectParts', 'StorageClass', 'ObjectSize'];
const B = 'attrs';
const PART = 5 * 1024 * 1024;

let server: TestServer;
let s3: S3Client;
let other: S3Client;
let otherKeys: KeyPair;
const agent = new http.Agent({ lookup: loopbackLookup().lookup });

const md5 = (b: Buffer | string): string => createHash('md5').update(b).digest('hex');
const attributes = (Key: string, extra: Partial<ConstructorParameters<typeof GetObjectAttributesCommand>[0]> = {}) =>
  s3.send(new GetObjectAttributesCommand({ Bucket: B, Key, ObjectAttributes: ALL, ...extra }));

/** A signed raw GET of `target` with `headers` (for requests the SDK would not send). */
async function raw(target: string, headers: Record<string, string>): Promise<{ status: number; text: string }> {
  const base = new URL(server.running.s3Url!);
  const all = { 'x-amz-content-sha256': 'UNSIGNED-PAYLOAD', ...headers };
  const res = await fetch(`${base.origin}${target}`, { headers: await signedHeaders('GET', base, target, all) });
  return { status: res.status, text: await res.text() };
}

/** A multipart upload of `sizes` (bytes per part), with `algorithm` when given; the parts' answers and the completion's. */
async function multipart(key: string, sizes: number[], algorithm?: 'CRC32' | 'SHA256') {
  const { UploadId } = await s3.send(new CreateMultipartUploadCommand({ Bucket: B, Key: key, ...(algorithm ? { ChecksumAlgorithm: algorithm } : {}) }));
  const parts = [];
  for (const [i, size] of sizes.entries()) {
    const up = await s3.send(new UploadPartCommand({
      Bucket: B, Key: key, UploadId, PartNumber: i + 1, Body: randomBytes(size), ...(algorithm ? { ChecksumAlgorithm: algorithm } : {}),
    }));
    parts.push({ PartNumber: i + 1, ETag: up.ETag, ...(up.ChecksumCRC32 ? { ChecksumCRC32: up.ChecksumCRC32 } : {}), ...(up.ChecksumSHA256 ? { ChecksumSHA256: up.ChecksumSHA256 } : {}) });
  }
  const done = await s3.send(new CompleteMultipartUploadCommand({ Bucket: B, Key: key, UploadId, MultipartUpload: { Parts: parts } }));
  return { parts, done };
}

beforeAll(async () => {
  server = await startTestServer({ flags: { 's3-domain': 's3.localhost' } });
  s3 = testS3Client(server.running.s3Url!, { requestChecksumCalculation: 'WHEN_REQUIRED' });
  await s3.send(new CreateBucketCommand({ Bucket: B }));
  const second = await addUser(server, 'second@example.com');
  otherKeys = await r2WriteKeys(second.sdk(), second.accountId);
  other = clientWith(server.running.s3Url!, otherKeys);
});

afterAll(async () => {
  s3?.destroy();
  other?.destroy();
  agent.destroy();
  await server?.stop();
});

describe('GetObjectAttributes', () => {
  it('answers a single-part object: unquoted etag, its checksum, class and size, no parts, Last-Modified', async () => {
    const body = Buffer.alloc(1024, 'A');
    const sha256 = createHash('sha256').update(body).digest('base64');
    const put = await s3.send(new PutObjectCommand({ Bucket: B, Key: 'one', Body: body, ChecksumAlgorithm: 'SHA256', ChecksumSHA256: sha256 }));
    const got = await attributes('one');
    expect(got.ETag).toBe(md5(body));
    expect(`"${got.ETag}"`).toBe(put.ETag);
    expect(got.Checksum).toEqual({ ChecksumSHA256: sha256, ChecksumType: 'FULL_OBJECT' });
    expect(got.StorageClass).toBe('STANDARD');
    expect(got.ObjectSize).toBe(1024);
    expect(got.ObjectParts).toBeUndefined();
    expect(got.VersionId).toBeUndefined();
    expect(got.DeleteMarker).toBeUndefined();
    expect(got.LastModified).toBeInstanceOf(Date);
    expect(Math.abs(got.LastModified!.getTime() - Date.now())).toBeLessThan(10 * 60_000);

    // Only what is asked for; versionId=null names the only version, as on GetObject.
    const some = await attributes('one', { ObjectAttributes: ['ObjectSize'], VersionId: 'null' });
    expect(some.ObjectSize).toBe(1024);
    expect(some.ETag).toBeUndefined();
    expect(some.Checksum).toBeUndefined();
    expect(some.StorageClass).toBeUndefined();
    // An object stored without a flexible checksum has no Checksum element.
    await s3.send(new PutObjectCommand({ Bucket: B, Key: 'plain', Body: 'foo' }));
    const plain = await attributes('plain');
    expect(plain).toMatchObject({ ETag: md5('foo'), ObjectSize: 3, StorageClass: 'STANDARD' });
    expect(plain.Checksum).toBeUndefined();
    await s3.send(new PutObjectCommand({ Bucket: B, Key: 'ia', Body: 'cold', StorageClass: 'STANDARD_IA' }));
    expect((await attributes('ia', { ObjectAttributes: ['StorageClass'] })).StorageClass).toBe('STANDARD_IA');
  });

  it('lists the parts of a multipart object with their checksums, and the composite checksum', async () => {
    const { parts, done } = await multipart('mp-crc', [PART, PART, 1234], 'CRC32');
    const got = await attributes('mp-crc');
    expect(got.ETag).toBe(done.ETag!.replace(/"/g, ''));
    expect(got.ObjectSize).toBe(2 * PART + 1234);
    expect(got.Checksum).toEqual({ ChecksumCRC32: done.ChecksumCRC32, ChecksumType: 'COMPOSITE' });
    expect(got.Checksum!.ChecksumCRC32).toMatch(/-3$/);
    expect(got.ObjectParts).toMatchObject({ TotalPartsCount: 3, PartNumberMarker: '0', MaxParts: 1000, IsTruncated: false });
    expect(got.ObjectParts!.NextPartNumberMarker).toBeUndefined();
    expect(got.ObjectParts!.Parts).toEqual([
      { PartNumber: 1, Size: PART, ChecksumCRC32: parts[0]!.ChecksumCRC32 },
      { PartNumber: 2, Size: PART, ChecksumCRC32: parts[1]!.ChecksumCRC32 },
      { PartNumber: 3, Size: 1234, ChecksumCRC32: parts[2]!.ChecksumCRC32 },
    ]);
  });

  it('pages the parts with MaxParts and PartNumberMarker', async () => {
    await multipart('mp-paged', [PART, PART, PART, 10], 'SHA256');
    const first = await attributes('mp-paged', { MaxParts: 1, PartNumberMarker: '1' });
    expect(first.ObjectParts).toMatchObject({ TotalPartsCount: 4, PartNumberMarker: '1', NextPartNumberMarker: '2', MaxParts: 1, IsTruncated: true });
    expect(first.ObjectParts!.Parts!.map((p) => p.PartNumber)).toEqual([2]);
    expect(first.ObjectParts!.Parts![0]!.ChecksumSHA256).toMatch(/^[A-Za-z0-9+/]{43}=$/);
    const rest = await attributes('mp-paged', { MaxParts: 10, PartNumberMarker: first.ObjectParts!.NextPartNumberMarker });
    expect(rest.ObjectParts).toMatchObject({ PartNumberMarker: '2', MaxParts: 10, IsTruncated: false });
    expect(rest.ObjectParts!.Parts!.map((p) => [p.PartNumber, p.Size])).toEqual([[3, PART], [4, 10]]);
    const past = await attributes('mp-paged', { PartNumberMarker: '9' });
    expect(past.ObjectParts).toMatchObject({ TotalPartsCount: 4, IsTruncated: false });
    expect(past.ObjectParts!.Parts).toBeUndefined();
  });

  it('lists the parts of a multipart object made without checksums, without checksum fields', async () => {
    await multipart('mp-plain', [PART, 7]);
    const got = await attributes('mp-plain');
    expect(got.Checksum).toBeUndefined();
    expect(got.ObjectParts!.Parts).toEqual([{ PartNumber: 1, Size: PART }, { PartNumber: 2, Size: 7 }]);
  });

  it('needs the SSE-C key of an encrypted object', async () => {
    const key = randomBytes(32);
    const sse = { SSECustomerAlgorithm: 'AES256', SSECustomerKey: key.toString('base64'), SSECustomerKeyMD5: createHash('md5').update(key).digest('base64') };
    const put = await s3.send(new PutObjectCommand({ Bucket: B, Key: 'sealed', Body: 'x'.repeat(1000), ...sse }));
    expect((await s3Failure(attributes('sealed'))).status).toBe(400);
    const got = await attributes('sealed', sse);
    expect(`"${got.ETag}"`).toBe(put.ETag);
    expect(got.ObjectSize).toBe(1000);
  });

  it('answers InvalidArgument for a missing, empty or unknown attribute, and NoSuchKey', async () => {
    await s3.send(new PutObjectCommand({ Bucket: B, Key: 'k', Body: 'v' }));
    const bogus = await raw(`/${B}/k?attributes`, { 'x-amz-object-attributes': 'ETag,Bogus' });
    expect(bogus.status).toBe(400);
    expect(bogus.text).toContain('<Code>InvalidArgument</Code>');
    expect(bogus.text).toContain('<ArgumentValue>Bogus</ArgumentValue>');
    for (const headers of [{}, { 'x-amz-object-attributes': ' , ' }] as Array<Record<string, string>>) {
      const missing = await raw(`/${B}/k?attributes`, headers);
      expect(missing.status).toBe(400);
      expect(missing.text).toContain('<Code>InvalidArgument</Code>');
    }
    const badMax = await raw(`/${B}/k?attributes`, { 'x-amz-object-attributes': 'ObjectParts', 'x-amz-max-parts': '-1' });
    expect(badMax.status).toBe(400);
    expect(await s3Failure(s3.send(new GetObjectAttributesCommand({ Bucket: B, Key: 'k', ObjectAttributes: ['Bogus' as ObjectAttributes] })))).toEqual({ name: 'InvalidArgument', status: 400 });
    expect(await s3Failure(attributes('absent'))).toEqual({ name: 'NoSuchKey', status: 404 });
    expect(await s3Failure(attributes('k', { VersionId: 'v1' }))).toEqual({ name: 'InvalidArgument', status: 400 });
    expect(await s3Failure(s3.send(new GetObjectAttributesCommand({ Bucket: 'no-such-bucket', Key: 'k', ObjectAttributes: ALL })))).toEqual({ name: 'NoSuchBucket', status: 404 });
  });

  it("tells a second user's key nothing of the admin's objects", async () => {
    await multipart('mp-secret', [PART, 3], 'CRC32');
    // In its own account the bucket name names nothing.
    expect(await s3Failure(other.send(new GetObjectAttributesCommand({ Bucket: B, Key: 'mp-secret', ObjectAttributes: ALL })))).toEqual({ name: 'NoSuchBucket', status: 404 });
    // Naming the admin's account in the host is refused.
    const port = new URL(server.running.s3Url!).port;
    const intruder = clientWith(`http://${server.running.adminAccountId}.s3.localhost:${port}`, otherKeys, {
      forcePathStyle: false, requestHandler: new NodeHttpHandler({ httpAgent: agent }),
    });
    try {
      expect(await s3Failure(intruder.send(new GetObjectAttributesCommand({ Bucket: B, Key: 'mp-secret', ObjectAttributes: ALL })))).toEqual({ name: 'AccessDenied', status: 403 });
      expect(await s3Failure(intruder.send(new GetObjectAttributesCommand({ Bucket: B, Key: 'absent', ObjectAttributes: ALL })))).toEqual({ name: 'AccessDenied', status: 403 });
    } finally {
      intruder.destroy();
    }
    expect((await attributes('mp-secret')).ObjectParts!.TotalPartsCount).toBe(2);
  });
});
