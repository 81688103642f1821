import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import fs from 'node:fs';
import path from 'node:path';
import { createHash } from 'node:crypto';
import type { BucketStore, StoreBucket, StoreObjectBody } from '../../src/store/types.js';
import { bytes, openTemp, rejection } from './helpers.js';

const KEY = 'ab'.repeat(32);
const OTHER = 'cd'.repeat(32);
const keyMd5 = createHash('md5').update(Buffer.from(KEY, 'hex')).digest('hex');
let store: BucketStore;
let dir: string;
let b: StoreBucket;
beforeEach(async () => {
  ({ store, dir } = await openTemp());
  b = store.bucket('enc');
});
afterEach(async () => store.close());

function filesContaining(root: string, needle: Buffer): string[] {
  const hits: string[] = [];
  const walk = (d: string) => {
    for (const e of fs.readdirSync(d, { withFileTypes: true })) {
      const p = path.join(d, e.name);
      if (e.isDirectory()) walk(p);
      else if (fs.readFileSync(p).includes(needle)) hits.push(p);
    }
  };
  walk(root);
  return hits;
}

describe('SSE-C', () => {
  it('encrypts at rest (inline and blob), returns ssecKeyMd5, needs the same key, ranges work', async () => {
    const small = Buffer.from('TOP-SECRET-SMALL-PAYLOAD');
    const large = Buffer.concat([Buffer.from('TOP-SECRET-LARGE-PAYLOAD'), Buffer.from(bytes(300_000))]);
    const put = await b.put('s', small, { ssecKey: KEY });
    expect(put!.ssecKeyMd5).toBe(keyMd5);
    await b.put('l', large, { ssecKey: Buffer.from(KEY, 'hex') });
    expect(filesContaining(dir, Buffer.from('TOP-SECRET'))).toEqual([]);
    const got = (await b.get('l', { ssecKey: KEY })) as StoreObjectBody;
    expect(Buffer.from(await got.bytes()).equals(large)).toBe(true);
    const part = (await b.get('l', { ssecKey: KEY, range: { offset: 100_001, length: 1234 } })) as StoreObjectBody;
    expect(Buffer.from(await part.bytes()).equals(large.subarray(100_001, 101_235))).toBe(true);
    const sp = (await b.get('s', { ssecKey: KEY, range: { suffix: 7 } })) as StoreObjectBody;
    expect(await sp.text()).toBe('PAYLOAD');
    expect((await rejection(b.get('l'))).message).toMatch(/^get: The object was stored using a form of Server Side Encryption.* \(10029\)$/);
    expect((await rejection(b.get('l', { ssecKey: OTHER }))).message).toMatch(/^get: .*does not match.* \(10029\)$/);
    expect((await b.head('l'))!.ssecKeyMd5).toBe(keyMd5);
  });

  it('client-side key checks', async () => {
    expect(await rejection(b.put('k', 'v', { ssecKey: KEY.toUpperCase() }))).toEqual(new Error('SSE-C Key has invalid format'));
    expect(await rejection(b.get('k', { ssecKey: 'abcd' }))).toEqual(new Error('SSE-C Key must be 32 bytes in length'));
  });

  it('multipart with SSE-C: parts need the upload key, reads decrypt across parts', async () => {
    const p1 = Buffer.from(bytes(5 * 1024 * 1024, 7));
    const p2 = Buffer.from('the end');
    const up = await b.createMultipartUpload('mp', { ssecKey: KEY });
    expect((await rejection(up.uploadPart(1, p1))).message).toMatch(/^uploadPart: .* \(10029\)$/);
    const r1 = await up.uploadPart(1, p1, { ssecKey: KEY });
    const r2 = await up.uploadPart(2, p2, { ssecKey: KEY });
    const obj = await up.complete([r1, r2]);
    expect(obj.ssecKeyMd5).toBe(keyMd5);
    const got = (await b.get('mp', { ssecKey: KEY, range: { offset: p1.length - 3, length: 10 } })) as StoreObjectBody;
    expect(Buffer.from(await got.bytes()).equals(Buffer.concat([p1.subarray(-3), p2]))).toBe(true);
    expect((await rejection(b.get('mp'))).message).toMatch(/10029/);
  });
});
