import { describe, expect, it } from 'vitest';
import { createHash } from 'node:crypto';
import { checkCompletion, expectObjectChecksum, requireListedChecksums, objectChecksumOf, shownChecksum, uploadChecksumFrom } from './multipart-checksum.js';
import { S3Error } from './errors.js';

const code = (fn: () => unknown): string | undefined => {
  try {
    fn();
  } catch (err) {
    return (err as S3Error).code;
  }
  return undefined;
};

describe('multipart checksum settings', () => {
  it('defaults the type by algorithm and refuses the combinations S3 refuses', () => {
    expect(uploadChecksumFrom(new Headers())).toBeUndefined();
    expect(uploadChecksumFrom(new Headers({ 'x-amz-checksum-algorithm': 'SHA256' }))).toEqual({ algorithm: 'sha256', type: 'COMPOSITE' });
    expect(uploadChecksumFrom(new Headers({ 'x-amz-checksum-algorithm': 'CRC64NVME' }))).toEqual({ algorithm: 'crc64nvme', type: 'FULL_OBJECT' });
    expect(uploadChecksumFrom(new Headers({ 'x-amz-checksum-algorithm': 'crc32c', 'x-amz-checksum-type': 'FULL_OBJECT' }))).toEqual({ algorithm: 'crc32c', type: 'FULL_OBJECT' });
    for (const h of <Record<string, string>[]>[
      { 'x-amz-checksum-algorithm': 'MD5' }, { 'x-amz-checksum-type': 'COMPOSITE' }, { 'x-amz-checksum-algorithm': 'SHA1', 'x-amz-checksum-type': 'FULL_OBJECT' },
      { 'x-amz-checksum-algorithm': 'CRC64NVME', 'x-amz-checksum-type': 'COMPOSITE' }, { 'x-amz-checksum-algorithm': 'CRC32', 'x-amz-checksum-type': 'PARTIAL' },
    ]) expect(code(() => uploadChecksumFrom(new Headers(h)))).toBe('InvalidRequest');
  });

  it('composite: the algorithm over the binary part checksums, suffixed with the part count; none when a part lacks one', () => {
    const a = createHash('sha1').update('a').digest('hex');
    const b = createHash('sha1').update('b').digest('hex');
    const want = createHash('sha1').update(Buffer.from(a + b, 'hex')).digest('hex');
    const parts = [{ partNumber: 1, size: 1, checksums: { sha1: a } }, { partNumber: 2, size: 1, checksums: { sha1: b } }];
    expect(objectChecksumOf({ algorithm: 'sha1', type: 'COMPOSITE' }, parts)).toEqual({ sha1: `${want}-2` });
    expect(objectChecksumOf({ algorithm: 'sha1', type: 'COMPOSITE' }, [parts[0]!, { partNumber: 2, size: 1, checksums: {} }])).toEqual({});
    expect(objectChecksumOf(undefined, parts)).toEqual({});
    expect(shownChecksum(`${want}-2`)).toEqual({ value: `${Buffer.from(want, 'hex').toString('base64')}-2`, type: 'COMPOSITE' });
    expect(shownChecksum('0000000a')).toEqual({ value: 'AAAACg==', type: 'FULL_OBJECT' });
  });

  it("checks a completion's type, its object checksum header and, for composite uploads, every listed part", () => {
    const sha = { algorithm: 'sha256', type: 'COMPOSITE' } as const;
    const listed = [{ partNumber: 1, checksums: { sha256: 'ab' } }, { partNumber: 2 }];
    expect(code(() => requireListedChecksums(sha, listed))).toBe('InvalidRequest');
    expect(code(() => requireListedChecksums({ algorithm: 'crc64nvme', type: 'FULL_OBJECT' }, listed))).toBeUndefined();
    expect(checkCompletion(sha, new Headers({ 'x-amz-checksum-sha256': 'q83v-1' }), [listed[0]!])).toBe('q83v-1');
    expect(code(() => checkCompletion(sha, new Headers({ 'x-amz-checksum-type': 'FULL_OBJECT' }), [listed[0]!]))).toBe('InvalidRequest');
    expect(code(() => checkCompletion(sha, new Headers({ 'x-amz-checksum-crc32': 'AAAAAA==' }), [listed[0]!]))).toBe('InvalidRequest');
    expect(code(() => checkCompletion(undefined, new Headers({ 'x-amz-checksum-crc32': 'AAAAAA==' }), []))).toBe('InvalidRequest');
    expect(checkCompletion(undefined, new Headers(), listed)).toBeUndefined();
    // The client's value may carry the part count or not.
    expect(code(() => expectObjectChecksum(sha, 'q83v', { sha256: 'abcdef-2' }))).toBeUndefined();
    expect(code(() => expectObjectChecksum(sha, 'q83v-2', { sha256: 'abcdef-2' }))).toBeUndefined();
    expect(code(() => expectObjectChecksum(sha, 'q83v-3', { sha256: 'abcdef-2' }))).toBe('BadDigest');
    expect(code(() => expectObjectChecksum(sha, 'AAAA', { sha256: 'abcdef-2' }))).toBe('BadDigest');
  });
});
