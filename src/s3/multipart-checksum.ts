/**
 * Flexible checksums of multipart uploads, as S3 makes them (AWS S3 User Guide, "Checking object integrity",
 * checksum types): an upload is created with an algorithm (`x-amz-checksum-algorithm`) and a type
 * (`x-amz-checksum-type`): `COMPOSITE`, the checksum of the concatenated binary checksums of the parts followed by
 * `-<number of parts>` (CRC32, CRC32C, SHA1, SHA256; the default but for CRC64NVME), or `FULL_OBJECT`, the CRC
 * of the whole object combined from the parts' CRCs (CRC64NVME, its only type; CRC32 and CRC32C when asked).
 * SHA-1 and SHA-256 have no full-object form for multipart uploads. Every part carries the upload's checksum
 * (computed by Stratus when the client sends none); the object's is made when the upload completes.
 */
import { S3Error } from './errors.js';
import { checksumAlgorithm, runningChecksum, type ChecksumAlgorithm } from './checksum.js';
import { CRC_SPECS, CrcCombiner } from './crc-combine.js';
import type { StorePartChecksums } from '../store/index.js';

/** An upload's checksum settings. */
export interface UploadChecksum {
  algorithm: ChecksumAlgorithm;
  type: 'COMPOSITE' | 'FULL_OBJECT';
}

/** The settings of CreateMultipartUpload's headers, undefined without `x-amz-checksum-algorithm`. */
export function uploadChecksumFrom(h: Headers): UploadChecksum | undefined {
  const rawAlgorithm = h.get('x-amz-checksum-algorithm');
  const rawType = h.get('x-amz-checksum-type');
  if (rawAlgorithm === null) {
    if (rawType !== null) throw new S3Error('InvalidRequest', 'The x-amz-checksum-type header can only be used with the x-amz-checksum-algorithm header.', 400);
    return undefined;
  }
  const algorithm = checksumAlgorithm(rawAlgorithm);
  if (!algorithm) throw new S3Error('InvalidRequest', 'Value for x-amz-checksum-algorithm header is invalid.', 400);
  const type = rawType === null ? (algorithm === 'crc64nvme' ? 'FULL_OBJECT' : 'COMPOSITE') : rawType.toUpperCase();
  if (type !== 'COMPOSITE' && type !== 'FULL_OBJECT') throw new S3Error('InvalidRequest', 'Value for x-amz-checksum-type header is invalid.', 400);
  if (type === 'COMPOSITE' && algorithm === 'crc64nvme') {
    throw new S3Error('InvalidRequest', 'The COMPOSITE checksum type cannot be used with the crc64nvme checksum algorithm.', 400);
  }
  if (type === 'FULL_OBJECT' && (algorithm === 'sha1' || algorithm === 'sha256')) {
    throw new S3Error('InvalidRequest', `The FULL_OBJECT checksum type cannot be used with the ${algorithm} checksum algorithm.`, 400);
  }
  return { algorithm, type };
}

/** The settings kept with an upload (the store's strings), or undefined. */
export function storedUploadChecksum(upload: { checksumAlgorithm: string | null; checksumType: string | null }): UploadChecksum | undefined {
  const algorithm = upload.checksumAlgorithm ? checksumAlgorithm(upload.checksumAlgorithm) : undefined;
  if (!algorithm) return undefined;
  return { algorithm, type: upload.checksumType === 'FULL_OBJECT' ? 'FULL_OBJECT' : 'COMPOSITE' };
}

/** Hex of a base64 checksum value. */
export function hexOf(base64: string): string {
  return Buffer.from(base64, 'base64').toString('hex');
}

/** A stored checksum (hex, a composite one suffixed `-<parts>`) as S3 shows it: base64, the suffix kept. */
export function shownChecksum(stored: string): { value: string; type: 'COMPOSITE' | 'FULL_OBJECT' } {
  const m = /^([0-9a-f]*)-(\d+)$/.exec(stored);
  if (m) return { value: `${Buffer.from(m[1]!, 'hex').toString('base64')}-${m[2]}`, type: 'COMPOSITE' };
  return { value: Buffer.from(stored, 'hex').toString('base64'), type: 'FULL_OBJECT' };
}

/**
 * The object's checksum (hex by algorithm; composite `<hex>-<parts>`) from the parts used, sorted by number; {}
 * when the upload has no algorithm or a part has no checksum of it (a part uploaded through the binding), so
 * nothing unverified is claimed.
 */
export function objectChecksumOf(setting: UploadChecksum | undefined, parts: readonly StorePartChecksums[]): Record<string, string> {
  if (!setting || parts.some((p) => p.checksums[setting.algorithm] === undefined)) return {};
  const { algorithm, type } = setting;
  if (type === 'FULL_OBJECT' && algorithm !== 'sha1' && algorithm !== 'sha256') {
    const spec = CRC_SPECS[algorithm];
    const combiner = new CrcCombiner(spec);
    for (const p of parts) combiner.add(BigInt(`0x${p.checksums[algorithm]!}`), p.size);
    return { [algorithm]: combiner.value().toString(16).padStart(spec.width / 4, '0') };
  }
  const sum = runningChecksum(algorithm);
  for (const p of parts) sum.update(Buffer.from(p.checksums[algorithm]!, 'hex'));
  return { [algorithm]: `${hexOf(sum.base64())}-${parts.length}` };
}

/** The checksum elements of a `<Part>` of a CompleteMultipartUpload document (`ChecksumCRC32`…), hex by algorithm. */
export function listedPartChecksums(get: (element: string) => string | undefined): Record<string, string> | undefined {
  let out: Record<string, string> | undefined;
  for (const algorithm of ['crc32', 'crc32c', 'crc64nvme', 'sha1', 'sha256'] as const) {
    const value = get(`Checksum${algorithm.toUpperCase()}`)?.trim();
    if (value !== undefined) (out ??= {})[algorithm] = hexOf(value);
  }
  return out;
}

/**
 * Checks a CompleteMultipartUpload against its upload's settings before anything is stored: `x-amz-checksum-type`
 * must be the upload's, and an object checksum header
 * (`x-amz-checksum-<algorithm>`) must be of the upload's algorithm. Returns that header's value, base64, to be
 * compared with the object's once it is made ({@link expectObjectChecksum}).
 */
export function checkCompletion(setting: UploadChecksum | undefined, h: Headers, parts: readonly { partNumber: number; checksums?: Record<string, string> }[]): string | undefined {
  const type = h.get('x-amz-checksum-type');
  if (type !== null && type.toUpperCase() !== (setting?.type ?? '')) {
    throw new S3Error('InvalidRequest', setting
      ? `The upload was created using the ${setting.type} checksum mode. The complete request must use the same checksum mode.`
      : 'The upload was created without a checksum; the complete request must not name a checksum type.', 400);
  }
  let expected: string | undefined;
  h.forEach((value, name) => {
    if (!name.startsWith('x-amz-checksum-') || name === 'x-amz-checksum-type' || name === 'x-amz-checksum-algorithm') return;
    const algorithm = checksumAlgorithm(name);
    if (!setting || algorithm !== setting.algorithm) {
      throw new S3Error('InvalidRequest', setting
        ? `The upload was created using a ${setting.algorithm} checksum; the complete request cannot carry ${name}.`
        : `The upload was created without a checksum; the complete request cannot carry ${name}.`, 400);
    }
    expected = value.trim();
  });
  return expected;
}

/**
 * A composite upload's completion must list every part's checksum (`InvalidRequest`). Checked after the object
 * checksum the client sent (`BadDigest` first, as S3 and ceph/s3-tests' test_multipart_checksum_sha256 have it).
 */
export function requireListedChecksums(setting: UploadChecksum | undefined, parts: readonly { partNumber: number; checksums?: Record<string, string> }[]): void {
  if (setting?.type !== 'COMPOSITE') return;
  const missing = parts.find((p) => p.checksums?.[setting.algorithm] === undefined);
  if (missing) {
    throw new S3Error('InvalidRequest', `The upload was created using a ${setting.algorithm} checksum. The complete request must include the checksum for each part. It was missing for part ${missing.partNumber} in the request.`, 400);
  }
}

/** BadDigest unless the object checksum the client sent (base64, a composite one with or without `-<parts>`) is the one made. */
export function expectObjectChecksum(setting: UploadChecksum, expected: string, made: Record<string, string>): void {
  const stored = made[setting.algorithm];
  const shown = stored === undefined ? undefined : shownChecksum(stored).value;
  const matches = shown !== undefined && (expected === shown || (!expected.includes('-') && shown.startsWith(`${expected}-`)));
  if (!matches) {
    throw new S3Error('BadDigest', `The ${setting.algorithm.toUpperCase()} you specified did not match the calculated checksum.`, 400);
  }
}
