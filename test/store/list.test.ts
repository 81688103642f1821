import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { BucketStore, StoreBucket, StoreListOptions, StoreObjects } from '../../src/store/types.js';
import { openTemp, rejection } from './helpers.js';

let store: BucketStore;
let b: StoreBucket;
const KEYS = ['B', 'a', 'a/1', 'a/2', 'a/b/1', 'a/b/2', 'a/c/1', 'ab', 'b', 'z'];
beforeEach(async () => {
  ({ store } = await openTemp());
  b = store.bucket('list');
  for (const k of KEYS) await b.put(k, k, { httpMetadata: { contentType: 'text/plain' }, customMetadata: { k } });
});
afterEach(async () => store.close());

const keys = (r: StoreObjects) => r.objects.map((o) => o.key);

async function all(bucket: StoreBucket, opts: StoreListOptions): Promise<{ pages: string[][]; prefixes: string[][] }> {
  const pages: string[][] = [];
  const prefixes: string[][] = [];
  let cursor: string | undefined;
  for (;;) {
    const r = await bucket.list({ ...opts, ...(cursor ? { cursor } : {}) });
    pages.push(keys(r));
    prefixes.push(r.delimitedPrefixes);
    if (!r.truncated) {
      expect('cursor' in r).toBe(false);
      return { pages, prefixes };
    }
    cursor = r.cursor;
  }
}

describe('list', () => {
  it('orders by UTF-8 bytes, not UTF-16', async () => {
    await b.put('\uFFFF', 'x');
    await b.put('🙂', 'x');
    const r = await b.list({ prefix: '' });
    const ks = keys(r);
    expect(ks.indexOf('\uFFFF')).toBeLessThan(ks.indexOf('🙂'));
    expect(ks.slice(0, 3)).toEqual(['B', 'a', 'a/1']);
    expect(r.truncated).toBe(false);
    expect(Object.keys(r)).toEqual(['objects', 'truncated', 'delimitedPrefixes']);
  });

  it('pages with truncated/cursor and no empty extra page', async () => {
    const { pages } = await all(b, { limit: 5 });
    expect(pages).toEqual([KEYS.slice(0, 5), KEYS.slice(5, 10)]);
  });

  it('delimiter: contract form without the trailing delimiter', async () => {
    const r = await b.list({ delimiter: '/' });
    expect(keys(r)).toEqual(['B', 'a', 'ab', 'b', 'z']);
    expect(r.delimitedPrefixes).toEqual(['a']);
    const r2 = await b.list({ prefix: 'a/', delimiter: '/' });
    expect(keys(r2)).toEqual(['a/1', 'a/2']);
    expect(r2.delimitedPrefixes).toEqual(['a/b', 'a/c']);
    const r3 = await b.list({ prefix: 'a', delimiter: '/' });
    expect(keys(r3)).toEqual(['a', 'ab']);
    expect(r3.delimitedPrefixes).toEqual(['a']);
  });

  it('delimiter: production form with the flag, groups count toward limit and never repeat', async () => {
    const prod = store.bucket('list', { compatibilityFlags: ['store_list_prefixes_keep_delimiter'] });
    const r = await prod.list({ prefix: 'a/', delimiter: '/' });
    expect(r.delimitedPrefixes).toEqual(['a/b/', 'a/c/']);
    const { pages, prefixes } = await all(prod, { delimiter: '/', limit: 2 });
    expect(pages).toEqual([['B', 'a'], ['ab'], ['b', 'z']]);
    expect(prefixes).toEqual([[], ['a/'], []]);
    const multi = await prod.list({ delimiter: '/b/' });
    expect(multi.delimitedPrefixes).toEqual(['a/b/']);
  });

  it('startAfter is exclusive; the larger of cursor and startAfter wins', async () => {
    expect(keys(await b.list({ startAfter: 'a/b/2' }))).toEqual(['a/c/1', 'ab', 'b', 'z']);
    expect(keys(await b.list({ startAfter: 'zz' }))).toEqual([]);
    const first = await b.list({ limit: 2 });
    expect(first.truncated).toBe(true);
    const cursor = first.truncated ? first.cursor : '';
    expect(keys(await b.list({ cursor, startAfter: 'b' }))).toEqual(['z']);
    expect(keys(await b.list({ cursor, startAfter: 'A' }))[0]).toBe('a/1');
  });

  it('include is honoured from 2022-08-04 and metadata is otherwise undefined', async () => {
    const modern = store.bucket('list', { compatibilityDate: '2024-01-01' });
    const plain = await modern.list({ prefix: 'z' });
    expect(plain.objects[0]!.httpMetadata).toBeUndefined();
    expect(plain.objects[0]!.customMetadata).toBeUndefined();
    expect(() => plain.objects[0]!.writeHttpMetadata(new Headers())).toThrow(
      "HTTP metadata unknown for key `z`. Did you forget to add 'httpMetadata' to `include` when listing?",
    );
    const inc = await modern.list({ prefix: 'z', include: ['customMetadata'] });
    expect(inc.objects[0]!.customMetadata).toEqual({ k: 'z' });
    expect(inc.objects[0]!.httpMetadata).toBeUndefined();
    const old = store.bucket('list', { compatibilityDate: '2022-01-01' });
    const o = await old.list({ prefix: 'z' });
    expect(o.objects[0]!.httpMetadata).toEqual({ contentType: 'text/plain' });
    expect(o.objects[0]!.customMetadata).toEqual({ k: 'z' });
    const flagged = store.bucket('list', { compatibilityDate: '2022-01-01', compatibilityFlags: ['store_list_honor_include'] });
    expect((await flagged.list({ prefix: 'z' })).objects[0]!.customMetadata).toBeUndefined();
    expect(o.objects[0]!.range).toBeUndefined();
    expect(o.objects[0]!.checksums.toJSON().md5).toMatch(/^[0-9a-f]{32}$/);
  });

  it('validates options with the runtime and service errors', async () => {
    expect((await rejection(b.list({ limit: 0 }))).message).toBe('list: MaxKeys params must be positive integer <= 1000. (10022)');
    expect((await rejection(b.list({ limit: 1001 }))).message).toBe('list: MaxKeys params must be positive integer <= 1000. (10022)');
    expect((await rejection(b.list({ limit: -2 }))).message).toMatch(/10022/);
    expect(keys(await b.list({ limit: -1 })).length).toBe(KEYS.length);
    expect(keys(await b.list({ limit: 1.5 }))).toEqual(['B']);
    expect(await rejection(b.list({ limit: 2 ** 31 }))).toBeInstanceOf(TypeError);
    expect((await rejection(b.list({ prefix: 5 as unknown as string }))).message).toBe(
      "Incorrect type for the 'prefix' field on 'ListOptions': the provided value is not of type 'string'.",
    );
    expect(await rejection(b.list({ include: ['bogus' as 'httpMetadata'] }))).toEqual(new RangeError('Unsupported include value bogus'));
  });

  it('empty strings behave as absent options', async () => {
    expect(keys(await b.list({ prefix: '', startAfter: '', cursor: '', delimiter: '' })).length).toBe(KEYS.length);
  });
});
