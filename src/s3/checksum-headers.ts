/**
 * Stored checksums on GetObject/HeadObject answers: with `x-amz-checksum-mode: ENABLED` (the SDKs'
 * `ChecksumMode`), every stored flexible checksum of the object as `x-amz-checksum-<algorithm>` (base64 of the
 * big-endian digest) with `x-amz-checksum-type: FULL_OBJECT`, as S3 answers for a whole-object read. SDKs then
 * validate the body they receive against it.
 */
import type { StoreObject } from '../store/index.js';
import { storedChecksums } from '../store/checksums.js';
import { CHECKSUM_ALGORITHMS } from './checksum.js';

/** Adds the object's checksums to `headers` when the request asked for them. */
export function addChecksumHeaders(headers: Headers, request: Headers, obj: StoreObject): void {
  if (request.get('x-amz-checksum-mode')?.toUpperCase() !== 'ENABLED') return;
  const stored = storedChecksums(obj.checksums);
  let any = false;
  for (const algorithm of CHECKSUM_ALGORITHMS) {
    const hex = stored[algorithm];
    if (hex === undefined) continue;
    headers.set(`x-amz-checksum-${algorithm}`, Buffer.from(hex, 'hex').toString('base64'));
    any = true;
  }
  if (any) headers.set('x-amz-checksum-type', 'FULL_OBJECT');
}
