/**
 * Buckets belong to accounts over the S3 API: a second user (its own account, its own R2 key from a token)
 * against a real Stratus with @aws-sdk/client-s3. The second key never sees the admin's buckets, objects or
 * uploads (every answer is NoSuchBucket, as for a bucket that does not exist), may create a bucket of the
 * same name in its own account, and cannot reach the admin's account by naming it in the host.
 */
import http from 'node:http';
import {
  AbortMultipartUploadCommand, CompleteMultipartUploadCommand, CopyObjectCommand, CreateBucketCommand, CreateMultipartUploadCommand,
  DeleteBucketCommand, DeleteObjectCommand, DeleteObjectsCommand, GetObjectCommand, HeadBucketCommand, HeadObjectCommand, ListBucketsCommand, ListMultipartUploadsCommand,
  ListObjectsV2Command, ListPartsCommand, PutObjectCommand, UploadPartCommand, UploadPartCopyCommand, type S3Client,
} from '@aws-sdk/client-s3';
import { NodeHttpHandler } from '@smithy/node-http-handler';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { addUser } from '../helpers/users.js';
import { s3Failure, testS3Client } from '../helpers/s3-sdk.js';
import { clientWith, presignWith, r2WriteKeys, type KeyPair } from '../helpers/s3-keys.js';
import { loopbackLookup } from '../helpers/loopback.js';

const NO_BUCKET = { name: 'NoSuchBucket', status: 404 };

describe('S3 buckets belong to accounts', () => {
  let server: TestServer;
  let admin: S3Client;
  let other: S3Client;
  let otherKeys: KeyPair;
  let otherAccount: string;
  let adminUpload: string;
  const resolver = loopbackLookup();
  const agent = new http.Agent({ lookup: resolver.lookup });
  const hosted = (host: string, keys?: KeyPair) => {
    const port = new URL(server.running.s3Url!).port;
    const config = { forcePathStyle: false, requestHandler: new NodeHttpHandler({ httpAgent: agent }) };
    return keys ? clientWith(`http://${host}:${port}`, keys, config) : testS3Client(`http://${host}:${port}`, config);
  };

  beforeAll(async () => {
    server = await startTestServer({ flags: { 's3-domain': 's3.localhost' } });
    admin = testS3Client(server.running.s3Url!);
    await admin.send(new CreateBucketCommand({ Bucket: 'admin-private' }));
    await admin.send(new PutObjectCommand({ Bucket: 'admin-private', Key: 's.txt', Body: 'secret' }));
    adminUpload = (await admin.send(new CreateMultipartUploadCommand({ Bucket: 'admin-private', Key: 'big.bin' }))).UploadId!;
    const second = await addUser(server, 'second@example.com');
    otherAccount = second.accountId;
    otherKeys = await r2WriteKeys(second.sdk(), second.accountId);
    other = clientWith(server.running.s3Url!, otherKeys);
    await other.send(new CreateBucketCommand({ Bucket: 'own-bucket' }));
  });
  afterAll(async () => {
    agent.destroy();
    await server?.stop();
  });

  it("lists only the key's own buckets", async () => {
    expect((await other.send(new ListBucketsCommand({}))).Buckets!.map((b) => b.Name)).toEqual(['own-bucket']);
    expect((await admin.send(new ListBucketsCommand({}))).Buckets!.map((b) => b.Name)).toEqual(['admin-private']);
  });

  it("answers NoSuchBucket for every object and bucket operation on another account's bucket", async () => {
    const B = 'admin-private';
    expect(await s3Failure(other.send(new GetObjectCommand({ Bucket: B, Key: 's.txt' })))).toEqual(NO_BUCKET);
    expect(await s3Failure(other.send(new PutObjectCommand({ Bucket: B, Key: 'planted', Body: 'x' })))).toEqual(NO_BUCKET);
    expect(await s3Failure(other.send(new DeleteObjectCommand({ Bucket: B, Key: 's.txt' })))).toEqual(NO_BUCKET);
    expect(await s3Failure(other.send(new ListObjectsV2Command({ Bucket: B })))).toEqual(NO_BUCKET);
    expect(await s3Failure(other.send(new DeleteBucketCommand({ Bucket: B })))).toEqual(NO_BUCKET);
    // HEAD answers carry no body: the SDK names them by status.
    expect(await s3Failure(other.send(new HeadBucketCommand({ Bucket: B })))).toEqual({ name: 'NotFound', status: 404 });
    expect(await s3Failure(other.send(new HeadObjectCommand({ Bucket: B, Key: 's.txt' })))).toEqual({ name: 'NotFound', status: 404 });
    // A copy whose source is the other account's object.
    expect(await s3Failure(other.send(new CopyObjectCommand({ Bucket: 'own-bucket', Key: 'stolen', CopySource: `${B}/s.txt` })))).toEqual(NO_BUCKET);
    // The admin's object and bucket are untouched.
    expect(await (await admin.send(new GetObjectCommand({ Bucket: B, Key: 's.txt' }))).Body!.transformToString()).toBe('secret');
    expect((await admin.send(new ListObjectsV2Command({ Bucket: B }))).Contents!.map((o) => o.Key)).toEqual(['s.txt']);
  });

  it("cannot see or touch another account's multipart uploads", async () => {
    const B = 'admin-private';
    expect(await s3Failure(other.send(new ListMultipartUploadsCommand({ Bucket: B })))).toEqual(NO_BUCKET);
    expect(await s3Failure(other.send(new CreateMultipartUploadCommand({ Bucket: B, Key: 'x' })))).toEqual(NO_BUCKET);
    expect(await s3Failure(other.send(new UploadPartCommand({ Bucket: B, Key: 'big.bin', UploadId: adminUpload, PartNumber: 1, Body: 'p' })))).toEqual(NO_BUCKET);
    expect(await s3Failure(other.send(new ListPartsCommand({ Bucket: B, Key: 'big.bin', UploadId: adminUpload })))).toEqual(NO_BUCKET);
    expect(await s3Failure(other.send(new AbortMultipartUploadCommand({ Bucket: B, Key: 'big.bin', UploadId: adminUpload })))).toEqual(NO_BUCKET);
    // Naming the admin's upload id from the key's own bucket finds nothing either.
    expect(await s3Failure(other.send(new ListPartsCommand({ Bucket: 'own-bucket', Key: 'big.bin', UploadId: adminUpload })))).toEqual({ name: 'NoSuchUpload', status: 404 });
    const own = (await other.send(new CreateMultipartUploadCommand({ Bucket: 'own-bucket', Key: 'part.bin' }))).UploadId!;
    expect(await s3Failure(other.send(new UploadPartCopyCommand({ Bucket: 'own-bucket', Key: 'part.bin', UploadId: own, PartNumber: 1, CopySource: `${B}/s.txt` })))).toEqual(NO_BUCKET);
    const uploads = await admin.send(new ListMultipartUploadsCommand({ Bucket: B }));
    expect(uploads.Uploads!.map((u) => u.UploadId)).toEqual([adminUpload]);
  });

  it("cannot use conditional deletes, partNumber reads or conditional completions on another account's bucket", async () => {
    const B = 'admin-private';
    // A two-part object of the admin (so partNumber reads have parts to select) and an upload with a part, ready to complete.
    const made = (await admin.send(new CreateMultipartUploadCommand({ Bucket: B, Key: 'parts.bin' }))).UploadId!;
    const p1 = await admin.send(new UploadPartCommand({ Bucket: B, Key: 'parts.bin', UploadId: made, PartNumber: 1, Body: Buffer.alloc(5 * 1024 * 1024, 1) }));
    const p2 = await admin.send(new UploadPartCommand({ Bucket: B, Key: 'parts.bin', UploadId: made, PartNumber: 2, Body: 'tail' }));
    const object = await admin.send(new CompleteMultipartUploadCommand({
      Bucket: B, Key: 'parts.bin', UploadId: made, MultipartUpload: { Parts: [{ PartNumber: 1, ETag: p1.ETag }, { PartNumber: 2, ETag: p2.ETag }] },
    }));
    const pending = (await admin.send(new CreateMultipartUploadCommand({ Bucket: B, Key: 'pending.bin' }))).UploadId!;
    const part = await admin.send(new UploadPartCommand({ Bucket: B, Key: 'pending.bin', UploadId: pending, PartNumber: 1, Body: 'pending' }));
    const parts = { Parts: [{ PartNumber: 1, ETag: part.ETag }] };
    const secret = (await admin.send(new HeadObjectCommand({ Bucket: B, Key: 's.txt' }))).ETag!;

    // Conditional deletes naming the admin's current etags (or *), one key and many.
    expect(await s3Failure(other.send(new DeleteObjectCommand({ Bucket: B, Key: 's.txt', IfMatch: secret })))).toEqual(NO_BUCKET);
    expect(await s3Failure(other.send(new DeleteObjectCommand({ Bucket: B, Key: 's.txt', IfMatch: '*' })))).toEqual(NO_BUCKET);
    expect(await s3Failure(other.send(new DeleteObjectsCommand({
      Bucket: B, Delete: { Objects: [{ Key: 's.txt', ETag: secret }, { Key: 'parts.bin', ETag: object.ETag }, { Key: 'pending.bin' }] },
    })))).toEqual(NO_BUCKET);
    // partNumber reads, in range and out of it: the second key learns neither the object nor its part count.
    expect(await s3Failure(other.send(new GetObjectCommand({ Bucket: B, Key: 'parts.bin', PartNumber: 1 })))).toEqual(NO_BUCKET);
    expect(await s3Failure(other.send(new GetObjectCommand({ Bucket: B, Key: 'parts.bin', PartNumber: 3 })))).toEqual(NO_BUCKET);
    expect(await s3Failure(other.send(new HeadObjectCommand({ Bucket: B, Key: 'parts.bin', PartNumber: 2 })))).toEqual({ name: 'NotFound', status: 404 });
    // Conditional completions of the admin's upload, and a plain repeat of the admin's finished one.
    expect(await s3Failure(other.send(new CompleteMultipartUploadCommand({ Bucket: B, Key: 'pending.bin', UploadId: pending, MultipartUpload: parts, IfNoneMatch: '*' })))).toEqual(NO_BUCKET);
    expect(await s3Failure(other.send(new CompleteMultipartUploadCommand({ Bucket: B, Key: 'parts.bin', UploadId: pending, MultipartUpload: parts, IfMatch: object.ETag })))).toEqual(NO_BUCKET);
    expect(await s3Failure(other.send(new CompleteMultipartUploadCommand({ Bucket: B, Key: 'parts.bin', UploadId: made, MultipartUpload: { Parts: [{ PartNumber: 1, ETag: p1.ETag }, { PartNumber: 2, ETag: p2.ETag }] } })))).toEqual(NO_BUCKET);
    // From the second key's own bucket the admin's upload id names nothing.
    expect(await s3Failure(other.send(new CompleteMultipartUploadCommand({ Bucket: 'own-bucket', Key: 'pending.bin', UploadId: pending, MultipartUpload: parts, IfNoneMatch: '*' })))).toEqual({ name: 'NoSuchUpload', status: 404 });
    expect(await s3Failure(other.send(new GetObjectCommand({ Bucket: 'own-bucket', Key: 'parts.bin', PartNumber: 1 })))).toEqual({ name: 'NoSuchKey', status: 404 });

    // Nothing of the admin's changed: objects, part layout and the pending upload, which the admin still completes.
    expect(await (await admin.send(new GetObjectCommand({ Bucket: B, Key: 's.txt' }))).Body!.transformToString()).toBe('secret');
    const second = await admin.send(new GetObjectCommand({ Bucket: B, Key: 'parts.bin', PartNumber: 2 }));
    expect(second.PartsCount).toBe(2);
    expect(await second.Body!.transformToString()).toBe('tail');
    const done = await admin.send(new CompleteMultipartUploadCommand({ Bucket: B, Key: 'pending.bin', UploadId: pending, MultipartUpload: parts, IfNoneMatch: '*' }));
    expect(await (await admin.send(new GetObjectCommand({ Bucket: B, Key: 'pending.bin' }))).Body!.transformToString()).toBe('pending');
    expect((await admin.send(new HeadObjectCommand({ Bucket: B, Key: 'pending.bin' }))).ETag).toBe(done.ETag);
    const deleted = await admin.send(new DeleteObjectsCommand({ Bucket: B, Delete: { Objects: [{ Key: 'parts.bin', ETag: object.ETag }, { Key: 'pending.bin', ETag: done.ETag }] } }));
    expect(deleted.Deleted!.map((d) => d.Key).sort()).toEqual(['parts.bin', 'pending.bin']);
    expect((await admin.send(new ListObjectsV2Command({ Bucket: B }))).Contents!.map((o) => o.Key)).toEqual(['s.txt']);
  });

  it('pages and prefixes of ListBuckets hold only the key\'s own buckets', async () => {
    await admin.send(new CreateBucketCommand({ Bucket: 'own-admin-1' }));
    await other.send(new CreateBucketCommand({ Bucket: 'own-bucket-2' }));
    const names: string[] = [];
    let token: string | undefined;
    do {
      const page = await other.send(new ListBucketsCommand({ MaxBuckets: 1, ...(token ? { ContinuationToken: token } : {}) }));
      names.push(...page.Buckets!.map((b) => b.Name!));
      token = page.ContinuationToken;
    } while (token);
    expect(names).toEqual(['own-bucket', 'own-bucket-2']);
    expect((await other.send(new ListBucketsCommand({ Prefix: 'own-' }))).Buckets!.map((b) => b.Name)).toEqual(['own-bucket', 'own-bucket-2']);
    expect((await other.send(new ListBucketsCommand({ Prefix: 'admin' }))).Buckets ?? []).toEqual([]);
    // A token naming a position in the admin's names still lists only the second account's buckets after it.
    const admins = await admin.send(new ListBucketsCommand({ MaxBuckets: 1 }));
    expect(admins.Buckets!.map((b) => b.Name)).toEqual(['admin-private']);
    const after = await other.send(new ListBucketsCommand({ ContinuationToken: admins.ContinuationToken! }));
    expect(after.Buckets!.map((b) => b.Name)).toEqual(['own-bucket', 'own-bucket-2']);
    expect((await admin.send(new ListBucketsCommand({ Prefix: 'own-' }))).Buckets!.map((b) => b.Name)).toEqual(['own-admin-1']);
    await admin.send(new DeleteBucketCommand({ Bucket: 'own-admin-1' }));
    await other.send(new DeleteBucketCommand({ Bucket: 'own-bucket-2' }));
  });

  it("a presigned URL of the second key cannot read another account's object", async () => {
    const base = new URL(server.running.s3Url!);
    const res = await fetch(await presignWith(otherKeys, 'GET', base, '/admin-private/s.txt'));
    expect(res.status).toBe(404);
    expect(await res.text()).toContain('<Code>NoSuchBucket</Code>');
    await other.send(new PutObjectCommand({ Bucket: 'own-bucket', Key: 'mine.txt', Body: 'mine' }));
    const own = await fetch(await presignWith(otherKeys, 'GET', base, '/own-bucket/mine.txt'));
    expect(await own.text()).toBe('mine');
  });

  it('names are per account: the second account creates a bucket with the name the admin uses', async () => {
    await other.send(new CreateBucketCommand({ Bucket: 'admin-private' }));
    await other.send(new PutObjectCommand({ Bucket: 'admin-private', Key: 's.txt', Body: 'second copy' }));
    expect(await (await other.send(new GetObjectCommand({ Bucket: 'admin-private', Key: 's.txt' }))).Body!.transformToString()).toBe('second copy');
    expect(await (await admin.send(new GetObjectCommand({ Bucket: 'admin-private', Key: 's.txt' }))).Body!.transformToString()).toBe('secret');
    // Creating it again is BucketAlreadyOwnedByYou for the owner only.
    expect(await s3Failure(other.send(new CreateBucketCommand({ Bucket: 'admin-private' })))).toEqual({ name: 'BucketAlreadyOwnedByYou', status: 409 });
    await other.send(new DeleteObjectCommand({ Bucket: 'admin-private', Key: 's.txt' }));
    await other.send(new DeleteBucketCommand({ Bucket: 'admin-private' }));
    expect(await (await admin.send(new GetObjectCommand({ Bucket: 'admin-private', Key: 's.txt' }))).Body!.transformToString()).toBe('secret');
  });

  it('resolves the account from the host: <account>.<domain> and <bucket>.<account>.<domain>', async () => {
    const adminAccount = server.running.adminAccountId;
    // Path-style below the account's host name.
    const mine = hosted(`${otherAccount}.s3.localhost`, otherKeys);
    expect((await mine.send(new ListBucketsCommand({}))).Buckets!.map((b) => b.Name)).toContain('own-bucket');
    expect(await (await mine.send(new GetObjectCommand({ Bucket: 'own-bucket', Key: 'mine.txt' }))).Body!.transformToString()).toBe('mine');
    expect(resolver.names).toContain(`own-bucket.${otherAccount}.s3.localhost`);
    const adminHosted = hosted(`${adminAccount}.s3.localhost`);
    expect(await (await adminHosted.send(new GetObjectCommand({ Bucket: 'admin-private', Key: 's.txt' }))).Body!.transformToString()).toBe('secret');
    // A key naming an account it does not act for is refused, whether or not the account exists.
    const intruder = hosted(`${adminAccount}.s3.localhost`, otherKeys);
    expect(await s3Failure(intruder.send(new GetObjectCommand({ Bucket: 'admin-private', Key: 's.txt' })))).toEqual({ name: 'AccessDenied', status: 403 });
    expect(await s3Failure(intruder.send(new ListBucketsCommand({})))).toEqual({ name: 'AccessDenied', status: 403 });
    const nowhere = hosted(`${'0'.repeat(32)}.s3.localhost`, otherKeys);
    expect(await s3Failure(nowhere.send(new ListBucketsCommand({})))).toEqual({ name: 'AccessDenied', status: 403 });
  });
});
