import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createHash } from 'node:crypto';
import type { BucketStore, StoreBucket, StoreObjectBody } from '../../src/store/types.js';
import { FixedLengthStream, withKnownLength } from '../../src/store/index.js';
import { openTemp, rejection } from './helpers.js';

const md5 = (s: string | Uint8Array) => createHash('md5').update(s).digest('hex');
let store: BucketStore;
let b: StoreBucket;
beforeEach(async () => {
  ({ store } = await openTemp());
  b = store.bucket('vals');
});
afterEach(async () => store.close());

const text = async (key: string) => ((await b.get(key)) as StoreObjectBody).text();

describe('put values', () => {
  it('accepts every value type', async () => {
    await b.put('s', 'é🙂');
    expect((await b.head('s'))!.size).toBe(6);
    await b.put('ab', new TextEncoder().encode('buf').buffer);
    await b.put('view', new DataView(new TextEncoder().encode('xview').buffer, 1));
    await b.put('blob', new Blob(['blobby'], { type: 'x/ignored' }));
    await b.put('null', null);
    await b.put('undef', undefined);
    const fixed = new FixedLengthStream(3);
    const w = fixed.writable.getWriter();
    void w.write(new TextEncoder().encode('abc')).then(() => w.close());
    await b.put('fls', fixed.readable);
    await b.put('known', withKnownLength(new Blob(['known']).stream(), 5));
    expect([await text('ab'), await text('view'), await text('blob'), await text('null'), await text('fls'), await text('known')]).toEqual([
      'buf',
      'view',
      'blobby',
      '',
      'abc',
      'known',
    ]);
    expect((await b.head('blob'))!.httpMetadata).toEqual({});
    expect((await b.head('undef'))!.etag).toBe('d41d8cd98f00b204e9800998ecf8427e');
    await b.put(123 as unknown as string, 'n');
    expect(await text('123')).toBe('n');
  });

  it('refuses streams of unknown length and wrong types', async () => {
    const plain = new ReadableStream({ pull: (c) => c.close() });
    expect(await rejection(b.put('x', plain))).toEqual(
      new TypeError('Provided readable stream must have a known length (request/response body or readable half of FixedLengthStream)'),
    );
    expect(await rejection(b.put('x', 5 as unknown as string))).toEqual(
      new TypeError("Failed to execute 'put' on 'R2Bucket': parameter 2 is not of type 'ReadableStream or ArrayBuffer or ArrayBufferView or string or Blob'."),
    );
    const short = withKnownLength(new Blob(['ab']).stream(), 5);
    expect(await rejection(b.put('x', short))).toEqual(new TypeError('FixedLengthStream did not see all expected bytes before close().'));
    expect(await b.head('x')).toBeNull();
  });

  it('a get body can be put again (known length)', async () => {
    await b.put('src', 'copy me');
    const got = (await b.get('src')) as StoreObjectBody;
    await b.put('dst', got.body);
    expect(await text('dst')).toBe('copy me');
    const [left, right] = ((await b.get('src')) as StoreObjectBody).body.tee();
    await b.put('left', left);
    await b.put('right', right);
    expect([await text('left'), await text('right')]).toEqual(['copy me', 'copy me']);
  });

  it('overwrite replaces metadata; put returns what was sent', async () => {
    const h = new Headers({ 'content-type': 'text/html', expires: 'Wed, 21 Oct 2015 07:28:00 GMT', etag: 'ignored' });
    const put = await b.put('k', 'v', { httpMetadata: h, customMetadata: { n: 1 as unknown as string } });
    expect(put!.httpMetadata).toEqual({ contentType: 'text/html', cacheExpiry: new Date('2015-10-21T07:28:00Z') });
    expect(put!.customMetadata).toEqual({ n: '1' });
    const again = await b.put('k', 'v2');
    expect(again!.httpMetadata).toEqual({});
    expect(again!.version).not.toBe(put!.version);
    expect((await b.head('k'))!.customMetadata).toEqual({});
  });

  it('hash options are verified and kept; BadDigest stores nothing', async () => {
    const sha = createHash('sha256').update('data').digest('hex');
    const put = await b.put('h', 'data', { sha256: sha.toUpperCase() });
    expect(put!.checksums.toJSON()).toEqual({ md5: md5('data'), sha256: sha });
    expect((await b.head('h'))!.checksums.toJSON()).toEqual({ md5: md5('data'), sha256: sha });
    const err = await rejection(b.put('bad', 'data', { md5: '0'.repeat(32) }));
    expect(err.message).toBe(
      `put: The MD5 checksum you specified did not match what we received.\nYou provided a MD5 checksum with value: ${'0'.repeat(32)}\nActual MD5 was: ${md5('data')} (10037)`,
    );
    expect(await b.head('bad')).toBeNull();
    await b.put('h', 'data');
    expect((await b.head('h'))!.checksums.toJSON()).toEqual({ md5: md5('data') });
  });

  it('limits: key bytes, custom metadata, storage class', async () => {
    await b.put('é'.repeat(512), 'ok');
    expect((await rejection(b.put('é'.repeat(513), 'x'))).message).toBe('put: The specified object name is not valid. (10020)');
    expect((await rejection(b.put('m', 'x', { customMetadata: { k: 'v'.repeat(8192) } }))).message).toBe(
      'put: Your metadata headers exceed the maximum allowed metadata size. (10012)',
    );
    await b.put('m', 'x', { customMetadata: { k: 'v'.repeat(8191) } });
    const ia = await b.put('ia', 'x', { storageClass: 'InfrequentAccess' });
    expect(ia!.storageClass).toBe('InfrequentAccess');
    expect((await rejection(b.put('sc', 'x', { storageClass: 'Glacier' }))).message).toMatch(/^put: .*storage class.* \(10029\)$/);
    const iaBucket = store.bucket('vals', { defaultStorageClass: 'InfrequentAccess' });
    expect((await iaBucket.put('d', 'x'))!.storageClass).toBe('InfrequentAccess');
    const huge = () => withKnownLength(new ReadableStream({ pull: (c) => c.close() }), 5 * 1024 ** 3 - 5 * 1024 ** 2 + 1);
    expect((await rejection(b.put('big', huge()))).message).toBe('put: Your proposed upload exceeds the maximum allowed object size. (100100)');
    const up = await b.createMultipartUpload('big');
    expect((await rejection(up.uploadPart(1, huge()))).message).toBe('uploadPart: Your proposed upload exceeds the maximum allowed object size. (100100)');
    // order: a bad key beats a bad digest
    expect((await rejection(b.put('x'.repeat(1025), 'x', { md5: '0'.repeat(32) }))).message).toMatch(/10020/);
  });

  it('delete: one key, arrays, missing keys, validation before deleting', async () => {
    await b.put('a', '1');
    await b.put('b', '2');
    await b.put('c', '3');
    await b.delete(['a', 'missing', 'a']);
    expect(await b.head('a')).toBeNull();
    expect((await rejection(b.delete(['b', 'x'.repeat(1025)]))).message).toBe('delete: The specified object name is not valid. (10020)');
    expect(await b.head('b')).not.toBeNull();
    await b.delete([]);
    expect((await rejection(b.delete(Array.from({ length: 1001 }, (_, i) => `k${i}`)))).message).toMatch(/^delete: .* \(10029\)$/);
  });
});

describe('object values', () => {
  it('read-only own properties in the runtime order, body read once', async () => {
    await b.put('k', '{"a":1}', { httpMetadata: { contentType: 'application/json' } });
    const got = (await b.get('k')) as StoreObjectBody;
    expect(Object.keys(got)).toEqual([
      'ssecKeyMd5',
      'storageClass',
      'range',
      'customMetadata',
      'httpMetadata',
      'uploaded',
      'checksums',
      'httpEtag',
      'etag',
      'size',
      'version',
      'key',
    ]);
    expect(() => {
      (got as unknown as { key: string }).key = 'x';
    }).toThrow(TypeError);
    expect(got.bodyUsed).toBe(false);
    expect(got.body).toBe(got.body);
    expect(await got.json()).toEqual({ a: 1 });
    expect(got.bodyUsed).toBe(true);
    expect(await rejection(got.text())).toEqual(new TypeError('Body has already been used. It can only be used once. Use tee() first if you need to read it twice.'));
    const blob = await ((await b.get('k')) as StoreObjectBody).blob();
    expect(blob.type).toBe('application/json');
    const parsed = JSON.parse(JSON.stringify(got));
    expect(parsed.checksums).toEqual({ md5: md5('{"a":1}') });
    expect(parsed.uploaded).toBe(got.uploaded.toISOString());
    const h = new Headers({ 'content-type': 'old', 'x-other': '1' });
    got.writeHttpMetadata(h);
    expect(h.get('content-type')).toBe('application/json');
    expect(h.get('x-other')).toBe('1');
  });

  it('partial body read then text() fails; cancelled body counts as used', async () => {
    await b.put('k', 'x'.repeat(100_000));
    const got = (await b.get('k')) as StoreObjectBody;
    const reader = got.body.getReader();
    expect(got.bodyUsed).toBe(false); // locked but not yet disturbed
    await reader.read();
    reader.releaseLock();
    expect(got.bodyUsed).toBe(true);
    expect(await rejection(got.text())).toBeInstanceOf(TypeError);
  });

  it('a small (inline) and a large body read the same way: whole, ranged, and used once with a locked stream after', async () => {
    for (const size of [1024, 100_000]) {
      const value = new Uint8Array(size).map((_, i) => i % 251);
      await b.put('v', value);
      const got = (await b.get('v')) as StoreObjectBody;
      const bytes = new Uint8Array(await got.arrayBuffer());
      expect(bytes).toEqual(value);
      expect(bytes.buffer.byteLength).toBe(size); // an ArrayBuffer of exactly the value, not a pool slice
      expect(got.bodyUsed).toBe(true);
      expect(got.body.locked).toBe(true);
      expect(await rejection(got.bytes())).toEqual(new TypeError('Body has already been used. It can only be used once. Use tee() first if you need to read it twice.'));
      const ranged = (await b.get('v', { range: { offset: 10, length: 20 } })) as StoreObjectBody;
      expect(await ranged.bytes()).toEqual(value.subarray(10, 30));
      // The stream asked for first, then read whole through it.
      const streamed = (await b.get('v')) as StoreObjectBody;
      const chunks: Uint8Array[] = [];
      for await (const c of streamed.body) chunks.push(c);
      expect(Buffer.concat(chunks)).toEqual(Buffer.from(value));
      expect(streamed.bodyUsed).toBe(true);
      expect(await rejection(streamed.text())).toBeInstanceOf(TypeError);
    }
  });
});
