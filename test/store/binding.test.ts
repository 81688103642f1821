import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createHash } from 'node:crypto';
import type { BucketStore, StoreBucket, StoreObjectBody } from '../../src/store/types.js';
import { openTemp, rejection } from './helpers.js';

const md5 = (s: string | Uint8Array): string => createHash('md5').update(s).digest('hex');

let store: BucketStore;
let b: StoreBucket;
beforeEach(async () => {
  ({ store } = await openTemp());
  b = store.bucket('test');
});
afterEach(async () => store.close());

describe('put / get / head / delete', () => {
  it('round-trips a string with md5 etag, version, uploaded and metadata', async () => {
    const put = await b.put('hello', 'world', { httpMetadata: { contentType: 'text/plain' }, customMetadata: { a: 'b' } });
    expect(put).not.toBeNull();
    expect(put!.etag).toBe(md5('world'));
    expect(put!.httpEtag).toBe(`"${md5('world')}"`);
    expect(put!.size).toBe(5);
    expect(put!.range).toBeUndefined();
    expect(put!.storageClass).toBe('Standard');
    expect(put!.checksums.toJSON()).toEqual({ md5: md5('world') });
    const got = (await b.get('hello')) as StoreObjectBody;
    expect(await got.text()).toBe('world');
    expect(got.version).toBe(put!.version);
    expect(got.uploaded.getTime()).toBe(put!.uploaded.getTime());
    expect(got.range).toEqual({ offset: 0, length: 5 });
    expect(got.httpMetadata).toEqual({ contentType: 'text/plain' });
    expect(got.customMetadata).toEqual({ a: 'b' });
    const head = await b.head('hello');
    expect(head!.etag).toBe(put!.etag);
    expect('body' in head!).toBe(false);
    await b.delete('hello');
    expect(await b.head('hello')).toBeNull();
    expect(await b.get('hello')).toBeNull();
  });

  it('stores a large value in a blob and reads ranges', async () => {
    const data = new Uint8Array(200_000).map((_, i) => i % 251);
    await b.put('big', data);
    const got = (await b.get('big', { range: { offset: 70_000, length: 100_000 } })) as StoreObjectBody;
    expect(got.range).toEqual({ offset: 70_000, length: 100_000 });
    expect(Buffer.from(await got.arrayBuffer()).equals(Buffer.from(data.subarray(70_000, 170_000)))).toBe(true);
  });

  it('reports service errors in the binding format', async () => {
    const err = await rejection(b.get('x'.repeat(1025)));
    expect(err.message).toBe('get: The specified object name is not valid. (10020)');
    expect(err.constructor).toBe(Error);
  });
});
