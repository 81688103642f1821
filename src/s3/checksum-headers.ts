/**
 * Stored checksums on GetObject/HeadObject answers: with `x-amz-checksum-mode: ENABLED` (the SDKs'
 * `ChecksumMode`), every stored flexible checksum of the object as `x-amz-checksum-<algorithm>` (base64 of the
 * big-endian digest) with `x-amz-checksum-type`: `FULL_OBJECT` for a checksum of the whole object, `COMPOSITE`
 * for a multipart object's checksum of its parts' checksums (`<base64>-<parts>`), as S3 answers for a
 * whole-object read. SDKs then validate the body they receive against a full-object one (and skip composite ones).
 */
import type { StoreObject } from '../store/index.js';
import { storedChecksums } from '../store/checksums.js';
import { CHECKSUM_ALGORITHMS } from './checksum.js';
import { shownChecksum } from './multipart-checksum.js';

/** The object's flexible checksums as S3 shows them: base64 values by algorithm and their type; undefined when none. */
export function shownChecksums(obj: StoreObject): { values: Map<string, string>; type: 'COMPOSITE' | 'FULL_OBJECT' } | undefined {
  const stored = storedChecksums(obj.checksums);
  const values = new Map<string, string>();
  let type: 'COMPOSITE' | 'FULL_OBJECT' = 'FULL_OBJECT';
  for (const algorithm of CHECKSUM_ALGORITHMS) {
    const hex = stored[algorithm];
    if (hex === undefined) continue;
    const shown = shownChecksum(hex);
    values.set(algorithm, shown.value);
    type = shown.type;
  }
  return values.size > 0 ? { values, type } : undefined;
}

/** Adds the object's checksums to `headers` when the request asked for them. */
export function addChecksumHeaders(headers: Headers, request: Headers, obj: StoreObject): void {
  if (request.get('x-amz-checksum-mode')?.toUpperCase() !== 'ENABLED') return;
  const shown = shownChecksums(obj);
  if (!shown) return;
  for (const [algorithm, value] of shown.values) headers.set(`x-amz-checksum-${algorithm}`, value);
  headers.set('x-amz-checksum-type', shown.type);
}

/** The elements `ChecksumCRC32`…`ChecksumSHA256` and `ChecksumType` of an XML answer (CompleteMultipartUpload). */
export function checksumElements(obj: StoreObject): Record<string, string> {
  const shown = shownChecksums(obj);
  if (!shown) return {};
  const out: Record<string, string> = {};
  for (const [algorithm, value] of shown.values) out[`Checksum${algorithm.toUpperCase()}`] = value;
  out.ChecksumType = shown.type;
  return out;
}
