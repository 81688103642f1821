/**
 * `partNumber` on GetObject and HeadObject: read one part of an object made by a multipart upload (as a range
 * of it, answered 206 with `Content-Range` and `x-amz-mp-parts-count`), or part 1 of any other object (the
 * whole object). A part the object does not have is 416 InvalidPartNumber, as S3 answers.
 */
import type { S3Request } from '../context.js';
import { keyOf } from '../context.js';
import { S3Error, s3Error, toS3Error } from '../errors.js';

/** What a `partNumber` read selects. */
export interface PartSelection {
  /** The part's bytes within the object; absent for part 1 of a single-part object (the whole object). */
  range?: { offset: number; length: number };
  /** Number of parts of a multipart object. */
  partsCount?: number;
  /** Etag of the object the selection was made on (the read must find the same one). */
  etag: string;
}

/** The selection of the request's `partNumber`, or undefined when it has none. */
export async function selectPart(r: S3Request): Promise<PartSelection | undefined> {
  const raw = r.query.get('partNumber');
  if (raw === null) return undefined;
  const n = /^\d{1,5}$/.test(raw) ? Number(raw) : NaN;
  if (!(n >= 1 && n <= 10000)) throw new S3Error('InvalidArgument', 'Part number must be an integer between 1 and 10000, inclusive', 400, { ArgumentName: 'partNumber', ArgumentValue: raw });
  if (r.headers.has('range')) throw new S3Error('InvalidRequest', 'Cannot specify both Range header and partNumber query parameter', 400);
  const layout = await r.deps.store.objectParts(r.bucket!, keyOf(r)).catch((err: unknown) => { throw toS3Error(err); });
  if (!layout) throw s3Error('NoSuchKey', 404, { Key: keyOf(r) });
  const sizes = layout.partSizes;
  const count = sizes?.length ?? 1;
  if (n > count) throw new S3Error('InvalidPartNumber', 'The requested partnumber is not satisfiable', 416, { PartNumberRequested: String(n), ActualPartCount: String(count) });
  if (!sizes) return { etag: layout.etag };
  const offset = sizes.slice(0, n - 1).reduce((a, b) => a + b, 0);
  return { range: { offset, length: sizes[n - 1]! }, partsCount: count, etag: layout.etag };
}

/** The answer when the object changed between selecting the part and reading it: a retryable 503. */
export function changedDuringRead(): S3Error {
  return new S3Error('SlowDown', 'The object changed while the part was being read; please retry.', 503);
}
