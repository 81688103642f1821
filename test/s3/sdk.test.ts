/**
 * The S3-compatible API driven by the official @aws-sdk/client-s3 against a real Stratus (startStratus on port
 * 0): buckets, objects with metadata, streaming bodies (aws-chunked with CRC32 trailers, as the SDK sends
 * them by default), checksums, ranges, preconditions, listing, copy, multipart, SSE-C, signatures, and the
 * same buckets seen through the binding.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHash, randomBytes } from 'node:crypto';
import { Readable } from 'node:stream';
import {
  AbortMultipartUploadCommand, CompleteMultipartUploadCommand, CopyObjectCommand, CreateBucketCommand,
  CreateMultipartUploadCommand, DeleteBucketCommand, DeleteObjectCommand, DeleteObjectsCommand, GetObjectCommand,
  HeadBucketCommand, HeadObjectCommand, ListBucketsCommand, ListMultipartUploadsCommand, ListObjectsCommand,
  ListObjectsV2Command, ListPartsCommand, PutObjectCommand, type S3Client, UploadPartCommand,
  UploadPartCopyCommand,
} from '@aws-sdk/client-s3';
import { presignedUrl as presign, signedHeaders } from '../helpers/s3-sign.js';
import { s3Failure, testS3Client } from '../helpers/s3-sdk.js';
import { openBucketStore, type BucketNamespace, type BucketStore } from '../../src/index.js';
import { startTestServer, TEST_S3_ACCESS_KEY_ID, TEST_S3_SECRET, type TestServer } from '../helpers/server.js';

let server: TestServer;
let s3: S3Client;
let opened: BucketStore;
/** The admin's buckets (those the instance key pair sees) through the binding. */
let binding: BucketNamespace;

function client(secret = TEST_S3_SECRET): S3Client {
  return testS3Client(server.running.s3Url!, { credentials: { accessKeyId: TEST_S3_ACCESS_KEY_ID, secretAccessKey: secret } });
}

const failure = s3Failure;

/** A presigned URL for this server, as @aws-sdk/s3-request-presigner makes it. */
const presignedUrl = (method: string, path: string, expiresIn = 300, signingDate = new Date()): Promise<string> =>
  presign(method, new URL(server.running.s3Url!), path, expiresIn, signingDate);

const md5 = (b: Uint8Array | string): string => createHash('md5').update(b).digest('hex');

beforeAll(async () => {
  server = await startTestServer();
  s3 = client();
  opened = await openBucketStore({ dataDir: server.dataDir });
  binding = opened.forAccount(server.running.adminAccountId);
});

afterAll(async () => {
  s3?.destroy();
  await opened?.close();
  await server?.stop();
});

describe('S3 API with @aws-sdk/client-s3', () => {
  it('creates, lists, heads and refuses bad or duplicate buckets', async () => {
    await s3.send(new CreateBucketCommand({ Bucket: 'alpha' }));
    expect(await failure(s3.send(new CreateBucketCommand({ Bucket: 'alpha' })))).toEqual({ name: 'BucketAlreadyOwnedByYou', status: 409 });
    expect(await failure(s3.send(new CreateBucketCommand({ Bucket: 'Bad_Name' })))).toEqual({ name: 'InvalidBucketName', status: 400 });
    const listed = await s3.send(new ListBucketsCommand({}));
    expect(listed.Buckets?.map((b) => b.Name)).toContain('alpha');
    expect(listed.Buckets?.find((b) => b.Name === 'alpha')?.CreationDate).toBeInstanceOf(Date);
    await s3.send(new HeadBucketCommand({ Bucket: 'alpha' }));
    expect((await failure(s3.send(new HeadBucketCommand({ Bucket: 'missing-bucket' })))).status).toBe(404);
    expect(await failure(s3.send(new GetObjectCommand({ Bucket: 'missing-bucket', Key: 'k' })))).toEqual({ name: 'NoSuchBucket', status: 404 });
  });

  it('puts and gets objects with their metadata; the etag is the MD5 of the body', async () => {
    const key = 'dir/ünïcode key+plus=eq~.txt';
    const put = await s3.send(new PutObjectCommand({
      Bucket: 'alpha', Key: key, Body: 'hello world', ContentType: 'text/plain', CacheControl: 'max-age=60',
      ContentDisposition: 'inline', Metadata: { owner: 'ops', 'Mixed-Case': 'v' },
    }));
    expect(put.ETag).toBe(`"${md5('hello world')}"`);
    const got = await s3.send(new GetObjectCommand({ Bucket: 'alpha', Key: key }));
    expect(await got.Body!.transformToString()).toBe('hello world');
    expect(got.ContentType).toBe('text/plain');
    expect(got.CacheControl).toBe('max-age=60');
    expect(got.ContentDisposition).toBe('inline');
    expect(got.ContentLength).toBe(11);
    expect(got.Metadata).toEqual({ owner: 'ops', 'mixed-case': 'v' });
    expect(got.ETag).toBe(put.ETag);
    const head = await s3.send(new HeadObjectCommand({ Bucket: 'alpha', Key: key }));
    expect(head.ContentLength).toBe(11);
    expect(head.LastModified).toBeInstanceOf(Date);
    expect(await failure(s3.send(new GetObjectCommand({ Bucket: 'alpha', Key: 'nope' })))).toEqual({ name: 'NoSuchKey', status: 404 });
    expect((await failure(s3.send(new HeadObjectCommand({ Bucket: 'alpha', Key: 'nope' })))).status).toBe(404);
  });

  it('streams a body of known length (aws-chunked with a CRC32 trailer) and reads it back intact', async () => {
    const bytes = randomBytes(6 * 1024 * 1024 + 123);
    const body = Readable.from((function* () {
      for (let at = 0; at < bytes.length; at += 100_000) yield bytes.subarray(at, at + 100_000);
    })());
    const put = await s3.send(new PutObjectCommand({ Bucket: 'alpha', Key: 'big.bin', Body: body, ContentLength: bytes.length }));
    expect(put.ETag).toBe(`"${md5(bytes)}"`);
    const got = await s3.send(new GetObjectCommand({ Bucket: 'alpha', Key: 'big.bin' }));
    expect(Buffer.from(await got.Body!.transformToByteArray()).equals(bytes)).toBe(true);
  });

  it('refuses a body whose checksum does not match, and stores nothing', async () => {
    const res = await failure(s3.send(new PutObjectCommand({ Bucket: 'alpha', Key: 'bad-sum', Body: 'data', ChecksumCRC32: 'AAAAAA==' })));
    expect(res).toEqual({ name: 'BadDigest', status: 400 });
    const md5Wrong = await failure(s3.send(new PutObjectCommand({ Bucket: 'alpha', Key: 'bad-sum', Body: 'data', ContentMD5: Buffer.alloc(16).toString('base64') })));
    expect(md5Wrong).toEqual({ name: 'BadDigest', status: 400 });
    expect((await failure(s3.send(new HeadObjectCommand({ Bucket: 'alpha', Key: 'bad-sum' })))).status).toBe(404);
    const ok = await s3.send(new PutObjectCommand({ Bucket: 'alpha', Key: 'good-sum', Body: 'data', ChecksumAlgorithm: 'SHA256' }));
    expect(ok.ETag).toBe(`"${md5('data')}"`);
  });

  it('serves ranges and read preconditions', async () => {
    await s3.send(new PutObjectCommand({ Bucket: 'alpha', Key: 'range.txt', Body: '0123456789' }));
    const part = await s3.send(new GetObjectCommand({ Bucket: 'alpha', Key: 'range.txt', Range: 'bytes=2-5' }));
    expect(await part.Body!.transformToString()).toBe('2345');
    expect(part.ContentRange).toBe('bytes 2-5/10');
    expect(part.$metadata.httpStatusCode).toBe(206);
    const suffix = await s3.send(new GetObjectCommand({ Bucket: 'alpha', Key: 'range.txt', Range: 'bytes=-3' }));
    expect(await suffix.Body!.transformToString()).toBe('789');
    const etag = `"${md5('0123456789')}"`;
    expect((await failure(s3.send(new GetObjectCommand({ Bucket: 'alpha', Key: 'range.txt', IfNoneMatch: etag })))).status).toBe(304);
    expect(await failure(s3.send(new GetObjectCommand({ Bucket: 'alpha', Key: 'range.txt', IfMatch: '"other"' })))).toEqual({ name: 'PreconditionFailed', status: 412 });
    const head = await s3.send(new HeadObjectCommand({ Bucket: 'alpha', Key: 'range.txt' }));
    // Last-Modified itself is "not modified since" and "unmodified since" (second granularity, inclusive).
    expect((await failure(s3.send(new GetObjectCommand({ Bucket: 'alpha', Key: 'range.txt', IfModifiedSince: head.LastModified })))).status).toBe(304);
    const same = await s3.send(new GetObjectCommand({ Bucket: 'alpha', Key: 'range.txt', IfUnmodifiedSince: head.LastModified, IfMatch: etag }));
    expect(await same.Body!.transformToString()).toBe('0123456789');
  });

  it('conditional puts: If-None-Match * creates only once, If-Match needs the current etag', async () => {
    await s3.send(new PutObjectCommand({ Bucket: 'alpha', Key: 'once', Body: 'first', IfNoneMatch: '*' }));
    expect(await failure(s3.send(new PutObjectCommand({ Bucket: 'alpha', Key: 'once', Body: 'second', IfNoneMatch: '*' })))).toEqual({ name: 'PreconditionFailed', status: 412 });
    expect(await failure(s3.send(new PutObjectCommand({ Bucket: 'alpha', Key: 'once', Body: 'third', IfMatch: '"nope"' })))).toEqual({ name: 'PreconditionFailed', status: 412 });
    await s3.send(new PutObjectCommand({ Bucket: 'alpha', Key: 'once', Body: 'fourth', IfMatch: `"${md5('first')}"` }));
    const got = await s3.send(new GetObjectCommand({ Bucket: 'alpha', Key: 'once' }));
    expect(await got.Body!.transformToString()).toBe('fourth');
  });

  it('lists with prefixes, delimiters and pages (v2 tokens, v1 markers)', async () => {
    await s3.send(new CreateBucketCommand({ Bucket: 'listing' }));
    const keys = ['a/1', 'a/2', 'b', 'c/x/1', 'c/y', 'd', 'é'];
    for (const Key of keys) await s3.send(new PutObjectCommand({ Bucket: 'listing', Key, Body: Key }));
    const top = await s3.send(new ListObjectsV2Command({ Bucket: 'listing', Delimiter: '/' }));
    expect(top.Contents?.map((o) => o.Key)).toEqual(['b', 'd', 'é']);
    expect(top.CommonPrefixes?.map((p) => p.Prefix)).toEqual(['a/', 'c/']);
    expect(top.KeyCount).toBe(5);
    expect(top.Contents?.[0]?.Size).toBe(1);
    expect(top.Contents?.[0]?.StorageClass).toBe('STANDARD');
    const seen: string[] = [];
    let token: string | undefined;
    do {
      const page = await s3.send(new ListObjectsV2Command({ Bucket: 'listing', MaxKeys: 3, ContinuationToken: token }));
      seen.push(...(page.Contents ?? []).map((o) => o.Key!));
      token = page.IsTruncated ? page.NextContinuationToken : undefined;
      if (page.IsTruncated) expect(page.Contents).toHaveLength(3);
    } while (token);
    expect(seen).toEqual(keys);
    const sub = await s3.send(new ListObjectsV2Command({ Bucket: 'listing', Prefix: 'c/', Delimiter: '/' }));
    expect(sub.Contents?.map((o) => o.Key)).toEqual(['c/y']);
    expect(sub.CommonPrefixes?.map((p) => p.Prefix)).toEqual(['c/x/']);
    const after = await s3.send(new ListObjectsV2Command({ Bucket: 'listing', StartAfter: 'c/y' }));
    expect(after.Contents?.map((o) => o.Key)).toEqual(['d', 'é']);
    const v1: string[] = [];
    let marker: string | undefined;
    do {
      const page = await s3.send(new ListObjectsCommand({ Bucket: 'listing', MaxKeys: 2, Delimiter: '/', Marker: marker }));
      v1.push(...(page.Contents ?? []).map((o) => o.Key!), ...(page.CommonPrefixes ?? []).map((p) => p.Prefix!));
      marker = page.IsTruncated ? page.NextMarker : undefined;
    } while (marker);
    expect(v1.sort()).toEqual(['a/', 'b', 'c/', 'd', 'é'].sort());
  });

  it('deletes one key or many, and a bucket only when empty', async () => {
    await s3.send(new CreateBucketCommand({ Bucket: 'doomed' }));
    for (const Key of ['x', 'y', 'z']) await s3.send(new PutObjectCommand({ Bucket: 'doomed', Key, Body: Key }));
    expect(await failure(s3.send(new DeleteBucketCommand({ Bucket: 'doomed' })))).toEqual({ name: 'BucketNotEmpty', status: 409 });
    await s3.send(new DeleteObjectCommand({ Bucket: 'doomed', Key: 'x' }));
    await s3.send(new DeleteObjectCommand({ Bucket: 'doomed', Key: 'x' }));
    const many = await s3.send(new DeleteObjectsCommand({ Bucket: 'doomed', Delete: { Objects: [{ Key: 'y' }, { Key: 'z' }, { Key: 'never' }] } }));
    expect(many.Deleted?.map((d) => d.Key).sort()).toEqual(['never', 'y', 'z']);
    await s3.send(new DeleteBucketCommand({ Bucket: 'doomed' }));
    expect((await failure(s3.send(new HeadBucketCommand({ Bucket: 'doomed' })))).status).toBe(404);
    expect(await failure(s3.send(new DeleteBucketCommand({ Bucket: 'doomed' })))).toEqual({ name: 'NoSuchBucket', status: 404 });
  });

  it('copies objects, keeping or replacing metadata', async () => {
    await s3.send(new PutObjectCommand({ Bucket: 'alpha', Key: 'orig', Body: 'copy me', ContentType: 'text/x-a', Metadata: { a: '1' } }));
    const kept = await s3.send(new CopyObjectCommand({ Bucket: 'alpha', Key: 'copy1', CopySource: 'alpha/orig' }));
    expect(kept.CopyObjectResult?.ETag).toBe(`"${md5('copy me')}"`);
    const c1 = await s3.send(new HeadObjectCommand({ Bucket: 'alpha', Key: 'copy1' }));
    expect(c1.ContentType).toBe('text/x-a');
    expect(c1.Metadata).toEqual({ a: '1' });
    await s3.send(new CopyObjectCommand({ Bucket: 'alpha', Key: 'copy2', CopySource: 'alpha/orig', MetadataDirective: 'REPLACE', ContentType: 'text/x-b', Metadata: { b: '2' } }));
    const c2 = await s3.send(new GetObjectCommand({ Bucket: 'alpha', Key: 'copy2' }));
    expect(await c2.Body!.transformToString()).toBe('copy me');
    expect(c2.ContentType).toBe('text/x-b');
    expect(c2.Metadata).toEqual({ b: '2' });
    expect(await failure(s3.send(new CopyObjectCommand({ Bucket: 'alpha', Key: 'orig', CopySource: 'alpha/orig' })))).toEqual({ name: 'InvalidRequest', status: 400 });
    expect(await failure(s3.send(new CopyObjectCommand({ Bucket: 'alpha', Key: 'c3', CopySource: 'alpha/missing' })))).toEqual({ name: 'NoSuchKey', status: 404 });
  });

  it('runs multipart uploads: the etag of the whole, listing of uploads in progress, abort, order errors', async () => {
    const created = await s3.send(new CreateMultipartUploadCommand({ Bucket: 'alpha', Key: 'mp.bin', ContentType: 'application/x-mp' }));
    const uploadId = created.UploadId!;
    const p1 = randomBytes(5 * 1024 * 1024);
    const p2 = randomBytes(1000);
    const r1 = await s3.send(new UploadPartCommand({ Bucket: 'alpha', Key: 'mp.bin', UploadId: uploadId, PartNumber: 1, Body: p1 }));
    const r2 = await s3.send(new UploadPartCommand({ Bucket: 'alpha', Key: 'mp.bin', UploadId: uploadId, PartNumber: 2, Body: p2 }));
    expect(r1.ETag).toBe(`"${md5(p1)}"`);
    const inProgress = await s3.send(new ListMultipartUploadsCommand({ Bucket: 'alpha' }));
    expect(inProgress.Uploads?.map((u) => [u.Key, u.UploadId])).toContainEqual(['mp.bin', uploadId]);
    expect(await failure(s3.send(new CompleteMultipartUploadCommand({
      Bucket: 'alpha', Key: 'mp.bin', UploadId: uploadId, MultipartUpload: { Parts: [{ PartNumber: 2, ETag: r2.ETag }, { PartNumber: 1, ETag: r1.ETag }] },
    })))).toEqual({ name: 'InvalidPartOrder', status: 400 });
    const done = await s3.send(new CompleteMultipartUploadCommand({
      Bucket: 'alpha', Key: 'mp.bin', UploadId: uploadId, MultipartUpload: { Parts: [{ PartNumber: 1, ETag: r1.ETag }, { PartNumber: 2, ETag: r2.ETag }] },
    }));
    const whole = createHash('md5').update(Buffer.concat([Buffer.from(md5(p1), 'hex'), Buffer.from(md5(p2), 'hex')])).digest('hex');
    expect(done.ETag).toBe(`"${whole}-2"`);
    const got = await s3.send(new GetObjectCommand({ Bucket: 'alpha', Key: 'mp.bin' }));
    expect(got.ContentType).toBe('application/x-mp');
    expect(Buffer.from(await got.Body!.transformToByteArray()).equals(Buffer.concat([p1, p2]))).toBe(true);

    const aborted = await s3.send(new CreateMultipartUploadCommand({ Bucket: 'alpha', Key: 'gone.bin' }));
    await s3.send(new AbortMultipartUploadCommand({ Bucket: 'alpha', Key: 'gone.bin', UploadId: aborted.UploadId! }));
    const after = await s3.send(new ListMultipartUploadsCommand({ Bucket: 'alpha' }));
    expect(after.Uploads ?? []).toEqual([]);
    expect((await failure(s3.send(new UploadPartCommand({ Bucket: 'alpha', Key: 'gone.bin', UploadId: aborted.UploadId!, PartNumber: 1, Body: 'x' })))).name).toBe('NoSuchUpload');
  });

  it('encrypts with SSE-C: the key is needed to read', async () => {
    const key = randomBytes(32);
    const keyMd5 = createHash('md5').update(key).digest('base64');
    const ssec = { SSECustomerAlgorithm: 'AES256', SSECustomerKey: key.toString('base64'), SSECustomerKeyMD5: keyMd5 };
    const put = await s3.send(new PutObjectCommand({ Bucket: 'alpha', Key: 'secret', Body: 'top secret', ...ssec }));
    expect(put.SSECustomerKeyMD5).toBe(keyMd5);
    const got = await s3.send(new GetObjectCommand({ Bucket: 'alpha', Key: 'secret', ...ssec }));
    expect(await got.Body!.transformToString()).toBe('top secret');
    expect(got.SSECustomerKeyMD5).toBe(keyMd5);
    expect((await failure(s3.send(new GetObjectCommand({ Bucket: 'alpha', Key: 'secret' })))).status).toBe(400);
    const other = randomBytes(32);
    expect((await failure(s3.send(new GetObjectCommand({
      Bucket: 'alpha', Key: 'secret', SSECustomerAlgorithm: 'AES256', SSECustomerKey: other.toString('base64'),
      SSECustomerKeyMD5: createHash('md5').update(other).digest('base64'),
    })))).status).toBe(400);
    const head = await s3.send(new HeadObjectCommand({ Bucket: 'alpha', Key: 'secret', ...ssec }));
    expect(head.ContentLength).toBe(10);
    expect(head.SSECustomerKeyMD5).toBe(keyMd5);
    expect((await failure(s3.send(new HeadObjectCommand({ Bucket: 'alpha', Key: 'secret' })))).status).toBe(400);
    const stored = await binding.bucket('alpha').head('secret');
    expect(stored?.ssecKeyMd5).toBeDefined();
  });

  it('refuses wrong secrets and unsigned requests', async () => {
    const bad = client('not-the-secret');
    try {
      expect(await failure(bad.send(new ListBucketsCommand({})))).toEqual({ name: 'SignatureDoesNotMatch', status: 403 });
    } finally {
      bad.destroy();
    }
    const anonymous = await fetch(`${server.running.s3Url}/alpha/orig`);
    expect(anonymous.status).toBe(403);
    expect(await anonymous.text()).toContain('<Code>AccessDenied</Code>');
  });

  it('shares buckets with the binding: what a script writes, S3 reads, and back', async () => {
    const bucket = binding.bucket('script-bucket');
    await bucket.put('from-script', 'written by a script', { customMetadata: { via: 'binding' } });
    const listed = await s3.send(new ListBucketsCommand({}));
    expect(listed.Buckets?.map((b) => b.Name)).toContain('script-bucket');
    const got = await s3.send(new GetObjectCommand({ Bucket: 'script-bucket', Key: 'from-script' }));
    expect(await got.Body!.transformToString()).toBe('written by a script');
    expect(got.Metadata).toEqual({ via: 'binding' });
    await s3.send(new PutObjectCommand({ Bucket: 'script-bucket', Key: 'from-s3', Body: 'written over S3', ContentType: 'text/plain' }));
    const seen = await bucket.get('from-s3');
    expect(seen && 'text' in seen ? await seen.text() : null).toBe('written over S3');
    expect(seen?.httpMetadata?.contentType).toBe('text/plain');
  });

  it('answers presigned GET and PUT URLs, and refuses them once expired', async () => {
    const put = await fetch(await presignedUrl('PUT', '/alpha/presigned%20file.txt'), { method: 'PUT', body: 'via a presigned URL' });
    expect(put.status).toBe(200);
    const get = await fetch(await presignedUrl('GET', '/alpha/presigned%20file.txt'));
    expect(await get.text()).toBe('via a presigned URL');
    const expired = await fetch(await presignedUrl('GET', '/alpha/presigned%20file.txt', 60, new Date(Date.now() - 3_600_000)));
    expect(expired.status).toBe(403);
    expect(await expired.text()).toContain('<Code>AccessDenied</Code>');
  });

  it('lists the parts of an upload and copies parts from stored objects', async () => {
    const source = randomBytes(6 * 1024 * 1024);
    await s3.send(new PutObjectCommand({ Bucket: 'alpha', Key: 'copy-source.bin', Body: source }));
    const { UploadId } = await s3.send(new CreateMultipartUploadCommand({ Bucket: 'alpha', Key: 'assembled.bin' }));
    const first = await s3.send(new UploadPartCopyCommand({
      Bucket: 'alpha', Key: 'assembled.bin', UploadId, PartNumber: 1, CopySource: 'alpha/copy-source.bin', CopySourceRange: `bytes=0-${5 * 1024 * 1024 - 1}`,
    }));
    expect(first.CopyPartResult?.ETag).toBe(`"${md5(source.subarray(0, 5 * 1024 * 1024))}"`);
    const tail = Buffer.from('tail');
    await s3.send(new UploadPartCommand({ Bucket: 'alpha', Key: 'assembled.bin', UploadId, PartNumber: 2, Body: tail }));
    const parts = await s3.send(new ListPartsCommand({ Bucket: 'alpha', Key: 'assembled.bin', UploadId }));
    expect(parts.Parts?.map((p) => [p.PartNumber, p.Size])).toEqual([[1, 5 * 1024 * 1024], [2, 4]]);
    const page = await s3.send(new ListPartsCommand({ Bucket: 'alpha', Key: 'assembled.bin', UploadId, MaxParts: 1 }));
    expect(page.IsTruncated).toBe(true);
    expect(page.NextPartNumberMarker).toBe('1');
    await s3.send(new CompleteMultipartUploadCommand({
      Bucket: 'alpha', Key: 'assembled.bin', UploadId, MultipartUpload: { Parts: parts.Parts!.map((p) => ({ PartNumber: p.PartNumber, ETag: p.ETag })) },
    }));
    const got = await s3.send(new GetObjectCommand({ Bucket: 'alpha', Key: 'assembled.bin' }));
    expect(Buffer.from(await got.Body!.transformToByteArray()).equals(Buffer.concat([source.subarray(0, 5 * 1024 * 1024), tail]))).toBe(true);
    expect(await failure(s3.send(new ListPartsCommand({ Bucket: 'alpha', Key: 'assembled.bin', UploadId })))).toEqual({ name: 'NoSuchUpload', status: 404 });
  });

  it('refuses an aws-chunked body whose trailing checksum is wrong, and stores nothing', async () => {
    const base = new URL(server.running.s3Url!);
    const body = '5\r\nhello\r\n0\r\nx-amz-checksum-crc32:AAAAAA==\r\n\r\n';
    const headers = {
      'content-encoding': 'aws-chunked', 'x-amz-content-sha256': 'STREAMING-UNSIGNED-PAYLOAD-TRAILER',
      'x-amz-decoded-content-length': '5', 'x-amz-trailer': 'x-amz-checksum-crc32', 'content-length': String(body.length),
    };
    const res = await fetch(`${base.origin}/alpha/trailer.txt`, { method: 'PUT', headers: await signedHeaders('PUT', base, '/alpha/trailer.txt', headers), body });
    expect(res.status).toBe(400);
    expect(await res.text()).toContain('<Code>BadDigest</Code>');
    expect((await failure(s3.send(new HeadObjectCommand({ Bucket: 'alpha', Key: 'trailer.txt' })))).status).toBe(404);
  });
});
