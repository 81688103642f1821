/**
 * Multipart uploads: CreateMultipartUpload, UploadPart, CompleteMultipartUpload, AbortMultipartUpload and
 * ListMultipartUploads, on the binding's multipart API (so uploads are shared with edge scripts).
 */
import { withKnownLength } from '../../store/index.js';
import type { StoreObject, StoreGetOptions, StoreMultipartOptions, StoreObjectBody, StoreUploadedPart } from '../../store/index.js';
import { existingBucket, keyOf, type S3Request } from '../context.js';
import { S3Error, s3Error, toS3Error } from '../errors.js';
import { verifiedBody } from '../body.js';
import { customMetadataFrom, httpMetadataFrom, preconditionsFrom, keyMd5Hex, s3StorageClass, ssecKeyFrom, ssecResponseHeaders, storageClassFrom } from '../headers.js';
import { childrenNamed, childText, parseXml, xmlDocument, XmlSyntaxError } from '../xml.js';
import { readSmallBody } from './small-body.js';
import { ownerOf } from '../expected-owner.js';
import { parseCopySource } from '../copy-source.js';
import { evaluateReadPreconditions } from '../preconditions.js';
import { runningChecksum } from '../checksum.js';
import { checksumElements } from '../checksum-headers.js';
import {
  checkCompletion, expectObjectChecksum, hexOf, requireListedChecksums, listedPartChecksums, objectChecksumOf, storedUploadChecksum, uploadChecksumFrom, type UploadChecksum,
} from '../multipart-checksum.js';

const xml = (body: string, headers: Record<string, string> = {}): Response =>
  new Response(body, { status: 200, headers: { 'content-type': 'application/xml', ...headers } });

/** POST /bucket/key?uploads */
export async function createMultipartUpload(r: S3Request): Promise<Response> {
  const bucket = await existingBucket(r);
  const h = r.headers;
  const opts: StoreMultipartOptions = { httpMetadata: httpMetadataFrom(h), customMetadata: customMetadataFrom(h) };
  const cls = storageClassFrom(h);
  if (cls) opts.storageClass = cls;
  const key = ssecKeyFrom(h);
  if (key) opts.ssecKey = key;
  const sum = uploadChecksumFrom(h);
  if (sum) {
    opts.checksumAlgorithm = sum.algorithm;
    opts.checksumType = sum.type;
  }
  const upload = await bucket.createMultipartUpload(keyOf(r), opts).catch((err: unknown) => { throw toS3Error(err); });
  const headers = { ...ssecResponseHeaders(key && keyMd5Hex(key)), ...(sum ? { 'x-amz-checksum-algorithm': sum.algorithm.toUpperCase(), 'x-amz-checksum-type': sum.type } : {}) };
  return xml(xmlDocument('InitiateMultipartUploadResult', { Bucket: r.bucket!, Key: keyOf(r), UploadId: upload.uploadId }, true), headers);
}

/** The checksum settings of the request's upload when it is active (undefined otherwise: the store then refuses it). */
async function uploadSetting(r: S3Request): Promise<UploadChecksum | undefined> {
  // A read only (every part asks): the part's own write refuses an expired upload.
  const status = await r.deps.store.uploadOutcome(r.bucket!, keyOf(r), r.query.get('uploadId')!, { expire: false });
  return status.state === 'active' ? storedUploadChecksum(status) : undefined;
}

function partNumberOf(query: URLSearchParams): number {
  const raw = query.get('partNumber') ?? '';
  const n = /^\d+$/.test(raw) ? Number(raw) : NaN;
  if (!(n >= 1 && n <= 10000)) throw new S3Error('InvalidArgument', 'Part number must be an integer between 1 and 10000, inclusive', 400);
  return n;
}

/** PUT /bucket/key?partNumber=N&uploadId=U */
export async function uploadPart(r: S3Request): Promise<Response> {
  const bucket = await existingBucket(r);
  const partNumber = partNumberOf(r.query);
  // A part of an upload created with a checksum algorithm carries that checksum: verified, or computed here.
  const setting = await uploadSetting(r);
  const body = verifiedBody(r.req, r.auth, { compute: setting?.algorithm });
  const key = ssecKeyFrom(r.headers);
  const extraChecksums = (): Record<string, string> | undefined => {
    const sum = body.checksum();
    return sum ? { [sum.algorithm]: hexOf(sum.value) } : undefined;
  };
  let part: StoreUploadedPart;
  try {
    part = await bucket.resumeMultipartUpload(keyOf(r), r.query.get('uploadId')!).uploadPart(partNumber, body.stream, { ...(key ? { ssecKey: key } : {}), extraChecksums });
  } catch (err) {
    throw body.failure() ?? toS3Error(err);
  }
  const headers: Record<string, string> = { etag: `"${part.etag}"`, ...ssecResponseHeaders(key && keyMd5Hex(key)) };
  const sum = body.checksum();
  if (sum) headers[`x-amz-checksum-${sum.algorithm}`] = sum.value;
  return new Response(null, { status: 200, headers });
}

/**
 * The parts listed in a CompleteMultipartUpload document, which S3 requires in ascending order. A part number
 * listed again right after itself (a client that re-uploaded the part and listed both answers) counts once, with
 * its last listed etag, as S3 and ceph/s3-tests' `test_multipart_resend_first_finishes_last` expect.
 */
function completedParts(text: string): StoreUploadedPart[] {
  let parts: StoreUploadedPart[];
  try {
    const doc = parseXml(text);
    if (doc.name !== 'CompleteMultipartUpload') throw new XmlSyntaxError('root is not CompleteMultipartUpload');
    parts = childrenNamed(doc, 'Part').map((p) => {
      const n = childText(p, 'PartNumber')?.trim();
      const etag = childText(p, 'ETag')?.trim();
      if (!n || !/^\d+$/.test(n) || etag === undefined) throw new XmlSyntaxError('Part without PartNumber or ETag');
      const checksums = listedPartChecksums((name) => childText(p, name));
      return { partNumber: Number(n), etag: etag.replace(/^"(.*)"$/, '$1'), ...(checksums ? { checksums } : {}) };
    });
  } catch (err) {
    if (err instanceof XmlSyntaxError) throw s3Error('MalformedXML', 400);
    throw err;
  }
  if (parts.length === 0) throw s3Error('MalformedXML', 400);
  const out: StoreUploadedPart[] = [parts[0]!];
  for (let i = 1; i < parts.length; i++) {
    const prev = out[out.length - 1]!;
    const part = parts[i]!;
    if (part.partNumber < prev.partNumber) {
      throw new S3Error('InvalidPartOrder', 'The list of parts was not in ascending order. The parts list must be specified in order by part number.', 400);
    }
    if (part.partNumber === prev.partNumber) out[out.length - 1] = part;
    else out.push(part);
  }
  return out;
}

/** NoSuchUpload (404) for an upload id. */
function noSuchUpload(uploadId: string): S3Error {
  return new S3Error('NoSuchUpload', 'The specified multipart upload does not exist. The upload ID may be invalid, or the upload may have been aborted or completed.', 404, { UploadId: uploadId });
}

/**
 * The conditions of a CompleteMultipartUpload: `If-None-Match: *` (only if the key has no object) and
 * `If-Match` (only if the key's object has that etag), as S3 takes them; undefined when there are none.
 */
function completionConditions(h: Headers): Headers | undefined {
  const all = preconditionsFrom(h);
  if (!all) return undefined;
  const out = new Headers();
  for (const name of ['if-match', 'if-none-match']) if (all.has(name)) out.set(name, all.get(name)!);
  return [...out.keys()].length > 0 ? out : undefined;
}

/**
 * POST /bucket/key?uploadId=U. A completed upload whose object is still the key's current one is answered
 * again with that object (an SDK retrying after a lost answer must not report a failure for an upload that
 * succeeded, as S3 answers it); an unknown, aborted or expired one is NoSuchUpload.
 */
export async function completeMultipartUpload(r: S3Request): Promise<Response> {
  const bucket = await existingBucket(r);
  const uploadId = r.query.get('uploadId')!;
  // Checksum headers of a completion name the object's checksum, not the document's.
  const parts = completedParts(await readSmallBody(r, { ignoreHeaders: true }));
  const onlyIf = completionConditions(r.headers);
  const status = await r.deps.store.uploadOutcome(r.bucket!, keyOf(r), uploadId);
  if (status.state === 'completed' && status.object) return completed(r, status.object);
  if (status.state !== 'active') throw noSuchUpload(uploadId);
  // SSE-C headers are optional here (as on S3), but when sent they must name the upload's key.
  const key = ssecKeyFrom(r.headers);
  if (key && keyMd5Hex(key) !== status.ssecKeyMd5) {
    throw new S3Error('InvalidArgument', status.ssecKeyMd5 ? 'The SSE-C key does not match the key the upload was created with.' : 'The upload was created without SSE-C; the request must not carry a key.', 400);
  }
  const setting = storedUploadChecksum(status);
  const expected = checkCompletion(setting, r.headers, parts);
  let refusal: S3Error | undefined;
  const objectChecksums = (_: unknown, used: Parameters<typeof objectChecksumOf>[1]): Record<string, string> => {
    const made = objectChecksumOf(setting, used);
    try {
      if (setting && expected !== undefined) expectObjectChecksum(setting, expected, made);
      requireListedChecksums(setting, parts);
    } catch (err) {
      throw (refusal = err as S3Error);
    }
    return made;
  };
  const handle = bucket.resumeMultipartUpload(keyOf(r), uploadId);
  const obj = await handle.completeIf!(parts, onlyIf, { objectChecksums }).catch((err: unknown) => { throw refusal ?? toS3Error(err); });
  if (!obj) {
    // As for PutObject: If-Match on a key without an object is NoSuchKey.
    if (onlyIf!.has('if-match') && !(await bucket.head(keyOf(r)).catch(() => 'unknown'))) throw s3Error('NoSuchKey', 404, { Key: keyOf(r) });
    throw s3Error('PreconditionFailed', 412, { Condition: onlyIf!.has('if-match') ? 'If-Match' : 'If-None-Match' });
  }
  return completed(r, obj);
}

function completed(r: S3Request, obj: StoreObject): Response {
  const location = `${r.url.origin}/${encodeURIComponent(r.bucket!)}/${keyOf(r).split('/').map(encodeURIComponent).join('/')}`;
  return xml(
    xmlDocument('CompleteMultipartUploadResult', { Location: location, Bucket: r.bucket!, Key: keyOf(r), ETag: obj.httpEtag, ...checksumElements(obj) }, true),
    ssecResponseHeaders(obj.ssecKeyMd5),
  );
}

/** DELETE /bucket/key?uploadId=U (NoSuchUpload unless the upload is in progress). */
export async function abortMultipartUpload(r: S3Request): Promise<Response> {
  const bucket = await existingBucket(r);
  const uploadId = r.query.get('uploadId')!;
  const active = async (): Promise<boolean> => (await r.deps.store.uploadOutcome(r.bucket!, keyOf(r), uploadId)).state === 'active';
  if (!(await active())) throw noSuchUpload(uploadId);
  try {
    await bucket.resumeMultipartUpload(keyOf(r), uploadId).abort();
  } catch (err) {
    // Completed or aborted by another request since the check above.
    if (!(await active())) throw noSuchUpload(uploadId);
    throw toS3Error(err);
  }
  return new Response(null, { status: 204 });
}

/** GET /bucket?uploads */
export async function listMultipartUploads(r: S3Request): Promise<Response> {
  await existingBucket(r);
  const q = r.query;
  const prefix = q.get('prefix') ?? '';
  const keyMarker = q.get('key-marker') ?? undefined;
  const uploadIdMarker = keyMarker !== undefined ? q.get('upload-id-marker') ?? undefined : undefined;
  const rawMax = q.get('max-uploads');
  if (rawMax !== null && !/^\d+$/.test(rawMax)) throw new S3Error('InvalidArgument', 'Provided max-uploads not an integer or within integer range', 400);
  const max = Math.min(rawMax === null ? 1000 : Number(rawMax), 1000);
  const found = max === 0 ? [] : await r.deps.store.listUploads(r.bucket!, {
    prefix, limit: max + 1, ...(keyMarker !== undefined ? { keyMarker } : {}), ...(uploadIdMarker !== undefined ? { uploadIdMarker } : {}),
  });
  const uploads = found.slice(0, max);
  const truncated = found.length > max;
  const last = uploads.at(-1);
  return xml(xmlDocument('ListMultipartUploadsResult', {
    Bucket: r.bucket!,
    KeyMarker: keyMarker ?? '',
    UploadIdMarker: uploadIdMarker ?? '',
    ...(truncated && last ? { NextKeyMarker: last.key, NextUploadIdMarker: last.uploadId } : {}),
    Prefix: prefix,
    MaxUploads: max,
    IsTruncated: truncated,
    Upload: uploads.map((u) => ({
      Key: u.key, UploadId: u.uploadId, Initiator: ownerOf(r), Owner: ownerOf(r), StorageClass: s3StorageClass(u.storageClass), Initiated: u.initiated.toISOString(),
    })),
  }, true));
}

/** GET /bucket/key?uploadId=U: the parts stored so far. */
export async function listParts(r: S3Request): Promise<Response> {
  await existingBucket(r);
  const q = r.query;
  const uploadId = q.get('uploadId')!;
  const rawMarker = q.get('part-number-marker');
  const rawMax = q.get('max-parts');
  if ((rawMarker !== null && !/^\d+$/.test(rawMarker)) || (rawMax !== null && !/^\d+$/.test(rawMax))) {
    throw new S3Error('InvalidArgument', 'Provided part-number-marker or max-parts not an integer or within integer range', 400);
  }
  const marker = rawMarker === null ? 0 : Number(rawMarker);
  const max = Math.min(rawMax === null ? 1000 : Number(rawMax), 1000);
  const found = await r.deps.store.listParts(r.bucket!, keyOf(r), uploadId, { partNumberMarker: marker, limit: max + 1 });
  if (!found) throw new S3Error('NoSuchUpload', 'The specified multipart upload does not exist.', 404, { UploadId: uploadId });
  const parts = found.parts.slice(0, max);
  const truncated = found.parts.length > max;
  return xml(xmlDocument('ListPartsResult', {
    Bucket: r.bucket!,
    Key: keyOf(r),
    UploadId: uploadId,
    Initiator: ownerOf(r),
    Owner: ownerOf(r),
    StorageClass: s3StorageClass(found.storageClass),
    PartNumberMarker: marker,
    ...(truncated ? { NextPartNumberMarker: parts.at(-1)!.partNumber } : {}),
    MaxParts: max,
    IsTruncated: truncated,
    ...(found.checksumAlgorithm ? { ChecksumAlgorithm: found.checksumAlgorithm.toUpperCase(), ChecksumType: found.checksumType ?? 'COMPOSITE' } : {}),
    Part: parts.map((p) => ({
      PartNumber: p.partNumber, LastModified: found.initiated.toISOString(), ETag: `"${p.etag}"`, Size: p.size,
      ...Object.fromEntries(Object.entries(p.checksums ?? {}).map(([alg, hex]) => [`Checksum${alg.toUpperCase()}`, Buffer.from(hex, 'hex').toString('base64')])),
    })),
  }, true));
}

/** `x-amz-copy-source-range: bytes=first-last` as the binding's range (both ends inclusive and inside the object). */
function copyRange(value: string | null, size: number): { offset: number; length: number } | undefined {
  if (value === null) return undefined;
  const m = /^bytes=(\d+)-(\d+)$/.exec(value.trim());
  if (!m || Number(m[1]) > Number(m[2])) {
    throw new S3Error('InvalidArgument', 'The x-amz-copy-source-range value must be of the form bytes=first-last where first and last are the zero-based offsets of the first and last bytes to copy', 400);
  }
  if (Number(m[2]) >= size) throw new S3Error('InvalidRange', 'The requested range is not satisfiable', 416, { RangeRequested: value, ActualObjectSize: String(size) });
  return { offset: Number(m[1]), length: Number(m[2]) - Number(m[1]) + 1 };
}

/** PUT /bucket/key?partNumber=N&uploadId=U with x-amz-copy-source: a part copied from a stored object (or a range of it). */
export async function uploadPartCopy(r: S3Request): Promise<Response> {
  const bucket = await existingBucket(r);
  const partNumber = partNumberOf(r.query);
  const h = r.headers;
  const source = parseCopySource(h.get('x-amz-copy-source')!);
  const from = await existingBucket(r, source.bucket);
  const head = await from.head(source.key).catch((err: unknown) => { throw toS3Error(err); });
  if (!head) throw s3Error('NoSuchKey', 404, { Key: source.key });
  const range = copyRange(h.get('x-amz-copy-source-range'), head.size);
  const sourceKey = ssecKeyFrom(h, 'copy-source');
  const opts: StoreGetOptions = { onlyIf: { etagMatches: head.etag }, ...(range ? { range } : {}), ...(sourceKey ? { ssecKey: sourceKey } : {}) };
  const obj = (await from.get(source.key, opts).catch((err: unknown) => { throw toS3Error(err); })) as StoreObjectBody | null;
  // The object changed between the two reads: answer as if the copy had started after the change.
  if (!obj || !('body' in obj)) throw new S3Error('InternalError', 'The source object changed during the copy; please retry.', 500);
  if (evaluateReadPreconditions(h, obj, 'x-amz-copy-source-') !== 'ok') {
    await obj.body.cancel();
    throw s3Error('PreconditionFailed', 412);
  }
  const key = ssecKeyFrom(h);
  // The upload's checksum of the copied bytes, computed as they pass.
  const setting = await uploadSetting(r);
  const sum = setting && runningChecksum(setting.algorithm);
  const bytes = sum
    ? withKnownLength(obj.body.pipeThrough(new TransformStream<Uint8Array, Uint8Array>({ transform(chunk, c) { sum.update(chunk); c.enqueue(chunk); } })), obj.range?.length ?? obj.size)
    : obj.body;
  let copied: Record<string, string> | undefined;
  const extraChecksums = (): Record<string, string> | undefined => (sum && setting ? (copied ??= { [setting.algorithm]: hexOf(sum.base64()) }) : undefined);
  const part = await bucket.resumeMultipartUpload(keyOf(r), r.query.get('uploadId')!)
    .uploadPart(partNumber, bytes, { ...(key ? { ssecKey: key } : {}), extraChecksums })
    .catch((err: unknown) => { throw toS3Error(err); });
  const checksum = extraChecksums();
  const elements = checksum && setting ? { [`Checksum${setting.algorithm.toUpperCase()}`]: Buffer.from(checksum[setting.algorithm]!, 'hex').toString('base64') } : {};
  return xml(xmlDocument('CopyPartResult', { LastModified: new Date().toISOString(), ETag: `"${part.etag}"`, ...elements }, true), ssecResponseHeaders(key && keyMd5Hex(key)));
}
