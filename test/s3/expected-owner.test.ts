/**
 * `x-amz-expected-bucket-owner` and `x-amz-source-expected-bucket-owner` (the SDK's ExpectedBucketOwner and
 * ExpectedSourceBucketOwner): the owner is the account id ListBuckets shows as Owner/ID; another id is 403
 * AccessDenied on every operation, before anything is done; a second user's account is its own owner.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  AbortMultipartUploadCommand, CompleteMultipartUploadCommand, CopyObjectCommand, CreateBucketCommand, CreateMultipartUploadCommand,
  DeleteBucketCommand, DeleteBucketCorsCommand, DeleteObjectCommand, DeleteObjectsCommand, GetBucketLocationCommand, GetObjectCommand,
  HeadBucketCommand, HeadObjectCommand, ListBucketsCommand, ListMultipartUploadsCommand, ListObjectsCommand, ListObjectsV2Command,
  ListPartsCommand, PutBucketCorsCommand, PutObjectCommand, type S3Client, UploadPartCommand, UploadPartCopyCommand,
} from '@aws-sdk/client-s3';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { s3Failure, testS3Client } from '../helpers/s3-sdk.js';
import { addUser } from '../helpers/users.js';
import { clientWith, r2WriteKeys } from '../helpers/s3-keys.js';

const DENIED = { name: 'AccessDenied', status: 403 };
/** A HEAD answer has no body: the SDK sees only the status. */
const HEAD_DENIED = { status: 403 };
const B = 'owned';

let server: TestServer;
let admin: S3Client;
let other: S3Client;
let adminId: string;
let otherId: string;

beforeAll(async () => {
  server = await startTestServer();
  admin = testS3Client(server.running.s3Url!);
  adminId = server.running.adminAccountId;
  const second = await addUser(server, 'second@example.com');
  otherId = second.accountId;
  other = clientWith(server.running.s3Url!, await r2WriteKeys(second.sdk(), second.accountId));
  await admin.send(new CreateBucketCommand({ Bucket: B }));
  await admin.send(new PutObjectCommand({ Bucket: B, Key: 'a.txt', Body: 'a' }));
});

afterAll(async () => {
  admin?.destroy();
  other?.destroy();
  await server?.stop();
});

/** Every operation on bucket `B` with `owner` as the expected owner. */
function operations(owner: string, uploadId: string): Array<[string, () => Promise<unknown>]> {
  const o = { ExpectedBucketOwner: owner };
  return [
    ['HeadBucket', () => admin.send(new HeadBucketCommand({ Bucket: B, ...o }))],
    ['GetBucketLocation', () => admin.send(new GetBucketLocationCommand({ Bucket: B, ...o }))],
    ['ListObjects', () => admin.send(new ListObjectsCommand({ Bucket: B, ...o }))],
    ['ListObjectsV2', () => admin.send(new ListObjectsV2Command({ Bucket: B, ...o }))],
    ['ListMultipartUploads', () => admin.send(new ListMultipartUploadsCommand({ Bucket: B, ...o }))],
    ['PutBucketCors', () => admin.send(new PutBucketCorsCommand({ Bucket: B, CORSConfiguration: { CORSRules: [{ AllowedOrigins: ['*'], AllowedMethods: ['GET'] }] }, ...o }))],
    ['DeleteBucketCors', () => admin.send(new DeleteBucketCorsCommand({ Bucket: B, ...o }))],
    ['PutObject', () => admin.send(new PutObjectCommand({ Bucket: B, Key: 'w.txt', Body: 'w', ...o }))],
    ['GetObject', () => admin.send(new GetObjectCommand({ Bucket: B, Key: 'a.txt', ...o }))],
    ['HeadObject', () => admin.send(new HeadObjectCommand({ Bucket: B, Key: 'a.txt', ...o }))],
    ['CopyObject', () => admin.send(new CopyObjectCommand({ Bucket: B, Key: 'c.txt', CopySource: `${B}/a.txt`, ...o }))],
    ['CreateMultipartUpload', () => admin.send(new CreateMultipartUploadCommand({ Bucket: B, Key: 'm.bin', ...o }))],
    ['UploadPart', () => admin.send(new UploadPartCommand({ Bucket: B, Key: 'mp.bin', UploadId: uploadId, PartNumber: 1, Body: 'p', ...o }))],
    ['UploadPartCopy', () => admin.send(new UploadPartCopyCommand({ Bucket: B, Key: 'mp.bin', UploadId: uploadId, PartNumber: 2, CopySource: `${B}/a.txt`, ...o }))],
    ['ListParts', () => admin.send(new ListPartsCommand({ Bucket: B, Key: 'mp.bin', UploadId: uploadId, ...o }))],
    ['DeleteObjects', () => admin.send(new DeleteObjectsCommand({ Bucket: B, Delete: { Objects: [{ Key: 'w.txt' }] }, ...o }))],
    ['DeleteObject', () => admin.send(new DeleteObjectCommand({ Bucket: B, Key: 'c.txt', ...o }))],
  ];
}

describe('expected bucket owner', () => {
  it('ListBuckets shows the account id as Owner/ID, per account', async () => {
    expect((await admin.send(new ListBucketsCommand({}))).Owner).toEqual({ ID: adminId, DisplayName: adminId });
    expect((await other.send(new ListBucketsCommand({}))).Owner).toEqual({ ID: otherId, DisplayName: otherId });
  });

  it('another account named as the owner is AccessDenied on every operation, and nothing is done', async () => {
    const uploadId = (await admin.send(new CreateMultipartUploadCommand({ Bucket: B, Key: 'mp.bin' }))).UploadId!;
    for (const [name, run] of operations(otherId, uploadId)) {
      expect([name, await s3Failure(run())]).toMatchObject([name, name.startsWith('Head') ? HEAD_DENIED : DENIED]);
    }
    for (const owner of ['', '123456789012', `${adminId}x`]) expect(await s3Failure(admin.send(new HeadBucketCommand({ Bucket: B, ExpectedBucketOwner: owner })))).toMatchObject(HEAD_DENIED);
    expect(await s3Failure(admin.send(new CompleteMultipartUploadCommand({
      Bucket: B, Key: 'mp.bin', UploadId: uploadId, MultipartUpload: { Parts: [{ PartNumber: 1, ETag: '"x"' }] }, ExpectedBucketOwner: otherId,
    })))).toEqual(DENIED);
    expect(await s3Failure(admin.send(new AbortMultipartUploadCommand({ Bucket: B, Key: 'mp.bin', UploadId: uploadId, ExpectedBucketOwner: otherId })))).toEqual(DENIED);
    expect(await s3Failure(admin.send(new DeleteBucketCommand({ Bucket: B, ExpectedBucketOwner: otherId })))).toEqual(DENIED);
    // Nothing changed: no new objects, the upload has no parts and is still in progress, the bucket is there.
    expect((await admin.send(new ListObjectsV2Command({ Bucket: B }))).Contents!.map((c) => c.Key)).toEqual(['a.txt']);
    expect((await admin.send(new ListPartsCommand({ Bucket: B, Key: 'mp.bin', UploadId: uploadId }))).Parts ?? []).toEqual([]);
    expect((await admin.send(new ListBucketsCommand({}))).Buckets!.map((b) => b.Name)).toEqual([B]);
    await admin.send(new AbortMultipartUploadCommand({ Bucket: B, Key: 'mp.bin', UploadId: uploadId }));
  });

  it('the right owner passes everywhere', async () => {
    const uploadId = (await admin.send(new CreateMultipartUploadCommand({ Bucket: B, Key: 'mp.bin' }))).UploadId!;
    for (const [name, run] of operations(adminId, uploadId)) {
      await expect(run(), name).resolves.toBeDefined();
    }
    await admin.send(new AbortMultipartUploadCommand({ Bucket: B, Key: 'mp.bin', UploadId: uploadId, ExpectedBucketOwner: adminId }));
  });

  it("a copy's source bucket is checked against x-amz-source-expected-bucket-owner", async () => {
    expect(await s3Failure(admin.send(new CopyObjectCommand({ Bucket: B, Key: 's.txt', CopySource: `${B}/a.txt`, ExpectedSourceBucketOwner: otherId })))).toEqual(DENIED);
    const uploadId = (await admin.send(new CreateMultipartUploadCommand({ Bucket: B, Key: 'mp2.bin' }))).UploadId!;
    expect(await s3Failure(admin.send(new UploadPartCopyCommand({
      Bucket: B, Key: 'mp2.bin', UploadId: uploadId, PartNumber: 1, CopySource: `${B}/a.txt`, ExpectedSourceBucketOwner: otherId,
    })))).toEqual(DENIED);
    expect(await s3Failure(admin.send(new HeadObjectCommand({ Bucket: B, Key: 's.txt' })))).toEqual({ name: 'NotFound', status: 404 });
    await admin.send(new CopyObjectCommand({ Bucket: B, Key: 's.txt', CopySource: `${B}/a.txt`, ExpectedSourceBucketOwner: adminId, ExpectedBucketOwner: adminId }));
    await admin.send(new AbortMultipartUploadCommand({ Bucket: B, Key: 'mp2.bin', UploadId: uploadId }));
  });

  it("a second user: its own account owns its buckets; the admin's bucket stays NoSuchBucket for it", async () => {
    await other.send(new CreateBucketCommand({ Bucket: 'theirs' }));
    await other.send(new PutObjectCommand({ Bucket: 'theirs', Key: 'x', Body: 'x', ExpectedBucketOwner: otherId }));
    expect(await s3Failure(other.send(new GetObjectCommand({ Bucket: 'theirs', Key: 'x', ExpectedBucketOwner: adminId })))).toEqual(DENIED);
    expect(await s3Failure(other.send(new GetObjectCommand({ Bucket: B, Key: 'a.txt', ExpectedBucketOwner: otherId })))).toEqual({ name: 'NoSuchBucket', status: 404 });
    expect(await s3Failure(admin.send(new GetObjectCommand({ Bucket: 'theirs', Key: 'x', ExpectedBucketOwner: otherId })))).toEqual(DENIED);
  });
});
