/**
 * S3 request headers to bucket binding options, and stored objects to S3 response headers: HTTP metadata,
 * `x-amz-meta-*`, storage classes, SSE-C, preconditions and ranges.
 */
import { createHash } from 'node:crypto';
import type { StoreHTTPMetadata, StoreObject, StoreRange } from '../store/index.js';
import { S3Error } from './errors.js';
import { parseEtagHeader, quoteBareEtags } from '../store/conditional.js';
import { decodeMetadataValue, encodeMetadataValue } from './metadata-encoding.js';

/** Content-MD5 as 16 raw bytes (the binding's md5 option), or undefined when absent; InvalidDigest when malformed. */
export function contentMd5(headers: Headers): Uint8Array | undefined {
  const value = headers.get('content-md5');
  if (value === null) return undefined;
  const bytes = Buffer.from(value, 'base64');
  if (bytes.length !== 16 || bytes.toString('base64') !== value) throw new S3Error('InvalidDigest', 'The Content-MD5 you specified was invalid.', 400);
  return new Uint8Array(bytes);
}

/** S3 storage class names and the binding's. */
const TO_STORE_CLASS: Record<string, string> = { STANDARD: 'Standard', STANDARD_IA: 'InfrequentAccess' };
const TO_S3_CLASS: Record<string, string> = { Standard: 'STANDARD', InfrequentAccess: 'STANDARD_IA' };

/** The S3 name of a stored object's storage class. */
export function s3StorageClass(storeClass: string): string {
  return TO_S3_CLASS[storeClass] ?? storeClass;
}

/** `x-amz-storage-class` as the binding's class, or undefined when absent. */
export function storageClassFrom(headers: Headers): string | undefined {
  const value = headers.get('x-amz-storage-class');
  if (value === null) return undefined;
  const cls = TO_STORE_CLASS[value];
  if (!cls) throw new S3Error('InvalidStorageClass', 'The storage class you specified is not valid.', 400);
  return cls;
}

/** The HTTP metadata a put or an upload stores, from the request's headers. */
export function httpMetadataFrom(headers: Headers): StoreHTTPMetadata {
  const out: StoreHTTPMetadata = {};
  const set = (header: string, field: Exclude<keyof StoreHTTPMetadata, 'cacheExpiry'>): void => {
    const v = headers.get(header);
    if (v !== null) out[field] = v;
  };
  set('content-type', 'contentType');
  set('content-language', 'contentLanguage');
  set('content-disposition', 'contentDisposition');
  set('content-encoding', 'contentEncoding');
  set('cache-control', 'cacheControl');
  // aws-chunked is the transfer framing of the request, not the object's encoding.
  if (out.contentEncoding !== undefined) {
    const rest = out.contentEncoding.split(',').map((s) => s.trim()).filter((s) => s && s !== 'aws-chunked');
    if (rest.length > 0) out.contentEncoding = rest.join(', ');
    else delete out.contentEncoding;
  }
  const expires = headers.get('expires');
  if (expires !== null) {
    const d = new Date(expires);
    if (!Number.isNaN(d.getTime())) out.cacheExpiry = d;
  }
  return out;
}

/**
 * `x-amz-meta-*` headers as custom metadata (names lowercased, as S3 returns them; non-ASCII values decoded:
 * `metadata-encoding.ts`).
 */
export function customMetadataFrom(headers: Headers): Record<string, string> {
  const out: Record<string, string> = {};
  headers.forEach((value, name) => {
    if (name.startsWith('x-amz-meta-')) out[name.slice('x-amz-meta-'.length)] = decodeMetadataValue(value);
  });
  return out;
}

const SSEC = 'x-amz-server-side-encryption-customer-';
/** The SSE-C headers of a copy's source (`x-amz-copy-source-server-side-encryption-customer-*`). */
const SOURCE_SSEC = 'x-amz-copy-source-server-side-encryption-customer-';

/**
 * The SSE-C key of a request (the 32 raw bytes), checked against its MD5 header; undefined when the request
 * has no SSE-C headers. `of: 'copy-source'` reads the key of a copy's source.
 */
export function ssecKeyFrom(headers: Headers, of: 'object' | 'copy-source' = 'object'): Uint8Array | undefined {
  const prefix = of === 'copy-source' ? SOURCE_SSEC : SSEC;
  const algorithm = headers.get(`${prefix}algorithm`);
  const key = headers.get(`${prefix}key`);
  const keyMd5 = headers.get(`${prefix}key-md5`);
  if (algorithm === null && key === null && keyMd5 === null) return undefined;
  if (algorithm !== 'AES256') throw new S3Error('InvalidEncryptionAlgorithmError', 'The Encryption request you specified is not valid. Supported value: AES256.', 400);
  const bytes = key === null ? Buffer.alloc(0) : Buffer.from(key, 'base64');
  // Node's decoder skips what follows padding or is not base64; only the canonical form of 32 bytes is a key.
  if (bytes.length !== 32 || bytes.toString('base64') !== key) throw new S3Error('InvalidArgument', 'The secret key was invalid for the specified algorithm.', 400);
  // S3 requires the key's MD5 (every SDK sends it), so a key damaged on the way is caught.
  if (keyMd5 === null) throw new S3Error('InvalidArgument', 'Requests specifying Server Side Encryption with Customer provided keys must provide the client calculated MD5 of the secret key.', 400);
  const digest = createHash('md5').update(bytes).digest('base64');
  if (digest !== keyMd5) throw new S3Error('InvalidArgument', 'The calculated MD5 hash of the key did not match the hash that was provided.', 400);
  return new Uint8Array(bytes);
}

/**
 * The `Range` header as S3 reads it: one `bytes=first-last`, `bytes=first-` or `bytes=-suffix` range.
 * Anything else (absent, malformed, several ranges, last before first) is ignored: the whole object.
 */
export function rangeFrom(headers: Headers): StoreRange | undefined {
  const value = headers.get('range');
  const m = value === null ? null : /^\s*bytes\s*=\s*(\d*)\s*-\s*(\d*)\s*$/i.exec(value);
  if (!m || (m[1] === '' && m[2] === '')) return undefined;
  if (m[1] === '') return { suffix: Number(m[2]) };
  const offset = Number(m[1]);
  if (m[2] === '') return { offset };
  const last = Number(m[2]);
  return last < offset ? undefined : { offset, length: last - offset + 1 };
}

/**
 * Only the precondition headers of a request (If-Match, If-None-Match, If-Modified-Since, If-Unmodified-Since),
 * for the binding's `onlyIf`. Etags may come without quotes, as S3 accepts them; a list that still does not
 * parse is InvalidArgument (400).
 */
export function preconditionsFrom(headers: Headers, prefix = ''): Headers | undefined {
  const out = new Headers();
  for (const name of ['if-match', 'if-none-match', 'if-modified-since', 'if-unmodified-since']) {
    let v = headers.get(prefix + name);
    if (v === null) continue;
    if (name === 'if-match' || name === 'if-none-match') {
      v = quoteBareEtags(v);
      let parsed: unknown[] = [];
      try {
        parsed = parseEtagHeader(v);
      } catch {
        parsed = [];
      }
      if (parsed.length === 0) throw new S3Error('InvalidArgument', `Invalid ETag in ${name} header`, 400, { ArgumentName: name });
    }
    out.set(name, v);
  }
  return [...out.keys()].length > 0 ? out : undefined;
}

/** The characters of an HTTP header name (RFC 9110 §5.1, a token). */
const HEADER_NAME = /^[A-Za-z0-9!#$%&'*+.^_`|~-]+$/;

/** Headers describing a stored object, as GetObject and HeadObject return them. */
export function objectHeaders(obj: StoreObject): Headers {
  const headers = new Headers();
  obj.writeHttpMetadata(headers);
  headers.set('etag', obj.httpEtag);
  headers.set('last-modified', obj.uploaded.toUTCString());
  headers.set('accept-ranges', 'bytes');
  if (obj.storageClass !== 'Standard') headers.set('x-amz-storage-class', s3StorageClass(obj.storageClass));
  // A key that is no HTTP header name (set through a binding or the v4 API: `café`, a space) cannot be an
  // x-amz-meta-* header; S3 leaves such entries out and counts them in x-amz-missing-meta.
  let missing = 0;
  for (const [k, v] of Object.entries(obj.customMetadata ?? {})) {
    if (HEADER_NAME.test(k)) headers.set(`x-amz-meta-${k}`, encodeMetadataValue(v));
    else missing++;
  }
  if (missing > 0) headers.set('x-amz-missing-meta', String(missing));
  for (const [name, value] of Object.entries(ssecResponseHeaders(obj.ssecKeyMd5))) headers.set(name, value);
  return headers;
}

/** The SSE-C headers of an answer about an object encrypted with the key of this MD5 (none when there is no key). */
export function ssecResponseHeaders(keyMd5: string | null | undefined): Record<string, string> {
  return keyMd5 ? { [`${SSEC}algorithm`]: 'AES256', [`${SSEC}key-md5`]: hexOrBase64ToBase64(keyMd5) } : {};
}

/** Hex MD5 of an SSE-C key, as the binding reports it. */
export function keyMd5Hex(key: Uint8Array): string {
  return createHash('md5').update(key).digest('hex');
}

/** The key MD5 as base64 (the binding reports it in hex). */
export function hexOrBase64ToBase64(value: string): string {
  return /^[0-9a-f]{32}$/.test(value) ? Buffer.from(value, 'hex').toString('base64') : value;
}

/** The `response-*` query parameters of GetObject override these response headers. */
export const RESPONSE_OVERRIDES: Record<string, string> = {
  'response-content-type': 'content-type',
  'response-content-language': 'content-language',
  'response-expires': 'expires',
  'response-cache-control': 'cache-control',
  'response-content-disposition': 'content-disposition',
  'response-content-encoding': 'content-encoding',
};
