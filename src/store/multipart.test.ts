import { describe, expect, it } from 'vitest';
import { createHash } from 'node:crypto';
import { buildCompleted, checkPartNumber, MIN_PART_BYTES } from './multipart.js';
import type { PartRecord, UploadRecord } from './ports.js';

const upload: UploadRecord = {
  uploadId: 'u',
  key: 'k',
  created: 0,
  state: 'active',
  httpMetadata: { contentType: 'x/y' },
  customMetadata: { a: '1' },
  storageClass: 'Standard',
  ssecKeyMd5: null,
};
const M = MIN_PART_BYTES;
const part = (n: number, size: number): PartRecord => ({ partNumber: n, size, etag: createHash('md5').update(`p${n}`).digest('hex'), blobId: `b${n}`, iv: null });
const ref = (p: PartRecord) => ({ partNumber: p.partNumber, etag: p.etag });
const code = (f: () => unknown): number | undefined => {
  try {
    f();
  } catch (e) {
    return (e as { code?: number }).code;
  }
  return undefined;
};

describe('checkPartNumber', () => {
  it('truncates and bounds', () => {
    expect(checkPartNumber(1.5)).toBe(1);
    expect(() => checkPartNumber(0)).toThrow(new TypeError('Part number must be between 1 and 10000 (inclusive). Actual value was: 0'));
    expect(() => checkPartNumber(10001)).toThrow('Actual value was: 10001');
  });
});

describe('buildCompleted', () => {
  const p1 = part(1, M);
  const p2 = part(2, M);
  const p3 = part(3, 10);
  it('computes the multipart etag from part md5s in part-number order and keeps create metadata', () => {
    const { record, used } = buildCompleted(upload, [p1, p2, p3], [ref(p2), ref(p1), ref(p3)], 'v', 5);
    const md5 = createHash('md5');
    for (const p of [p1, p2, p3]) md5.update(Buffer.from(p.etag, 'hex'));
    expect(record.etag).toBe(`${md5.digest('hex')}-3`);
    expect(record.size).toBe(2 * M + 10);
    expect(record.checksums).toEqual({});
    expect(record.httpMetadata).toEqual({ contentType: 'x/y' });
    expect(used).toEqual([1, 2, 3]);
  });
  it('empty list gives the empty-md5 etag with -0', () => {
    expect(buildCompleted(upload, [], [], 'v', 0).record.etag).toBe('d41d8cd98f00b204e9800998ecf8427e-0');
  });
  it('errors in the reference order', () => {
    expect(code(() => buildCompleted(null, [], [], 'v', 0))).toBe(10001);
    expect(code(() => buildCompleted({ ...upload, state: 'completed' }, [], [], 'v', 0))).toBe(10024);
    expect(code(() => buildCompleted(upload, [p1], [ref(p1), ref(p1)], 'v', 0))).toBe(10001);
    expect(code(() => buildCompleted(upload, [p1], [{ partNumber: 1, etag: 'zz' }], 'v', 0))).toBe(10025);
    expect(code(() => buildCompleted(upload, [p1], [ref(p1), ref(p2)], 'v', 0))).toBe(10025);
    // small part in the middle of the argument list: 10011; small part 1 last in the list: 10048
    expect(code(() => buildCompleted(upload, [part(1, 10), p2, p3], [ref(part(1, 10)), ref(p2), ref(p3)], 'v', 0))).toBe(10011);
    expect(code(() => buildCompleted(upload, [part(1, 10), p2], [ref(p2), ref(part(1, 10))], 'v', 0))).toBe(10048);
    // unequal non-last parts, last part bigger than the others
    expect(code(() => buildCompleted(upload, [p1, part(2, M + 1), p3], [ref(p1), ref(part(2, M + 1)), ref(p3)], 'v', 0))).toBe(10048);
    expect(code(() => buildCompleted(upload, [p1, part(2, M + 1)], [ref(p1), ref(part(2, M + 1))], 'v', 0))).toBe(10048);
  });
  it('allows gaps in numbering', () => {
    const a = part(3, M);
    const c = part(7, 1);
    expect(buildCompleted(upload, [a, c], [ref(a), ref(c)], 'v', 0).record.size).toBe(M + 1);
  });
});
