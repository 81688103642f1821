/**
 * Multipart checksums, as S3 makes them, driven by @aws-sdk/client-s3 (which computes every part's checksum
 * itself and validates a full-object checksum of what GetObject returns): shared by the SQLite run
 * (test/s3/multipart-checksums.test.ts) and the PostgreSQL one (test/postgres/s3-multipart-checksums.test.ts).
 */
import { createHash, randomBytes } from 'node:crypto';
import { crc32 } from 'node:zlib';
import { expect, it } from 'vitest';
import {
  type ChecksumAlgorithm, type CompletedPart, CompleteMultipartUploadCommand, CreateBucketCommand, CreateMultipartUploadCommand, GetObjectCommand,
  HeadObjectCommand, ListPartsCommand, PutObjectCommand, type S3Client, UploadPartCommand, UploadPartCopyCommand,
} from '@aws-sdk/client-s3';
import type { BucketNamespace } from '../../src/index.js';
import { s3Failure } from '../helpers/s3-sdk.js';

/** What the cases run against. */
export interface MultipartChecksumContext {
  s3: S3Client;
  /** The same key pair, sending no checksum unless a command asks for one. */
  plain: S3Client;
  /** A second user's client (its own account). */
  other: S3Client;
  /** The admin's buckets as the binding sees them. */
  binding: BucketNamespace;
}

const FIELD = { CRC32: 'ChecksumCRC32', CRC32C: 'ChecksumCRC32C', CRC64NVME: 'ChecksumCRC64NVME', SHA1: 'ChecksumSHA1', SHA256: 'ChecksumSHA256' } as const;
type Algorithm = keyof typeof FIELD;
const PART = 5 * 1024 * 1024;

/** CRC-32C bit by bit (independent of Stratus's table-driven one). */
function crc32c(bytes: Uint8Array): number {
  let c = 0xffffffff;
  for (const b of bytes) {
    c ^= b;
    for (let k = 0; k < 8; k++) c = c & 1 ? (c >>> 1) ^ 0x82f63b78 : c >>> 1;
  }
  return (c ^ 0xffffffff) >>> 0;
}

/** The composite checksum S3 documents: the algorithm over the concatenated binary part checksums, then `-N`. */
function composite(algorithm: Algorithm, partSums: string[]): string {
  const joined = Buffer.concat(partSums.map((s) => Buffer.from(s, 'base64')));
  let digest: Buffer;
  if (algorithm === 'SHA1' || algorithm === 'SHA256') digest = createHash(algorithm.toLowerCase()).update(joined).digest();
  else {
    digest = Buffer.alloc(4);
    digest.writeUInt32BE(algorithm === 'CRC32' ? crc32(joined) : crc32c(joined));
  }
  return `${digest.toString('base64')}-${partSums.length}`;
}

/** Uploads `bodies` as parts 1.. of a new upload of `key` with `algorithm` (the SDK computes each part's checksum). */
async function upload(ctx: MultipartChecksumContext, bucket: string, key: string, algorithm: Algorithm, type: 'COMPOSITE' | 'FULL_OBJECT' | undefined, bodies: Buffer[]) {
  const created = await ctx.s3.send(new CreateMultipartUploadCommand({
    Bucket: bucket, Key: key, ChecksumAlgorithm: algorithm as ChecksumAlgorithm, ...(type ? { ChecksumType: type } : {}),
  }));
  expect(created.ChecksumAlgorithm).toBe(algorithm);
  expect(created.ChecksumType).toBe(type ?? (algorithm === 'CRC64NVME' ? 'FULL_OBJECT' : 'COMPOSITE'));
  const parts: CompletedPart[] = [];
  for (const [i, body] of bodies.entries()) {
    const out = await ctx.s3.send(new UploadPartCommand({
      Bucket: bucket, Key: key, UploadId: created.UploadId!, PartNumber: i + 1, Body: body, ChecksumAlgorithm: algorithm as ChecksumAlgorithm,
    }));
    expect(out[FIELD[algorithm]]).toBeDefined();
    parts.push({ PartNumber: i + 1, ETag: out.ETag!, [FIELD[algorithm]]: out[FIELD[algorithm]] });
  }
  return { uploadId: created.UploadId!, parts };
}

/** Registers the cases on the context `get()` returns (filled by the file's beforeAll). */
export function multipartChecksumCases(get: () => MultipartChecksumContext, bucket: string): void {
  it('prepares the bucket', async () => {
    await get().s3.send(new CreateBucketCommand({ Bucket: bucket }));
  });

  const kinds: Array<[Algorithm, 'COMPOSITE' | 'FULL_OBJECT' | undefined]> = [
    ['CRC32', undefined], ['CRC32C', undefined], ['SHA1', undefined], ['SHA256', undefined], ['CRC64NVME', undefined],
    ['CRC32', 'FULL_OBJECT'], ['CRC32C', 'FULL_OBJECT'],
  ];
  it.each(kinds)('%s (%s): parts listed with their checksums, the object checksummed as S3 does and returned on HEAD/GET', async (algorithm, asked) => {
    const ctx = get();
    const key = `mp/${algorithm}-${asked ?? 'default'}`;
    const bodies = [randomBytes(PART), randomBytes(1000)];
    const { uploadId, parts } = await upload(ctx, bucket, key, algorithm, asked, bodies);
    const type = asked ?? (algorithm === 'CRC64NVME' ? 'FULL_OBJECT' : 'COMPOSITE');

    const listed = await ctx.s3.send(new ListPartsCommand({ Bucket: bucket, Key: key, UploadId: uploadId }));
    expect(listed.ChecksumAlgorithm).toBe(algorithm);
    expect(listed.ChecksumType).toBe(type);
    expect(listed.Parts!.map((p) => p[FIELD[algorithm]])).toEqual(parts.map((p) => p[FIELD[algorithm]]));

    const done = await ctx.s3.send(new CompleteMultipartUploadCommand({ Bucket: bucket, Key: key, UploadId: uploadId, MultipartUpload: { Parts: parts } }));
    expect(done.ChecksumType).toBe(type);
    const value = done[FIELD[algorithm]]!;
    if (type === 'COMPOSITE') expect(value).toBe(composite(algorithm, parts.map((p) => p[FIELD[algorithm]]!)));
    else expect(value).not.toContain('-');

    const head = await ctx.s3.send(new HeadObjectCommand({ Bucket: bucket, Key: key, ChecksumMode: 'ENABLED' }));
    expect(head[FIELD[algorithm]]).toBe(value);
    expect(head.ChecksumType).toBe(type);
    // The SDK validates a full-object checksum against the body it receives (a wrong one fails the read).
    const got = await ctx.s3.send(new GetObjectCommand({ Bucket: bucket, Key: key, ChecksumMode: 'ENABLED' }));
    expect(got[FIELD[algorithm]]).toBe(value);
    expect(Buffer.from(await got.Body!.transformToByteArray()).equals(Buffer.concat(bodies))).toBe(true);
    if (type === 'FULL_OBJECT') {
      // The same bytes put in one request carry the same full-object checksum.
      const whole = await ctx.s3.send(new PutObjectCommand({ Bucket: bucket, Key: `${key}-whole`, Body: Buffer.concat(bodies), ChecksumAlgorithm: algorithm as ChecksumAlgorithm }));
      expect(whole[FIELD[algorithm]]).toBe(value);
    }
    // As production's binding: a multipart object has no checksums.
    expect((await ctx.binding.bucket(bucket).head(key))!.checksums.toJSON()).toEqual({});
  });

  it('a part checksum listed in the completion must be the stored one; a composite completion must list them all', async () => {
    const ctx = get();
    const key = 'mp/refused';
    const { uploadId, parts } = await upload(ctx, bucket, key, 'SHA256', undefined, [randomBytes(PART), randomBytes(10)]);
    const complete = (list: CompletedPart[], extra: Record<string, string> = {}) =>
      ctx.s3.send(new CompleteMultipartUploadCommand({ Bucket: bucket, Key: key, UploadId: uploadId, MultipartUpload: { Parts: list }, ...extra }));
    const wrong = createHash('sha256').update('other').digest('base64');
    expect(await s3Failure(complete([parts[0]!, { ...parts[1]!, ChecksumSHA256: wrong }]))).toEqual({ name: 'InvalidPart', status: 400 });
    expect(await s3Failure(complete([parts[0]!, { PartNumber: 2, ETag: parts[1]!.ETag! }]))).toEqual({ name: 'InvalidRequest', status: 400 });
    expect(await s3Failure(complete(parts, { ChecksumType: 'FULL_OBJECT' }))).toEqual({ name: 'InvalidRequest', status: 400 });
    // Nothing was stored by the refusals; the upload completes.
    expect(await s3Failure(ctx.s3.send(new HeadObjectCommand({ Bucket: bucket, Key: key })))).toEqual({ name: 'NotFound', status: 404 });
    expect((await complete(parts)).ChecksumSHA256).toMatch(/-2$/);
  });

  it('a full-object checksum sent with the completion must be the object\'s (BadDigest), and the upload stays in progress', async () => {
    const ctx = get();
    const key = 'mp/expected';
    const bodies = [randomBytes(PART), randomBytes(77)];
    const whole = await ctx.s3.send(new PutObjectCommand({ Bucket: bucket, Key: `${key}-probe`, Body: Buffer.concat(bodies), ChecksumAlgorithm: 'CRC64NVME' }));
    const { uploadId, parts } = await upload(ctx, bucket, key, 'CRC64NVME', undefined, bodies);
    const complete = (sum: string) => ctx.s3.send(new CompleteMultipartUploadCommand({
      Bucket: bucket, Key: key, UploadId: uploadId, MultipartUpload: { Parts: parts }, ChecksumCRC64NVME: sum, ChecksumType: 'FULL_OBJECT',
    }));
    expect(await s3Failure(complete(Buffer.alloc(8).toString('base64')))).toEqual({ name: 'BadDigest', status: 400 });
    expect((await ctx.s3.send(new ListPartsCommand({ Bucket: bucket, Key: key, UploadId: uploadId }))).Parts).toHaveLength(2);
    expect((await complete(whole.ChecksumCRC64NVME!)).ChecksumCRC64NVME).toBe(whole.ChecksumCRC64NVME);
  });

  it('a part without a checksum gets the upload\'s, computed by Stratus; a part of another algorithm is refused', async () => {
    const ctx = get();
    const key = 'mp/computed';
    const created = await ctx.s3.send(new CreateMultipartUploadCommand({ Bucket: bucket, Key: key, ChecksumAlgorithm: 'CRC32' }));
    const body = randomBytes(3000);
    const sent = await ctx.plain.send(new UploadPartCommand({ Bucket: bucket, Key: key, UploadId: created.UploadId!, PartNumber: 1, Body: body }));
    const expected = Buffer.alloc(4);
    expected.writeUInt32BE(crc32(body));
    expect(sent.ChecksumCRC32).toBe(expected.toString('base64'));
    expect(await s3Failure(ctx.s3.send(new UploadPartCommand({
      Bucket: bucket, Key: key, UploadId: created.UploadId!, PartNumber: 2, Body: body, ChecksumAlgorithm: 'SHA1',
    })))).toEqual({ name: 'InvalidRequest', status: 400 });
    const listed = await ctx.s3.send(new ListPartsCommand({ Bucket: bucket, Key: key, UploadId: created.UploadId! }));
    expect(listed.Parts!.map((p) => [p.PartNumber, p.ChecksumCRC32])).toEqual([[1, expected.toString('base64')]]);
  });

  it('UploadPartCopy into a checksummed upload computes the copied bytes\' checksum', async () => {
    const ctx = get();
    const source = randomBytes(PART + 100);
    await ctx.s3.send(new PutObjectCommand({ Bucket: bucket, Key: 'mp/source', Body: source }));
    const key = 'mp/copied';
    const created = await ctx.s3.send(new CreateMultipartUploadCommand({ Bucket: bucket, Key: key, ChecksumAlgorithm: 'SHA256' }));
    const copy = async (n: number, range: string) => (await ctx.s3.send(new UploadPartCopyCommand({
      Bucket: bucket, Key: key, UploadId: created.UploadId!, PartNumber: n, CopySource: `${bucket}/mp/source`, CopySourceRange: range,
    }))).CopyPartResult!;
    const one = await copy(1, `bytes=0-${PART - 1}`);
    const two = await copy(2, `bytes=${PART}-${PART + 99}`);
    expect(one.ChecksumSHA256).toBe(createHash('sha256').update(source.subarray(0, PART)).digest('base64'));
    expect(two.ChecksumSHA256).toBe(createHash('sha256').update(source.subarray(PART)).digest('base64'));
    const parts = [one, two].map((p, i) => ({ PartNumber: i + 1, ETag: p.ETag!, ChecksumSHA256: p.ChecksumSHA256! }));
    const done = await ctx.s3.send(new CompleteMultipartUploadCommand({ Bucket: bucket, Key: key, UploadId: created.UploadId!, MultipartUpload: { Parts: parts } }));
    expect(done.ChecksumSHA256).toBe(composite('SHA256', parts.map((p) => p.ChecksumSHA256)));
  });

  it('an upload created without an algorithm claims no object checksum, whatever its parts carried', async () => {
    const ctx = get();
    const key = 'mp/none';
    const created = await ctx.s3.send(new CreateMultipartUploadCommand({ Bucket: bucket, Key: key }));
    expect(created.ChecksumAlgorithm).toBeUndefined();
    const part = await ctx.s3.send(new UploadPartCommand({ Bucket: bucket, Key: key, UploadId: created.UploadId!, PartNumber: 1, Body: 'abc', ChecksumAlgorithm: 'CRC32' }));
    const done = await ctx.s3.send(new CompleteMultipartUploadCommand({
      Bucket: bucket, Key: key, UploadId: created.UploadId!, MultipartUpload: { Parts: [{ PartNumber: 1, ETag: part.ETag!, ChecksumCRC32: part.ChecksumCRC32! }] },
    }));
    expect(done.ChecksumCRC32).toBeUndefined();
    const head = await ctx.s3.send(new HeadObjectCommand({ Bucket: bucket, Key: key, ChecksumMode: 'ENABLED' }));
    expect(head.ChecksumCRC32).toBeUndefined();
    expect(head.ChecksumType).toBeUndefined();
  });

  it('refuses checksum settings S3 refuses', async () => {
    const ctx = get();
    for (const [algorithm, type] of [['SHA256', 'FULL_OBJECT'], ['SHA1', 'FULL_OBJECT'], ['CRC64NVME', 'COMPOSITE']] as const) {
      expect(await s3Failure(ctx.s3.send(new CreateMultipartUploadCommand({ Bucket: bucket, Key: 'mp/bad', ChecksumAlgorithm: algorithm, ChecksumType: type }))))
        .toEqual({ name: 'InvalidRequest', status: 400 });
    }
  });

  it("a second user sees none of it: the admin's upload and its parts are another account's", async () => {
    const ctx = get();
    const { uploadId } = await upload(ctx, bucket, 'mp/private', 'CRC32', undefined, [randomBytes(100)]);
    expect(await s3Failure(ctx.other.send(new ListPartsCommand({ Bucket: bucket, Key: 'mp/private', UploadId: uploadId })))).toEqual({ name: 'NoSuchBucket', status: 404 });
    expect(await s3Failure(ctx.other.send(new HeadObjectCommand({ Bucket: bucket, Key: 'mp/CRC32-default', ChecksumMode: 'ENABLED' })))).toEqual({ name: 'NotFound', status: 404 });
  });
}
