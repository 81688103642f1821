/**
 * Answers S3 clients depend on: copies of SSE-C objects (CopyObject, UploadPartCopy), `partNumber` reads,
 * ListBuckets paging, ranges of an empty object, non-ASCII metadata, ListObjects v1 with `encoding-type=url`.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHash, randomBytes } from 'node:crypto';
import { request as httpRequest } from 'node:http';
import {
  CompleteMultipartUploadCommand, CopyObjectCommand, CreateBucketCommand, CreateMultipartUploadCommand, GetObjectCommand,
  HeadObjectCommand, ListBucketsCommand, PutObjectCommand, type S3Client, UploadPartCommand, UploadPartCopyCommand,
} from '@aws-sdk/client-s3';
import { signedHeaders } from '../helpers/s3-sign.js';
import { s3Failure, testS3Client } from '../helpers/s3-sdk.js';
import { openBucketStore, type BucketNamespace, type BucketStore } from '../../src/index.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

let server: TestServer;
let s3: S3Client;
let base: URL;
let store: BucketStore;
/** The admin's buckets (the account the test's S3 key acts for), as the binding sees them. */
let binding: BucketNamespace;
const BUCKET = 'answers';
const MiB = 1024 * 1024;

function ssec(key: Buffer) {
  return { SSECustomerAlgorithm: 'AES256', SSECustomerKey: key.toString('base64'), SSECustomerKeyMD5: createHash('md5').update(key).digest('base64') };
}

function copySourceSsec(key: Buffer) {
  const s = ssec(key);
  return { CopySourceSSECustomerAlgorithm: s.SSECustomerAlgorithm, CopySourceSSECustomerKey: s.SSECustomerKey, CopySourceSSECustomerKeyMD5: s.SSECustomerKeyMD5 };
}

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

describe('SSE-C copies', () => {
  it('CopyObject reads an SSE-C source with the copy-source key and writes with the destination key', async () => {
    const source = randomBytes(32);
    const dest = randomBytes(32);
    await s3.send(new PutObjectCommand({ Bucket: BUCKET, Key: 'ssec/src', Body: 'secret', ...ssec(source) }));
    expect((await s3Failure(s3.send(new CopyObjectCommand({ Bucket: BUCKET, Key: 'ssec/dst', CopySource: `${BUCKET}/ssec/src` })))).status).toBe(400);
    const copied = await s3.send(new CopyObjectCommand({ Bucket: BUCKET, Key: 'ssec/dst', CopySource: `${BUCKET}/ssec/src`, ...copySourceSsec(source), ...ssec(dest) }));
    expect(copied.SSECustomerKeyMD5).toBe(ssec(dest).SSECustomerKeyMD5);
    const got = await s3.send(new GetObjectCommand({ Bucket: BUCKET, Key: 'ssec/dst', ...ssec(dest) }));
    expect(await got.Body!.transformToString()).toBe('secret');
    // Decrypted on copy: a plain copy of an SSE-C object.
    await s3.send(new CopyObjectCommand({ Bucket: BUCKET, Key: 'ssec/plain', CopySource: `${BUCKET}/ssec/src`, ...copySourceSsec(source) }));
    expect(await (await s3.send(new GetObjectCommand({ Bucket: BUCKET, Key: 'ssec/plain' }))).Body!.transformToString()).toBe('secret');
  });

  it('UploadPartCopy from an SSE-C source into an SSE-C upload echoes the upload key', async () => {
    const key = randomBytes(32);
    await s3.send(new PutObjectCommand({ Bucket: BUCKET, Key: 'ssec/part-src', Body: 'part body', ...ssec(key) }));
    const { UploadId } = await s3.send(new CreateMultipartUploadCommand({ Bucket: BUCKET, Key: 'ssec/mp', ...ssec(key) }));
    const part = await s3.send(new UploadPartCopyCommand({
      Bucket: BUCKET, Key: 'ssec/mp', UploadId, PartNumber: 1, CopySource: `${BUCKET}/ssec/part-src`, ...copySourceSsec(key), ...ssec(key),
    }));
    expect(part.SSECustomerAlgorithm).toBe('AES256');
    expect(part.SSECustomerKeyMD5).toBe(ssec(key).SSECustomerKeyMD5);
    // Without the upload's key, or with only the source's, the part is refused.
    const partCopy = (extra: object) => s3.send(new UploadPartCopyCommand({ Bucket: BUCKET, Key: 'ssec/mp', UploadId, PartNumber: 2, CopySource: `${BUCKET}/ssec/part-src`, ...extra }));
    expect((await s3Failure(partCopy(copySourceSsec(key)))).status).toBe(400);
    await s3.send(new PutObjectCommand({ Bucket: BUCKET, Key: 'ssec/plain-src', Body: 'plain' }));
    expect((await s3Failure(s3.send(new UploadPartCopyCommand({ Bucket: BUCKET, Key: 'ssec/mp', UploadId, PartNumber: 2, CopySource: `${BUCKET}/ssec/plain-src` })))).status).toBe(400);
    expect((await s3Failure(s3.send(new UploadPartCopyCommand({ Bucket: BUCKET, Key: 'ssec/mp', UploadId, PartNumber: 2, CopySource: `${BUCKET}/ssec/plain-src`, ...copySourceSsec(key), ...ssec(key) })))).status).toBe(400);
    // Completion takes no key (as on S3), but a key it is given must be the upload's.
    const complete = { Bucket: BUCKET, Key: 'ssec/mp', UploadId, MultipartUpload: { Parts: [{ PartNumber: 1, ETag: part.CopyPartResult!.ETag! }] } };
    expect((await s3Failure(s3.send(new CompleteMultipartUploadCommand({ ...complete, ...ssec(randomBytes(32)) })))).status).toBe(400);
    await s3.send(new CompleteMultipartUploadCommand(complete));
    expect(await (await s3.send(new GetObjectCommand({ Bucket: BUCKET, Key: 'ssec/mp', ...ssec(key) }))).Body!.transformToString()).toBe('part body');
  });
});

describe('SSE-C and copy-range refusals', () => {
  it('an SSE-C key without its MD5 is refused, as S3 requires it', async () => {
    const key = randomBytes(32);
    const target = `/${BUCKET}/ssec/no-md5`;
    const headers = await signedHeaders('PUT', base, target, {
      'x-amz-content-sha256': 'UNSIGNED-PAYLOAD',
      'x-amz-server-side-encryption-customer-algorithm': 'AES256',
      'x-amz-server-side-encryption-customer-key': key.toString('base64'),
    });
    const res = await fetch(`${base.origin}${target}`, { method: 'PUT', headers, body: 'x' });
    expect(res.status).toBe(400);
    expect(await res.text()).toContain('<Code>InvalidArgument</Code>');
    expect((await s3Failure(s3.send(new HeadObjectCommand({ Bucket: BUCKET, Key: 'ssec/no-md5' })))).status).toBe(404);
  });

  it('a copy-source range past the end is InvalidRange (416); a malformed one InvalidArgument', async () => {
    await s3.send(new PutObjectCommand({ Bucket: BUCKET, Key: 'range/src', Body: '12345' }));
    const { UploadId } = await s3.send(new CreateMultipartUploadCommand({ Bucket: BUCKET, Key: 'range/dst' }));
    const copy = (CopySourceRange: string) => s3.send(new UploadPartCopyCommand({ Bucket: BUCKET, Key: 'range/dst', UploadId, PartNumber: 1, CopySource: `${BUCKET}/range/src`, CopySourceRange }));
    expect(await s3Failure(copy('bytes=0-21'))).toEqual({ name: 'InvalidRange', status: 416 });
    expect(await s3Failure(copy('bytes=3-1'))).toEqual({ name: 'InvalidArgument', status: 400 });
    const ok = await copy('bytes=1-3');
    expect(ok.CopyPartResult?.ETag).toBe(`"${createHash('md5').update('234').digest('hex')}"`);
  });
});

describe('partNumber reads', () => {
  it('GET and HEAD of one part of a multipart object, with the part count', async () => {
    const parts = [randomBytes(5 * MiB), randomBytes(5 * MiB), randomBytes(MiB)];
    const { UploadId } = await s3.send(new CreateMultipartUploadCommand({ Bucket: BUCKET, Key: 'parts/mp' }));
    const etags: string[] = [];
    for (const [i, body] of parts.entries()) {
      etags.push((await s3.send(new UploadPartCommand({ Bucket: BUCKET, Key: 'parts/mp', UploadId, PartNumber: i + 1, Body: body }))).ETag!);
    }
    const done = await s3.send(new CompleteMultipartUploadCommand({ Bucket: BUCKET, Key: 'parts/mp', UploadId, MultipartUpload: { Parts: etags.map((ETag, i) => ({ ETag, PartNumber: i + 1 })) } }));
    for (const [i, body] of parts.entries()) {
      const head = await s3.send(new HeadObjectCommand({ Bucket: BUCKET, Key: 'parts/mp', PartNumber: i + 1 }));
      expect(head.PartsCount).toBe(3);
      expect(head.ContentLength).toBe(body.length);
      expect(head.ETag).toBe(done.ETag);
      const got = await s3.send(new GetObjectCommand({ Bucket: BUCKET, Key: 'parts/mp', PartNumber: i + 1 }));
      expect(got.PartsCount).toBe(3);
      expect(got.ContentRange).toBe(`bytes ${i * 5 * MiB}-${i * 5 * MiB + body.length - 1}/${11 * MiB}`);
      expect(Buffer.from(await got.Body!.transformToByteArray()).equals(body)).toBe(true);
    }
    expect(await s3Failure(s3.send(new GetObjectCommand({ Bucket: BUCKET, Key: 'parts/mp', PartNumber: 4 })))).toEqual({ name: 'InvalidPartNumber', status: 416 });
  });

  it('part 1 of a single-part object is the object; part 2 does not exist', async () => {
    await s3.send(new PutObjectCommand({ Bucket: BUCKET, Key: 'parts/single', Body: 'body' }));
    const got = await s3.send(new GetObjectCommand({ Bucket: BUCKET, Key: 'parts/single', PartNumber: 1 }));
    expect(await got.Body!.transformToString()).toBe('body');
    expect(got.PartsCount).toBeUndefined();
    expect((await s3Failure(s3.send(new HeadObjectCommand({ Bucket: BUCKET, Key: 'parts/single', PartNumber: 2 })))).status).toBe(416);
    expect(await s3Failure(s3.send(new GetObjectCommand({ Bucket: BUCKET, Key: 'parts/none', PartNumber: 1 })))).toEqual({ name: 'NoSuchKey', status: 404 });
    expect((await s3Failure(s3.send(new GetObjectCommand({ Bucket: BUCKET, Key: 'parts/single', PartNumber: 1, Range: 'bytes=0-1' })))).status).toBe(400);
  });
});

describe('other answers', () => {
  it('ListBuckets honours max-buckets, prefix and continuation tokens', async () => {
    for (const name of ['lb-a', 'lb-b', 'lb-c']) await s3.send(new CreateBucketCommand({ Bucket: name }));
    const first = await s3.send(new ListBucketsCommand({ MaxBuckets: 2, Prefix: 'lb-' }));
    expect(first.Buckets?.map((b) => b.Name)).toEqual(['lb-a', 'lb-b']);
    expect(first.ContinuationToken).toBeDefined();
    const rest = await s3.send(new ListBucketsCommand({ MaxBuckets: 2, Prefix: 'lb-', ContinuationToken: first.ContinuationToken }));
    expect(rest.Buckets?.map((b) => b.Name)).toEqual(['lb-c']);
    expect(rest.ContinuationToken).toBeUndefined();
    expect((await s3Failure(s3.send(new ListBucketsCommand({ MaxBuckets: 0 })))).status).toBe(400);
  });

  it('a Range on an empty object is 416 InvalidRange', async () => {
    await s3.send(new PutObjectCommand({ Bucket: BUCKET, Key: 'empty', Body: '' }));
    expect(await s3Failure(s3.send(new GetObjectCommand({ Bucket: BUCKET, Key: 'empty', Range: 'bytes=0-' })))).toEqual({ name: 'InvalidRange', status: 416 });
    const whole = await s3.send(new GetObjectCommand({ Bucket: BUCKET, Key: 'empty' }));
    expect(whole.ContentLength).toBe(0);
  });

  it('non-ASCII metadata: stored as text, answered RFC 2047-encoded alike by GET and HEAD', async () => {
    // Latin-1 byte (what botocore sends for "é") and raw UTF-8 bytes (what curl sends).
    for (const [key, bytes] of [['meta/latin1', Buffer.from('Hello World\xe9', 'latin1')], ['meta/utf8', Buffer.from('Hello World\u00e9', 'utf8')]] as const) {
      const headers = await signedHeaders('PUT', base, `/${BUCKET}/${key}`, { 'x-amz-content-sha256': 'UNSIGNED-PAYLOAD', 'content-length': '1', 'x-amz-meta-greeting': bytes.toString('latin1') });
      const status = await new Promise<number>((resolve, reject) => {
        const req = httpRequest({ host: base.hostname, port: Number(base.port), method: 'PUT', path: `/${BUCKET}/${key}`, headers }, (res) => {
          res.resume();
          resolve(res.statusCode ?? 0);
        });
        req.on('error', reject);
        req.end(Buffer.from('x'));
      });
      expect(status).toBe(200);
      expect((await binding.bucket(BUCKET).head(key))!.customMetadata).toEqual({ greeting: 'Hello World\u00e9' });
      const encoded = `=?UTF-8?B?${Buffer.from('Hello World\u00e9').toString('base64')}?=`;
      expect((await s3.send(new GetObjectCommand({ Bucket: BUCKET, Key: key }))).Metadata).toEqual({ greeting: encoded });
      expect((await s3.send(new HeadObjectCommand({ Bucket: BUCKET, Key: key }))).Metadata).toEqual({ greeting: encoded });
    }
    // An encoded word is decoded when stored.
    await s3.send(new PutObjectCommand({ Bucket: BUCKET, Key: 'meta/word', Body: 'x', Metadata: { greeting: '=?UTF-8?B?w6l0w6k=?=' } }));
    expect((await binding.bucket(BUCKET).head('meta/word'))!.customMetadata).toEqual({ greeting: 'été' });
  });

  it('ListObjects v1 with encoding-type=url encodes keys but echoes Prefix as sent', async () => {
    await s3.send(new PutObjectCommand({ Bucket: BUCKET, Key: 'enc dir/a+b', Body: 'x' }));
    const target = `/${BUCKET}?encoding-type=url&prefix=enc%20dir%2F`;
    const res = await fetch(`${base.origin}${target}`, { headers: await signedHeaders('GET', base, target, { 'x-amz-content-sha256': 'UNSIGNED-PAYLOAD' }) });
    const xml = await res.text();
    expect(xml).toContain('<Prefix>enc dir/</Prefix>');
    expect(xml).toContain('<Key>enc%20dir/a%2Bb</Key>');
  });
});
