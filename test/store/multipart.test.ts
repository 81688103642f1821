import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createHash } from 'node:crypto';
import type { BucketStore, StoreBucket, StoreObjectBody } from '../../src/store/types.js';
import { openBucketStore } from '../../src/store/open.js';
import { bytes, openTemp, rejection, tempDir } from './helpers.js';

const MiB = 1024 * 1024;
const md5 = (d: Uint8Array) => createHash('md5').update(d).digest('hex');

let store: BucketStore;
let b: StoreBucket;
beforeEach(async () => {
  ({ store } = await openTemp());
  b = store.bucket('mp');
});
afterEach(async () => store.close());

describe('multipart', () => {
  it('uploads, completes with the md5-of-md5s etag, reads across part boundaries', async () => {
    const p1 = bytes(5 * MiB, 1);
    const p2 = bytes(5 * MiB, 2);
    const p3 = bytes(1000, 3);
    const up = await b.createMultipartUpload('obj', { httpMetadata: { contentType: 'a/b' }, customMetadata: { x: 'y' } });
    expect(Object.keys(up)).toEqual(['key', 'uploadId']);
    const r2 = await up.uploadPart(2, p2);
    const r1 = await up.uploadPart(1, p1);
    const r3 = await up.uploadPart(3, p3);
    expect(r1).toEqual({ partNumber: 1, etag: md5(p1) });
    expect(Object.keys(r1)).toEqual(['partNumber', 'etag']);
    expect((await rejection(up.complete([r2, r3, r1]))).message).toMatch(/\(10011\)$/);
    const obj = await up.complete([r2, r1, r3]);
    const expectedEtag = createHash('md5').update(Buffer.concat([p1, p2, p3].map((p) => Buffer.from(md5(p), 'hex')))).digest('hex') + '-3';
    expect(obj.etag).toBe(expectedEtag);
    expect(obj.size).toBe(10 * MiB + 1000);
    expect(obj.checksums.toJSON()).toEqual({});
    expect(obj.range).toBeUndefined();
    expect(obj.httpMetadata).toEqual({ contentType: 'a/b' });
    const whole = (await b.get('obj')) as StoreObjectBody;
    expect(md5(await whole.bytes())).toBe(md5(Buffer.concat([p1, p2, p3])));
    const across = (await b.get('obj', { range: { offset: 5 * MiB - 3, length: 6 } })) as StoreObjectBody;
    expect(Buffer.from(await across.bytes())).toEqual(Buffer.concat([p1.subarray(-3), p2.subarray(0, 3)]));
    const tail = (await b.get('obj', { range: { suffix: 10 } })) as StoreObjectBody;
    expect(Buffer.from(await tail.bytes())).toEqual(Buffer.from(p3.subarray(-10)));
    // complete again / uploadPart after completion: 10024; abort: silent no-op leaving the object
    expect((await rejection(up.complete([r1]))).message).toBe('completeMultipartUpload: The specified multipart upload does not exist. (10024)');
    expect((await rejection(up.uploadPart(4, 'x'))).message).toBe('uploadPart: The specified multipart upload does not exist. (10024)');
    await expect(up.abort()).resolves.toBeUndefined();
    expect((await b.head('obj'))!.etag).toBe(expectedEtag);
  });

  it('bogus ids: uploadPart 10024, complete and abort 10001; resume never throws', async () => {
    const up = b.resumeMultipartUpload('k'.repeat(2000), 'nope');
    expect(up.key.length).toBe(2000);
    const short = b.resumeMultipartUpload('k', 'nope');
    expect((await rejection(short.uploadPart(1, 'x'))).message).toBe('uploadPart: The specified multipart upload does not exist. (10024)');
    expect((await rejection(short.complete([]))).message).toBe('completeMultipartUpload: We encountered an internal error. Please try again. (10001)');
    expect((await rejection(short.abort())).message).toBe('abortMultipartUpload: We encountered an internal error. Please try again. (10001)');
    expect((await rejection(up.abort())).message).toBe('abortMultipartUpload: The specified object name is not valid. (10020)');
    const real = await b.createMultipartUpload('k');
    const wrongKey = b.resumeMultipartUpload('other', real.uploadId);
    expect((await rejection(wrongKey.uploadPart(1, 'x'))).message).toMatch(/10024/);
  });

  it('client checks: part numbers, null value, complete argument', async () => {
    const up = await b.createMultipartUpload('k');
    expect(await rejection(up.uploadPart(0, 'x'))).toEqual(new TypeError('Part number must be between 1 and 10000 (inclusive). Actual value was: 0'));
    expect(await rejection(up.uploadPart(1, null as unknown as string))).toBeInstanceOf(TypeError);
    expect(await rejection(up.complete('x' as unknown as []))).toEqual(
      new TypeError("Failed to execute 'complete' on 'R2MultipartUpload': parameter 1 is not of type 'Array'."),
    );
    expect(await rejection(up.complete([{ partNumber: 10001, etag: 'x' }]))).toBeInstanceOf(TypeError);
  });

  it('abort discards parts; re-upload replaces a part; unlisted parts are dropped', async () => {
    const up = await b.createMultipartUpload('k');
    const first = await up.uploadPart(1, 'one');
    const again = await up.uploadPart(1, 'uno');
    expect(again.etag).not.toBe(first.etag);
    expect((await rejection(up.complete([first]))).message).toMatch(/\(10025\)$/);
    await up.uploadPart(2, 'dos');
    const obj = await up.complete([again]);
    expect(obj.size).toBe(3);
    expect(await ((await b.get('k')) as StoreObjectBody).text()).toBe('uno');
    const up2 = await b.createMultipartUpload('k2');
    await up2.uploadPart(1, 'x');
    await up2.abort();
    await up2.abort();
    expect((await rejection(up2.uploadPart(1, 'x'))).message).toMatch(/10024/);
    expect(await b.head('k2')).toBeNull();
  });

  it('in-progress uploads are invisible; overwriting a multipart object discards it', async () => {
    const up = await b.createMultipartUpload('k');
    await up.uploadPart(1, 'abc');
    expect(await b.head('k')).toBeNull();
    expect((await b.list()).objects).toEqual([]);
    await up.complete([{ partNumber: 1, etag: createHash('md5').update('abc').digest('hex') }]);
    await b.put('k', 'plain');
    expect(await ((await b.get('k')) as StoreObjectBody).text()).toBe('plain');
  });

  it('uploads expire 7 days after creation (lazily and by the sweep)', async () => {
    let now = Date.UTC(2025, 0, 1);
    const dir = tempDir();
    const s = await openBucketStore({ dataDir: dir, clock: { now: () => new Date(now) }, sweepOnOpen: false });
    try {
      const bucket = s.bucket('exp');
      const lazy = await bucket.createMultipartUpload('a');
      const swept = await bucket.createMultipartUpload('b');
      await lazy.uploadPart(1, 'x');
      now += 7 * 24 * 3600 * 1000 - 1;
      await lazy.uploadPart(2, 'y');
      now += 2;
      expect((await rejection(lazy.uploadPart(3, 'z'))).message).toMatch(/10024/);
      expect((await rejection(lazy.complete([]))).message).toMatch(/10024/);
      const report = await s.sweep();
      expect(report.expiredUploads).toBe(1); // "a" was already aborted lazily on access
      expect((await rejection(swept.uploadPart(1, 'z'))).message).toMatch(/10024/);
    } finally {
      await s.close();
    }
  });
});
