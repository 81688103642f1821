/**
 * S3 key pairs derived from API tokens (access key id = token id, secret = SHA-256 hex of the value, as
 * production derives them), with @aws-sdk/client-s3 against a real Stratus: what bucket-scoped and
 * account-wide R2 permission groups allow, read-only keys, copies across buckets, and revocation.
 */
import { createHash } from 'node:crypto';
import {
  AbortMultipartUploadCommand, CompleteMultipartUploadCommand, CopyObjectCommand, CreateBucketCommand, CreateMultipartUploadCommand, DeleteObjectCommand,
  DeleteObjectsCommand, GetObjectAttributesCommand, GetObjectCommand, HeadObjectCommand, ListBucketsCommand, ListObjectsV2Command, PutObjectCommand,
} from '@aws-sdk/client-s3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { accountId } from '../helpers/api.js';
import { s3Failure, testS3Client } from '../helpers/s3-sdk.js';

const BUCKET_ITEM_READ = '6a018a9f2fc74eb6b293b0c548f38b39';
const BUCKET_ITEM_WRITE = '2efd5506f9c8494dacb1fa10a3e7d5b6';
const R2_STORAGE_WRITE = 'bf7481a1826f439697cb59a20b22293e';

describe('S3 key pairs of API tokens', () => {
  let server: TestServer;
  let account: string;
  const admin = () => testS3Client(server.running.s3Url!);
  const keysOf = (token: { id?: string; value?: string }) =>
    testS3Client(server.running.s3Url!, { credentials: { accessKeyId: token.id!, secretAccessKey: createHash('sha256').update(token.value!).digest('hex') } });
  const token = (name: string, groups: string[], resources: Record<string, string>) =>
    server.sdk().user.tokens.create({ name, policies: [{ effect: 'allow', permission_groups: groups.map((id) => ({ id })), resources }] });
  const bucketKey = (bucket: string) => `com.cloudflare.edge.r2.bucket.${account}_default_${bucket}`;

  beforeAll(async () => {
    server = await startTestServer();
    account = await accountId(server);
    for (const b of ['tok-one', 'tok-two']) await admin().send(new CreateBucketCommand({ Bucket: b }));
    await admin().send(new PutObjectCommand({ Bucket: 'tok-two', Key: 'source.txt', Body: 'from two' }));
  });
  afterAll(async () => { await server.stop(); });

  it('a bucket-scoped write token reads and writes its bucket only and cannot manage buckets', async () => {
    const s3 = keysOf(await token('one-writer', [BUCKET_ITEM_WRITE], { [bucketKey('tok-one')]: '*' }));
    await s3.send(new PutObjectCommand({ Bucket: 'tok-one', Key: 'a.txt', Body: 'hello' }));
    expect(await (await s3.send(new GetObjectCommand({ Bucket: 'tok-one', Key: 'a.txt' }))).Body!.transformToString()).toBe('hello');
    expect((await s3.send(new ListObjectsV2Command({ Bucket: 'tok-one' }))).Contents!.map((o) => o.Key)).toEqual(['a.txt']);
    expect(await s3Failure(s3.send(new GetObjectCommand({ Bucket: 'tok-two', Key: 'source.txt' })))).toEqual({ name: 'AccessDenied', status: 403 });
    expect(await s3Failure(s3.send(new ListBucketsCommand({})))).toEqual({ name: 'AccessDenied', status: 403 });
    expect(await s3Failure(s3.send(new CreateBucketCommand({ Bucket: 'tok-new' })))).toEqual({ name: 'AccessDenied', status: 403 });
    // Copying needs read access to the source bucket too.
    expect(await s3Failure(s3.send(new CopyObjectCommand({ Bucket: 'tok-one', Key: 'copy.txt', CopySource: 'tok-two/source.txt' })))).toEqual({ name: 'AccessDenied', status: 403 });
  });

  it('a read-only token reads and cannot write; a copy works with read on the source', async () => {
    const reader = keysOf(await token('two-reader', [BUCKET_ITEM_READ], { [bucketKey('tok-two')]: '*' }));
    expect(await (await reader.send(new GetObjectCommand({ Bucket: 'tok-two', Key: 'source.txt' }))).Body!.transformToString()).toBe('from two');
    expect(await s3Failure(reader.send(new PutObjectCommand({ Bucket: 'tok-two', Key: 'x', Body: 'x' })))).toEqual({ name: 'AccessDenied', status: 403 });
    const both = await server.sdk().user.tokens.create({ name: 'copier', policies: [
      { effect: 'allow', permission_groups: [{ id: BUCKET_ITEM_WRITE }], resources: { [bucketKey('tok-one')]: '*' } },
      { effect: 'allow', permission_groups: [{ id: BUCKET_ITEM_READ }], resources: { [bucketKey('tok-two')]: '*' } },
    ] });
    await keysOf(both).send(new CopyObjectCommand({ Bucket: 'tok-one', Key: 'copy.txt', CopySource: 'tok-two/source.txt' }));
    expect(await (await admin().send(new GetObjectCommand({ Bucket: 'tok-one', Key: 'copy.txt' }))).Body!.transformToString()).toBe('from two');
  });

  it('conditional deletes, part reads and completions need the same access as their plain operations', async () => {
    const etag = (await admin().send(new PutObjectCommand({ Bucket: 'tok-two', Key: 'guarded.txt', Body: 'guarded' }))).ETag!;
    const other = keysOf(await token('one-only', [BUCKET_ITEM_WRITE], { [bucketKey('tok-one')]: '*' }));
    expect(await s3Failure(other.send(new DeleteObjectCommand({ Bucket: 'tok-two', Key: 'guarded.txt', IfMatch: etag })))).toEqual({ name: 'AccessDenied', status: 403 });
    expect(await s3Failure(other.send(new DeleteObjectsCommand({ Bucket: 'tok-two', Delete: { Objects: [{ Key: 'guarded.txt', ETag: etag }] } })))).toEqual({ name: 'AccessDenied', status: 403 });
    expect(await s3Failure(other.send(new GetObjectCommand({ Bucket: 'tok-two', Key: 'guarded.txt', PartNumber: 1 })))).toEqual({ name: 'AccessDenied', status: 403 });
    expect(await s3Failure(other.send(new HeadObjectCommand({ Bucket: 'tok-two', Key: 'guarded.txt', PartNumber: 1 })))).toMatchObject({ status: 403 });
    expect(await s3Failure(other.send(new GetObjectAttributesCommand({ Bucket: 'tok-two', Key: 'guarded.txt', ObjectAttributes: ['ETag', 'ObjectSize'] })))).toEqual({ name: 'AccessDenied', status: 403 });
    const { UploadId } = await admin().send(new CreateMultipartUploadCommand({ Bucket: 'tok-two', Key: 'up.bin' }));
    expect(await s3Failure(other.send(new CompleteMultipartUploadCommand({ Bucket: 'tok-two', Key: 'up.bin', UploadId, MultipartUpload: { Parts: [{ PartNumber: 1, ETag: '"x"' }] }, IfNoneMatch: '*' })))).toEqual({ name: 'AccessDenied', status: 403 });
    expect(await s3Failure(other.send(new AbortMultipartUploadCommand({ Bucket: 'tok-two', Key: 'up.bin', UploadId })))).toEqual({ name: 'AccessDenied', status: 403 });
    // Nothing changed, and the refusals told nothing about the object or the upload.
    expect(await (await admin().send(new GetObjectCommand({ Bucket: 'tok-two', Key: 'guarded.txt' }))).Body!.transformToString()).toBe('guarded');
    await admin().send(new AbortMultipartUploadCommand({ Bucket: 'tok-two', Key: 'up.bin', UploadId }));
    // A reader may read parts but not delete conditionally.
    const reader = keysOf(await token('two-part-reader', [BUCKET_ITEM_READ], { [bucketKey('tok-two')]: '*' }));
    expect(await (await reader.send(new GetObjectCommand({ Bucket: 'tok-two', Key: 'guarded.txt', PartNumber: 1 }))).Body!.transformToString()).toBe('guarded');
    expect((await reader.send(new GetObjectAttributesCommand({ Bucket: 'tok-two', Key: 'guarded.txt', ObjectAttributes: ['ETag', 'ObjectSize'] }))).ObjectSize).toBe(7);
    expect(await s3Failure(reader.send(new DeleteObjectCommand({ Bucket: 'tok-two', Key: 'guarded.txt', IfMatch: etag })))).toEqual({ name: 'AccessDenied', status: 403 });
  });

  it('an account-wide R2 Storage Write token manages buckets; a deleted token is an unknown key at once', async () => {
    const made = await token('r2-admin', [R2_STORAGE_WRITE], { [`com.cloudflare.api.account.${account}`]: '*' });
    const s3 = keysOf(made);
    await s3.send(new CreateBucketCommand({ Bucket: 'tok-made' }));
    expect((await s3.send(new ListBucketsCommand({}))).Buckets!.map((b) => b.Name)).toContain('tok-made');
    await s3.send(new PutObjectCommand({ Bucket: 'tok-two', Key: 'by-admin-token', Body: 'y' }));
    await server.sdk().user.tokens.delete(made.id!);
    expect(await s3Failure(s3.send(new ListBucketsCommand({})))).toEqual({ name: 'InvalidAccessKeyId', status: 403 });
  });

  it('a token without R2 groups, or a wrong secret, gets nothing', async () => {
    const dns = await token('dns-only', ['4755a26eedb94da69e1066d98aa820be'], { [`com.cloudflare.api.account.${account}`]: '*' });
    expect(await s3Failure(keysOf(dns).send(new GetObjectCommand({ Bucket: 'tok-two', Key: 'source.txt' })))).toEqual({ name: 'AccessDenied', status: 403 });
    const wrong = testS3Client(server.running.s3Url!, { credentials: { accessKeyId: dns.id!, secretAccessKey: 'f'.repeat(64) } });
    expect(await s3Failure(wrong.send(new ListBucketsCommand({})))).toEqual({ name: 'SignatureDoesNotMatch', status: 403 });
  });
});
