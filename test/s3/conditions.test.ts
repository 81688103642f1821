/**
 * S3 conditions are honoured or refused, never ignored: conditional DeleteObject (If-Match) and DeleteObjects
 * (per-object ETag), CompleteMultipartUpload with If-None-Match / If-Match, bare (unquoted) etags in PutObject
 * conditions as AWS accepts them; and the answers around completion: a repeated completion is answered again,
 * upload ids of any foreign form are NoSuchUpload.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHash } from 'node:crypto';
import {
  AbortMultipartUploadCommand, CompleteMultipartUploadCommand, CreateBucketCommand, CreateMultipartUploadCommand,
  DeleteObjectCommand, DeleteObjectsCommand, GetObjectCommand, HeadObjectCommand, ListMultipartUploadsCommand,
  PutObjectCommand, type S3Client, UploadPartCommand,
} from '@aws-sdk/client-s3';
import { signedHeaders } from '../helpers/s3-sign.js';
import { s3Failure, testS3Client } from '../helpers/s3-sdk.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

let server: TestServer;
let s3: S3Client;
let base: URL;
const BUCKET = 'conds';
const md5 = (s: string): string => createHash('md5').update(s).digest('hex');

async function raw(method: string, target: string, headers: Record<string, string> = {}, body?: string): Promise<Response> {
  const all = { 'x-amz-content-sha256': 'UNSIGNED-PAYLOAD', ...headers };
  return fetch(`${base.origin}${target}`, { method, headers: await signedHeaders(method, base, target, all), ...(body !== undefined ? { body } : {}) });
}

async function put(key: string, body: string): Promise<string> {
  return (await s3.send(new PutObjectCommand({ Bucket: BUCKET, Key: key, Body: body }))).ETag!;
}

async function exists(key: string): Promise<boolean> {
  try {
    await s3.send(new HeadObjectCommand({ Bucket: BUCKET, Key: key }));
    return true;
  } catch {
    return false;
  }
}

/** A one-part upload of `body` to `key`, not completed. */
async function startUpload(key: string, body: string): Promise<{ uploadId: string; etag: string }> {
  const { UploadId } = await s3.send(new CreateMultipartUploadCommand({ Bucket: BUCKET, Key: key }));
  const part = await s3.send(new UploadPartCommand({ Bucket: BUCKET, Key: key, UploadId, PartNumber: 1, Body: body }));
  return { uploadId: UploadId!, etag: part.ETag! };
}

beforeAll(async () => {
  server = await startTestServer();
  base = new URL(server.running.s3Url!);
  s3 = testS3Client(server.running.s3Url!);
  await s3.send(new CreateBucketCommand({ Bucket: BUCKET }));
});

afterAll(async () => {
  s3?.destroy();
  await server?.stop();
});

describe('conditional deletes', () => {
  it('DeleteObject with If-Match deletes only the object with that etag', async () => {
    const etag = await put('del/a', 'one');
    expect(await s3Failure(s3.send(new DeleteObjectCommand({ Bucket: BUCKET, Key: 'del/a', IfMatch: '"badetag"' })))).toEqual({ name: 'PreconditionFailed', status: 412 });
    expect(await exists('del/a')).toBe(true);
    await s3.send(new DeleteObjectCommand({ Bucket: BUCKET, Key: 'del/a', IfMatch: etag }));
    expect(await exists('del/a')).toBe(false);
  });

  it('If-Match on a missing key is NoSuchKey; If-Match: * deletes whatever is there', async () => {
    expect(await s3Failure(s3.send(new DeleteObjectCommand({ Bucket: BUCKET, Key: 'del/none', IfMatch: '*' })))).toEqual({ name: 'NoSuchKey', status: 404 });
    await put('del/b', 'two');
    await s3.send(new DeleteObjectCommand({ Bucket: BUCKET, Key: 'del/b', IfMatch: '*' }));
    expect(await exists('del/b')).toBe(false);
    // Bare etags, as AWS accepts them.
    await put('del/c', 'three');
    const res = await raw('DELETE', `/${BUCKET}/del/c`, { 'if-match': md5('three') });
    expect(res.status).toBe(204);
    expect(await exists('del/c')).toBe(false);
  });

  it('conditions DeleteObject cannot check are refused, and the object stays', async () => {
    await put('del/d', 'four');
    for (const headers of <Record<string, string>[]>[{ 'if-none-match': '*' }, { 'if-unmodified-since': new Date(0).toUTCString() }, { 'x-amz-if-match-size': '1' }]) {
      const res = await raw('DELETE', `/${BUCKET}/del/d`, headers);
      expect(res.status).toBe(501);
    }
    expect(await exists('del/d')).toBe(true);
  });

  it('DeleteObjects honours each object ETag and reports the refused ones', async () => {
    const etag = await put('many/ok', 'x');
    await put('many/stale', 'y');
    await put('many/plain', 'z');
    const out = await s3.send(new DeleteObjectsCommand({
      Bucket: BUCKET,
      Delete: { Objects: [{ Key: 'many/ok', ETag: etag }, { Key: 'many/stale', ETag: '"0123456789abcdef0123456789abcdef"' }, { Key: 'many/plain' }, { Key: 'many/gone', ETag: etag }] },
    }));
    expect(out.Deleted?.map((d) => d.Key).sort()).toEqual(['many/ok', 'many/plain']);
    expect(out.Errors?.map((e) => [e.Key, e.Code]).sort()).toEqual([['many/gone', 'NoSuchKey'], ['many/stale', 'PreconditionFailed']]);
    expect(await exists('many/stale')).toBe(true);
    expect(await exists('many/ok')).toBe(false);
  });
});

describe('PutObject conditions', () => {
  it('accepts etags without quotes, as AWS does', async () => {
    await put('put/a', 'v1');
    const good = await raw('PUT', `/${BUCKET}/put/a`, { 'if-match': md5('v1') }, 'v2');
    expect(good.status).toBe(200);
    const bad = await raw('PUT', `/${BUCKET}/put/a`, { 'if-match': md5('v1') }, 'v3');
    expect(bad.status).toBe(412);
    const none = await raw('PUT', `/${BUCKET}/put/a`, { 'if-none-match': md5('v2') }, 'v4');
    expect(none.status).toBe(412);
    const got = await s3.send(new GetObjectCommand({ Bucket: BUCKET, Key: 'put/a' }));
    expect(await got.Body!.transformToString()).toBe('v2');
  });

  it('If-Match on a key without an object is NoSuchKey, as S3 answers conditional writes', async () => {
    const res = await raw('PUT', `/${BUCKET}/put/none`, { 'if-match': '*' }, 'x');
    expect(res.status).toBe(404);
    expect(await res.text()).toContain('<Code>NoSuchKey</Code>');
    expect(await exists('put/none')).toBe(false);
  });

  it('an etag list that does not parse is a 400, never a 500', async () => {
    const res = await raw('PUT', `/${BUCKET}/put/b`, { 'if-match': '"' }, 'x');
    expect(res.status).toBe(400);
    expect(await exists('put/b')).toBe(false);
  });
});

describe('CompleteMultipartUpload', () => {
  it('If-None-Match: * refuses to overwrite an existing key and leaves the upload to retry', async () => {
    await put('mpu/exists', 'already here');
    const { uploadId, etag } = await startUpload('mpu/exists', 'replacement');
    const parts = { Parts: [{ PartNumber: 1, ETag: etag }] };
    expect(await s3Failure(s3.send(new CompleteMultipartUploadCommand({ Bucket: BUCKET, Key: 'mpu/exists', UploadId: uploadId, MultipartUpload: parts, IfNoneMatch: '*' }))))
      .toEqual({ name: 'PreconditionFailed', status: 412 });
    const kept = await s3.send(new GetObjectCommand({ Bucket: BUCKET, Key: 'mpu/exists' }));
    expect(await kept.Body!.transformToString()).toBe('already here');
    const uploads = await s3.send(new ListMultipartUploadsCommand({ Bucket: BUCKET, Prefix: 'mpu/exists' }));
    expect(uploads.Uploads?.map((u) => u.UploadId)).toEqual([uploadId]);
    // If-Match with the current etag completes.
    const current = (await s3.send(new HeadObjectCommand({ Bucket: BUCKET, Key: 'mpu/exists' }))).ETag!;
    await s3.send(new CompleteMultipartUploadCommand({ Bucket: BUCKET, Key: 'mpu/exists', UploadId: uploadId, MultipartUpload: parts, IfMatch: current }));
    const now = await s3.send(new GetObjectCommand({ Bucket: BUCKET, Key: 'mpu/exists' }));
    expect(await now.Body!.transformToString()).toBe('replacement');
  });

  it('If-None-Match: * completes onto a free key; If-Match on a missing key is NoSuchKey', async () => {
    const a = await startUpload('mpu/free', 'fresh');
    await s3.send(new CompleteMultipartUploadCommand({ Bucket: BUCKET, Key: 'mpu/free', UploadId: a.uploadId, MultipartUpload: { Parts: [{ PartNumber: 1, ETag: a.etag }] }, IfNoneMatch: '*' }));
    expect(await exists('mpu/free')).toBe(true);
    const b = await startUpload('mpu/absent', 'x');
    expect(await s3Failure(s3.send(new CompleteMultipartUploadCommand({ Bucket: BUCKET, Key: 'mpu/absent', UploadId: b.uploadId, MultipartUpload: { Parts: [{ PartNumber: 1, ETag: b.etag }] }, IfMatch: '"abc"' })))).toEqual({ name: 'NoSuchKey', status: 404 });
    expect(await exists('mpu/absent')).toBe(false);
  });

  it('a repeated completion answers the same object; after an overwrite it is NoSuchUpload', async () => {
    const { uploadId, etag } = await startUpload('mpu/again', 'body');
    const input = { Bucket: BUCKET, Key: 'mpu/again', UploadId: uploadId, MultipartUpload: { Parts: [{ PartNumber: 1, ETag: etag }] } };
    const first = await s3.send(new CompleteMultipartUploadCommand(input));
    const second = await s3.send(new CompleteMultipartUploadCommand(input));
    expect(second.ETag).toBe(first.ETag);
    expect(second.Location).toBe(first.Location);
    await put('mpu/again', 'overwritten');
    expect(await s3Failure(s3.send(new CompleteMultipartUploadCommand(input)))).toEqual({ name: 'NoSuchUpload', status: 404 });
  });

  it('upload ids of a foreign form are NoSuchUpload for complete, abort and parts', async () => {
    for (const id of ['abc1234def', '56788', '']) {
      const complete = await raw('POST', `/${BUCKET}/mpu/foreign?uploadId=${id}`, {}, '<CompleteMultipartUpload><Part><PartNumber>1</PartNumber><ETag>"x"</ETag></Part></CompleteMultipartUpload>');
      expect(complete.status).toBe(404);
      expect(await complete.text()).toContain('<Code>NoSuchUpload</Code>');
      expect(await s3Failure(s3.send(new AbortMultipartUploadCommand({ Bucket: BUCKET, Key: 'mpu/foreign', UploadId: id || 'x' })))).toEqual({ name: 'NoSuchUpload', status: 404 });
    }
    const part = await raw('PUT', `/${BUCKET}/mpu/foreign?partNumber=1&uploadId=56788`, {}, 'p');
    expect(part.status).toBe(404);
  });

  it('a part number listed again right after itself counts once, with its last etag; a decrease is InvalidPartOrder', async () => {
    const { UploadId } = await s3.send(new CreateMultipartUploadCommand({ Bucket: BUCKET, Key: 'mpu/dup' }));
    const first = await s3.send(new UploadPartCommand({ Bucket: BUCKET, Key: 'mpu/dup', UploadId, PartNumber: 1, Body: 'BBBB' }));
    const second = await s3.send(new UploadPartCommand({ Bucket: BUCKET, Key: 'mpu/dup', UploadId, PartNumber: 1, Body: 'AAAA' }));
    const base = { Bucket: BUCKET, Key: 'mpu/dup', UploadId };
    expect(await s3Failure(s3.send(new CompleteMultipartUploadCommand({ ...base, MultipartUpload: { Parts: [{ PartNumber: 1, ETag: second.ETag }, { PartNumber: 1, ETag: first.ETag }] } }))))
      .toEqual({ name: 'InvalidPart', status: 400 });
    await s3.send(new CompleteMultipartUploadCommand({ ...base, MultipartUpload: { Parts: [{ PartNumber: 1, ETag: first.ETag }, { PartNumber: 1, ETag: second.ETag }] } }));
    expect(await (await s3.send(new GetObjectCommand({ Bucket: BUCKET, Key: 'mpu/dup' }))).Body!.transformToString()).toBe('AAAA');
  });

  it('an aborted upload cannot be completed or aborted again', async () => {
    const { uploadId, etag } = await startUpload('mpu/aborted', 'x');
    await s3.send(new AbortMultipartUploadCommand({ Bucket: BUCKET, Key: 'mpu/aborted', UploadId: uploadId }));
    expect(await s3Failure(s3.send(new AbortMultipartUploadCommand({ Bucket: BUCKET, Key: 'mpu/aborted', UploadId: uploadId })))).toEqual({ name: 'NoSuchUpload', status: 404 });
    expect((await s3Failure(s3.send(new CompleteMultipartUploadCommand({ Bucket: BUCKET, Key: 'mpu/aborted', UploadId: uploadId, MultipartUpload: { Parts: [{ PartNumber: 1, ETag: etag }] } })))).status).toBe(404);
  });
});
