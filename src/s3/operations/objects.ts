/** Object operations: PutObject, GetObject, HeadObject, DeleteObject, DeleteObjects and CopyObject. */
import type { StoreBucket, StoreGetOptions, StoreObject, StoreObjectBody, StorePutOptions } from '../../store/index.js';
import { checkReadKey, parseSsecKey } from '../../store/ssec.js';
import { existingBucket, keyOf, type S3Request } from '../context.js';
import { S3Error, S3Messages, s3Error, toS3Error } from '../errors.js';
import { verifiedBody } from '../body.js';
import {
  contentMd5, customMetadataFrom, httpMetadataFrom, objectHeaders, preconditionsFrom, rangeFrom, RESPONSE_OVERRIDES,
  ssecKeyFrom, ssecResponseHeaders, storageClassFrom,
} from '../headers.js';
import { evaluateReadPreconditions } from '../preconditions.js';
import { childrenNamed, childText, parseXml, xmlDocument, XmlSyntaxError } from '../xml.js';
import { readSmallBody } from './small-body.js';
import { changedDuringRead, selectPart } from './part-read.js';
import { addChecksumHeaders } from '../checksum-headers.js';
import { storedChecksums } from '../../store/checksums.js';
import { parseCopySource } from '../copy-source.js';

/** Headers every write answer carries: the new etag and, for SSE-C, the key's algorithm and MD5. */
function writtenHeaders(obj: StoreObject): Headers {
  return new Headers({ etag: obj.httpEtag, ...ssecResponseHeaders(obj.ssecKeyMd5) });
}

/** PUT /bucket/key */
export async function putObject(r: S3Request): Promise<Response> {
  const bucket = await existingBucket(r);
  const h = r.headers;
  const body = verifiedBody(r.req, r.auth);
  const opts: StorePutOptions = { httpMetadata: httpMetadataFrom(h), customMetadata: customMetadataFrom(h) };
  const cls = storageClassFrom(h);
  if (cls) opts.storageClass = cls;
  const key = ssecKeyFrom(h);
  if (key) opts.ssecKey = key;
  const md5 = contentMd5(h);
  if (md5) opts.md5 = md5;
  const onlyIf = preconditionsFrom(h);
  if (onlyIf) opts.onlyIf = onlyIf;
  // The verified flexible checksum is stored with the object (returned with ChecksumMode=ENABLED).
  opts.extraChecksums = () => {
    const sum = body.checksum();
    return sum ? { [sum.algorithm]: Buffer.from(sum.value, 'base64').toString('hex') } : undefined;
  };
  let obj: StoreObject | null;
  try {
    obj = await bucket.put(keyOf(r), body.stream, opts);
  } catch (err) {
    throw body.failure() ?? toS3Error(err);
  }
  if (!obj) {
    // S3's conditional writes: If-Match on a key without an object is NoSuchKey, not a failed precondition.
    if (onlyIf?.has('if-match') && !(await bucket.head(keyOf(r)).catch(() => 'unknown'))) throw s3Error('NoSuchKey', 404, { Key: keyOf(r) });
    throw s3Error('PreconditionFailed', 412, { Condition: onlyIf?.has('if-match') ? 'If-Match' : 'If-None-Match' });
  }
  const headers = writtenHeaders(obj);
  const sum = body.checksum();
  if (sum) headers.set(`x-amz-checksum-${sum.algorithm}`, sum.value);
  return new Response(null, { status: 200, headers });
}

/** `Content-Range` of a ranged read: S3 answers 206 with it whenever it honoured a Range header. */
function contentRange(obj: StoreObject): string | undefined {
  if (!obj.range) return undefined;
  const { offset, length } = obj.range;
  return `bytes ${offset}-${offset + length - 1}/${obj.size}`;
}

/**
 * The object for GetObject, ranged when the request asks for a range. A range the object cannot satisfy is
 * read whole and flagged: preconditions are answered first (RFC 9110 §13.2.2), then 416 InvalidRange, as S3
 * does (an empty object included: no range of it exists).
 */
async function readObject(bucket: StoreBucket, key: string, opts: StoreGetOptions): Promise<{ obj: StoreObjectBody | null; unsatisfiable: boolean }> {
  try {
    return { obj: (await bucket.get(key, opts)) as StoreObjectBody | null, unsatisfiable: false };
  } catch (err) {
    const failure = toS3Error(err);
    if (failure.code !== 'InvalidRange' || opts.range === undefined) throw failure;
    const { range: _unsatisfiable, ...whole } = opts;
    const obj = (await bucket.get(key, whole).catch((e: unknown) => { throw toS3Error(e); })) as StoreObjectBody | null;
    return { obj, unsatisfiable: obj !== null };
  }
}

function applyOverrides(headers: Headers, query: URLSearchParams): void {
  for (const [param, header] of Object.entries(RESPONSE_OVERRIDES)) {
    const v = query.get(param);
    if (v !== null) headers.set(header, v);
  }
}

/** 304 (headers only) or 412 for a failed read precondition. */
function preconditionAnswer(outcome: 304 | 412, obj: StoreObject): Response {
  if (outcome === 412) throw s3Error('PreconditionFailed', 412);
  return new Response(null, { status: 304, headers: { etag: obj.httpEtag, 'last-modified': obj.uploaded.toUTCString() } });
}

/** GET /bucket/key (`partNumber`: one part, `part-read.ts`). */
export async function getObject(r: S3Request): Promise<Response> {
  const bucket = await existingBucket(r);
  const part = await selectPart(r);
  const opts: StoreGetOptions = {};
  const range = part?.range ?? rangeFrom(r.headers);
  if (range) opts.range = range;
  const key = ssecKeyFrom(r.headers);
  if (key) opts.ssecKey = key;
  const read = await readObject(bucket, keyOf(r), opts);
  const obj = read.obj;
  if (!obj) throw part ? changedDuringRead() : s3Error('NoSuchKey', 404, { Key: keyOf(r) });
  if (part && obj.etag !== part.etag) {
    await obj.body.cancel();
    throw changedDuringRead();
  }
  // No byte range of an empty object exists: S3 answers 416 there too.
  const unsatisfiable = read.unsatisfiable || (range !== undefined && !part && obj.size === 0);
  const outcome = evaluateReadPreconditions(r.headers, obj);
  if (outcome !== 'ok' || unsatisfiable) await obj.body.cancel();
  if (outcome !== 'ok') return preconditionAnswer(outcome, obj);
  if (unsatisfiable) {
    throw new S3Error('InvalidRange', 'The requested range is not satisfiable', 416, { RangeRequested: r.headers.get('range')!, ActualObjectSize: String(obj.size) });
  }
  const headers = objectHeaders(obj);
  applyOverrides(headers, r.query);
  if (part?.partsCount !== undefined) headers.set('x-amz-mp-parts-count', String(part.partsCount));
  if (!range || (part && !part.range)) addChecksumHeaders(headers, r.headers, obj);
  const cr = range ? contentRange(obj) : undefined;
  headers.set('content-length', String(cr ? obj.range!.length : obj.size));
  if (cr) headers.set('content-range', cr);
  return new Response(obj.body, { status: cr ? 206 : 200, headers });
}

/**
 * The key's object without its body; NoSuchKey when there is none. S3 needs the key to read an encrypted
 * object's metadata (the binding's head does not): the same check as a get, on the metadata alone.
 */
export async function headWithKey(r: S3Request): Promise<StoreObject> {
  const bucket = await existingBucket(r);
  const key = ssecKeyFrom(r.headers);
  let obj: StoreObject | null;
  try {
    obj = await bucket.head(keyOf(r));
    if (obj?.ssecKeyMd5) checkReadKey(obj.ssecKeyMd5, parseSsecKey(key));
  } catch (err) {
    throw toS3Error(err);
  }
  if (!obj) throw s3Error('NoSuchKey', 404, { Key: keyOf(r) });
  return obj;
}

/** HEAD /bucket/key (no body; SSE-C objects need their key, as on GET; `partNumber`: one part's length). */
export async function headObject(r: S3Request): Promise<Response> {
  const part = await selectPart(r);
  const obj = await headWithKey(r);
  const outcome = evaluateReadPreconditions(r.headers, obj);
  if (outcome !== 'ok') return preconditionAnswer(outcome, obj);
  if (part && obj.etag !== part.etag) throw changedDuringRead();
  const headers = objectHeaders(obj);
  applyOverrides(headers, r.query);
  if (part?.range) {
    const { offset, length } = part.range;
    headers.set('x-amz-mp-parts-count', String(part.partsCount));
    headers.set('content-length', String(length));
    headers.set('content-range', `bytes ${offset}-${offset + length - 1}/${obj.size}`);
    return new Response(null, { status: 206, headers });
  }
  addChecksumHeaders(headers, r.headers, obj);
  headers.set('content-length', String(obj.size));
  return new Response(null, { status: 200, headers });
}

/** An etag as a condition names it: quotes and a weak prefix removed (`*` kept). */
function bareEtag(value: string): string {
  return value.trim().replace(/^W\//, '').replace(/^"(.*)"$/, '$1');
}

/**
 * DELETE /bucket/key (204 whether or not the key existed). `If-Match` makes it conditional, as S3's
 * conditional deletes: the key's etag must match (`*`: it must exist), else 412 PreconditionFailed, or 404
 * NoSuchKey when there is no object; checked and deleted atomically. Other conditions are refused.
 */
export async function deleteObject(r: S3Request): Promise<Response> {
  await existingBucket(r);
  for (const name of ['if-none-match', 'if-modified-since', 'if-unmodified-since', 'x-amz-if-match-last-modified-time', 'x-amz-if-match-size']) {
    if (r.headers.has(name)) throw new S3Error('NotImplemented', `DeleteObject does not support the ${name} condition.`, 501, { Header: name });
  }
  const ifMatch = r.headers.get('if-match');
  if (ifMatch !== null && (ifMatch.includes(',') || bareEtag(ifMatch) === '')) {
    throw new S3Error('InvalidArgument', 'If-Match on DeleteObject takes one etag or *.', 400, { ArgumentName: 'If-Match' });
  }
  const entry = { key: keyOf(r), ...(ifMatch !== null ? { etag: bareEtag(ifMatch) } : {}) };
  const [result] = await r.deps.store.deleteObjectsIf(r.bucket!, [entry]).catch((err: unknown) => { throw toS3Error(err); });
  if (result!.outcome === 'missing') throw s3Error('NoSuchKey', 404, { Key: keyOf(r) });
  if (result!.outcome === 'mismatch') throw s3Error('PreconditionFailed', 412, { Condition: 'If-Match' });
  return new Response(null, { status: 204 });
}

/** POST /bucket?delete: up to 1000 keys in one request. */
export async function deleteObjects(r: S3Request): Promise<Response> {
  await existingBucket(r);
  const text = await readSmallBody(r);
  let keys: Array<{ key: string; etag?: string }>;
  let quiet: boolean;
  try {
    const doc = parseXml(text);
    if (doc.name !== 'Delete') throw new XmlSyntaxError('root is not Delete');
    keys = childrenNamed(doc, 'Object').map((o) => {
      const k = childText(o, 'Key');
      if (k === undefined) throw new XmlSyntaxError('Object without Key');
      for (const name of ['LastModifiedTime', 'Size']) {
        if (childText(o, name) !== undefined) throw new S3Error('NotImplemented', `DeleteObjects does not support the ${name} condition.`, 501);
      }
      const etag = childText(o, 'ETag');
      return etag === undefined ? { key: k } : { key: k, etag: bareEtag(etag) };
    });
    quiet = childText(doc, 'Quiet')?.trim() === 'true';
  } catch (err) {
    if (err instanceof XmlSyntaxError) throw s3Error('MalformedXML', 400);
    throw err;
  }
  if (keys.length === 0 || keys.length > 1000) throw s3Error('MalformedXML', 400);
  const results = await r.deps.store.deleteObjectsIf(r.bucket!, keys).catch((err: unknown) => { throw toS3Error(err); });
  const deleted = results.filter((x) => x.outcome === 'deleted');
  const failed = results.filter((x) => x.outcome !== 'deleted');
  const body = xmlDocument('DeleteResult', {
    Deleted: quiet ? [] : deleted.map((x) => ({ Key: x.key })),
    Error: failed.map((x) => x.outcome === 'missing'
      ? { Key: x.key, Code: 'NoSuchKey', Message: S3Messages.NoSuchKey }
      : { Key: x.key, Code: 'PreconditionFailed', Message: S3Messages.PreconditionFailed }),
  }, true);
  return new Response(body, { status: 200, headers: { 'content-type': 'application/xml' } });
}

/** PUT /bucket/key with x-amz-copy-source: a server-side copy (metadata copied or replaced). */
export async function copyObject(r: S3Request): Promise<Response> {
  const dest = await existingBucket(r);
  const h = r.headers;
  const source = parseCopySource(h.get('x-amz-copy-source')!);
  const from: StoreBucket = await existingBucket(r, source.bucket);
  const directive = h.get('x-amz-metadata-directive') ?? 'COPY';
  if (directive !== 'COPY' && directive !== 'REPLACE') throw new S3Error('InvalidArgument', 'Unknown metadata directive.', 400);
  const destKey = ssecKeyFrom(h);
  const cls = storageClassFrom(h);
  if (source.bucket === r.bucket && source.key === keyOf(r) && directive === 'COPY' && !cls && !destKey) {
    throw new S3Error('InvalidRequest', "This copy request is illegal because it is trying to copy an object to itself without changing the object's metadata, storage class, website redirect location or encryption attributes.", 400);
  }
  const sourceKey = ssecKeyFrom(h, 'copy-source');
  const obj = (await from.get(source.key, sourceKey ? { ssecKey: sourceKey } : {}).catch((err: unknown) => { throw toS3Error(err); })) as StoreObjectBody | null;
  if (!obj) throw s3Error('NoSuchKey', 404, { Key: source.key });
  if (evaluateReadPreconditions(h, obj, 'x-amz-copy-source-') !== 'ok') {
    await obj.body.cancel();
    throw s3Error('PreconditionFailed', 412);
  }
  const opts: StorePutOptions = directive === 'COPY'
    ? { httpMetadata: obj.httpMetadata ?? {}, customMetadata: obj.customMetadata ?? {} }
    : { httpMetadata: httpMetadataFrom(h), customMetadata: customMetadataFrom(h) };
  opts.storageClass = cls ?? obj.storageClass;
  if (destKey) opts.ssecKey = destKey;
  // The same bytes: the source's checksums hold for the copy.
  // (A multipart source's composite checksum describes its parts, not the copy's single body: it is not carried.)
  opts.extraChecksums = () => Object.fromEntries(Object.entries(storedChecksums(obj.checksums)).filter(([, hex]) => !hex.includes('-')));
  let written: StoreObject | null;
  try {
    written = await dest.put(keyOf(r), obj.body, opts);
  } catch (err) {
    throw toS3Error(err);
  }
  const headers = writtenHeaders(written!);
  headers.set('content-type', 'application/xml');
  const body = xmlDocument('CopyObjectResult', { LastModified: written!.uploaded.toISOString(), ETag: written!.httpEtag }, true);
  return new Response(body, { status: 200, headers });
}
