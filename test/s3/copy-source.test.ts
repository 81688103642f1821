/**
 * `x-amz-copy-source` in every form clients send it (the key encoded, the whole value encoded as Terraform's AWS
 * provider sends it, a leading slash, `?versionId=null`), for CopyObject and UploadPartCopy, with
 * @aws-sdk/client-s3 against a real Stratus; and the access check reading the same source bucket as the copy:
 * a token limited to one bucket, and a second user's key and token, copy from no other bucket whatever the
 * encoding.
 */
import {
  AbortMultipartUploadCommand, CopyObjectCommand, CreateBucketCommand, CreateMultipartUploadCommand, GetObjectCommand, HeadObjectCommand,
  PutObjectCommand, UploadPartCopyCommand, type S3Client,
} from '@aws-sdk/client-s3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { accountId } from '../helpers/api.js';
import { addUser } from '../helpers/users.js';
import { s3Failure, testS3Client } from '../helpers/s3-sdk.js';
import { clientWith, r2WriteKeys, tokenKeyPair } from '../helpers/s3-keys.js';

const BUCKET_ITEM_WRITE = '2efd5506f9c8494dacb1fa10a3e7d5b6';
const KEY = 'dir/a b+c.txt';
/** Go's url.QueryEscape, as the Terraform AWS provider encodes `bucket/key`. */
const goQueryEscape = (s: string): string => encodeURIComponent(s).replace(/%20/g, '+').replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);

/** Every form of the source `cs-src/dir/a b+c.txt`. */
const FORMS: Record<string, string> = {
  'key encoded': `cs-src/${KEY.split('/').map(encodeURIComponent).join('/')}`,
  'leading slash': `/cs-src/${KEY.split('/').map(encodeURIComponent).join('/')}`,
  'whole value encoded': encodeURIComponent(`cs-src/${KEY}`),
  'whole value with its leading slash encoded': encodeURIComponent(`/cs-src/${KEY}`),
  'Go QueryEscape (Terraform)': goQueryEscape(`cs-src/${KEY}`),
  'versionId=null': `${encodeURIComponent(`cs-src/${KEY}`)}?versionId=null`,
};

describe('x-amz-copy-source', () => {
  let server: TestServer;
  let admin: S3Client;
  let account: string;

  beforeAll(async () => {
    server = await startTestServer();
    admin = testS3Client(server.running.s3Url!);
    account = await accountId(server);
    for (const b of ['cs-src', 'cs-dst']) await admin.send(new CreateBucketCommand({ Bucket: b }));
    await admin.send(new PutObjectCommand({ Bucket: 'cs-src', Key: KEY, Body: 'x'.repeat(6 * 1024 * 1024), ContentType: 'text/plain' }));
  });
  afterAll(async () => { await server?.stop(); });

  it.each(Object.entries(FORMS))('CopyObject reads the source given as %s', async (name, source) => {
    const key = `copy/${name}`;
    await admin.send(new CopyObjectCommand({ Bucket: 'cs-dst', Key: key, CopySource: source }));
    const head = await admin.send(new HeadObjectCommand({ Bucket: 'cs-dst', Key: key }));
    expect(head).toMatchObject({ ContentLength: 6 * 1024 * 1024, ContentType: 'text/plain' });
  });

  it('UploadPartCopy reads the whole-encoded and the Go-escaped forms', async () => {
    for (const source of [FORMS['whole value encoded']!, FORMS['Go QueryEscape (Terraform)']!]) {
      const { UploadId } = await admin.send(new CreateMultipartUploadCommand({ Bucket: 'cs-dst', Key: 'parts.bin' }));
      const part = await admin.send(new UploadPartCopyCommand({ Bucket: 'cs-dst', Key: 'parts.bin', UploadId, PartNumber: 1, CopySource: source, CopySourceRange: 'bytes=0-9' }));
      expect(part.CopyPartResult?.ETag).toMatch(/^"[0-9a-f]{32}"$/);
      await admin.send(new AbortMultipartUploadCommand({ Bucket: 'cs-dst', Key: 'parts.bin', UploadId }));
    }
  });

  it('refuses a source naming no object or another version', async () => {
    expect(await s3Failure(admin.send(new CopyObjectCommand({ Bucket: 'cs-dst', Key: 'x', CopySource: 'cs-src%2F' })))).toEqual({ name: 'InvalidArgument', status: 400 });
    expect(await s3Failure(admin.send(new CopyObjectCommand({ Bucket: 'cs-dst', Key: 'x', CopySource: `${FORMS['whole value encoded']}?versionId=abc` })))).toEqual({ name: 'InvalidArgument', status: 400 });
    // An encoded '?' is part of the key: no such object.
    expect(await s3Failure(admin.send(new CopyObjectCommand({ Bucket: 'cs-dst', Key: 'x', CopySource: 'cs-src%2Fdir%2Fa%3FversionId%3Dnull' })))).toEqual({ name: 'NoSuchKey', status: 404 });
  });

  it('a token limited to the destination bucket copies from no other bucket, whatever the encoding', async () => {
    const token = await server.sdk().user.tokens.create({
      name: 'dst-only', policies: [{ effect: 'allow', permission_groups: [{ id: BUCKET_ITEM_WRITE }], resources: { [`com.cloudflare.edge.r2.bucket.${account}_default_cs-dst`]: '*' } }],
    });
    const limited = clientWith(server.running.s3Url!, tokenKeyPair(token));
    await limited.send(new PutObjectCommand({ Bucket: 'cs-dst', Key: 'own.txt', Body: 'own' }));
    // Within its own bucket a copy works, in the encoded form too.
    await limited.send(new CopyObjectCommand({ Bucket: 'cs-dst', Key: 'own-copy.txt', CopySource: encodeURIComponent('cs-dst/own.txt') }));
    for (const [name, source] of Object.entries(FORMS)) {
      const key = `stolen/${name}`;
      expect(await s3Failure(limited.send(new CopyObjectCommand({ Bucket: 'cs-dst', Key: key, CopySource: source }))), name).toEqual({ name: 'AccessDenied', status: 403 });
      expect(await s3Failure(admin.send(new GetObjectCommand({ Bucket: 'cs-dst', Key: key }))), name).toEqual({ name: 'NoSuchKey', status: 404 });
    }
    const { UploadId } = await limited.send(new CreateMultipartUploadCommand({ Bucket: 'cs-dst', Key: 'stolen.bin' }));
    for (const [name, source] of Object.entries(FORMS)) {
      expect(await s3Failure(limited.send(new UploadPartCopyCommand({ Bucket: 'cs-dst', Key: 'stolen.bin', UploadId, PartNumber: 1, CopySource: source }))), name)
        .toEqual({ name: 'AccessDenied', status: 403 });
    }
    await limited.send(new AbortMultipartUploadCommand({ Bucket: 'cs-dst', Key: 'stolen.bin', UploadId }));
  });

  it("a second user's key and token see no source in the first account, whatever the encoding", async () => {
    const second = await addUser(server, 'copier@example.com');
    const other = clientWith(server.running.s3Url!, await r2WriteKeys(second.sdk(), second.accountId));
    await other.send(new CreateBucketCommand({ Bucket: 'cs-dst' }));
    for (const [name, source] of Object.entries(FORMS)) {
      expect(await s3Failure(other.send(new CopyObjectCommand({ Bucket: 'cs-dst', Key: 'stolen', CopySource: source }))), name).toEqual({ name: 'NoSuchBucket', status: 404 });
    }
    // The first account's bucket of the same name is untouched.
    expect(await s3Failure(admin.send(new HeadObjectCommand({ Bucket: 'cs-dst', Key: 'stolen' })))).toMatchObject({ status: 404 });
  });
});
