import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { BucketStore, StoreBucket, StoreObjectBody } from '../../src/store/types.js';
import { openBucketStore } from '../../src/store/open.js';
import { openTemp, rejection, tempDir } from './helpers.js';

let store: BucketStore;
let b: StoreBucket;
let now = Date.UTC(2025, 5, 1, 12, 0, 0, 500);
beforeEach(async () => {
  ({ store } = await openTemp({ clock: { now: () => new Date(now) } }));
  b = store.bucket('cond');
});
afterEach(async () => store.close());

describe('conditional get', () => {
  it('failed precondition returns the object without body, range {0,size}, even with a bad range', async () => {
    const put = await b.put('k', 'hello');
    const got = await b.get('k', { onlyIf: { etagMatches: 'nope' }, range: { offset: 100 } });
    expect(got).not.toBeNull();
    expect('body' in got!).toBe(false);
    expect(got!.range).toEqual({ offset: 0, length: 5 });
    expect(got!.etag).toBe(put!.etag);
    const ok = (await b.get('k', { onlyIf: new Headers({ 'if-match': `"${put!.etag}"` }) })) as StoreObjectBody;
    expect(await ok.text()).toBe('hello');
    expect(await b.get('missing', { onlyIf: { etagMatches: 'x' }, range: { offset: 100 } })).toBeNull();
    expect(await rejection(b.get('missing', { range: { offset: -1 } }))).toBeInstanceOf(RangeError);
    expect((await rejection(b.get('k', { range: { offset: 5 } }))).message).toBe('get: The requested range is not satisfiable (10039)');
  });
  it('If-Modified-Since in the same second is "not modified"', async () => {
    await b.put('k', 'v');
    const same = await b.get('k', { onlyIf: new Headers({ 'if-modified-since': new Date(now).toUTCString() }) });
    expect('body' in same!).toBe(false);
    const before = await b.get('k', { onlyIf: new Headers({ 'if-modified-since': new Date(now - 1000).toUTCString() }) });
    expect('body' in before!).toBe(true);
    await (before as StoreObjectBody).body.cancel();
  });
});

describe('conditional put', () => {
  it('failed precondition returns null and stores nothing', async () => {
    const first = await b.put('k', 'one');
    expect(await b.put('k', 'two', { onlyIf: { etagMatches: 'zzz' } })).toBeNull();
    expect((await b.head('k'))!.version).toBe(first!.version);
    expect(await b.put('k', 'two', { onlyIf: { etagDoesNotMatch: '*' } })).toBeNull();
    const second = await b.put('k', 'two', { onlyIf: { etagMatches: first!.etag } });
    expect(second).not.toBeNull();
    expect(await b.put('new', 'x', { onlyIf: { etagMatches: '*' } })).toBeNull();
    expect(await b.put('new', 'x', { onlyIf: { uploadedAfter: new Date(0) } })).toBeNull();
    expect(await b.put('new', 'x', { onlyIf: { uploadedBefore: new Date(0) } })).not.toBeNull();
    expect(await b.put('new2', 'x', { onlyIf: new Headers({ 'if-none-match': '*' }) })).not.toBeNull();
    expect(await b.put('new2', 'x', { onlyIf: new Headers({ 'if-none-match': '*' }) })).toBeNull();
  });
  it('a bad digest beats a failing precondition', async () => {
    await b.put('k', 'one');
    expect((await rejection(b.put('k', 'two', { onlyIf: { etagMatches: 'no' }, md5: '0'.repeat(32) }))).message).toMatch(/\(10037\)$/);
  });
  it('concurrent create-if-absent from two stores on one folder: exactly one wins', async () => {
    const dir = tempDir();
    const s1 = await openBucketStore({ dataDir: dir, sweepOnOpen: false });
    const s2 = await openBucketStore({ dataDir: dir, sweepOnOpen: false });
    try {
      for (let round = 0; round < 20; round++) {
        const key = `race-${round}`;
        const big = 'x'.repeat(100_000 + round);
        const results = await Promise.all([
          s1.bucket('r').put(key, big, { onlyIf: { etagDoesNotMatch: '*' } }),
          s2.bucket('r').put(key, big + 'y', { onlyIf: { etagDoesNotMatch: '*' } }),
          s1.bucket('r').put(key, 'small', { onlyIf: { etagDoesNotMatch: '*' } }),
        ]);
        const winners = results.filter((r) => r !== null);
        expect(winners.length).toBe(1);
        expect((await s2.bucket('r').head(key))!.version).toBe(winners[0]!.version);
      }
    } finally {
      await s1.close();
      await s2.close();
    }
  });
});
