/**
 * HTTP and custom metadata of objects: parsing the object and Headers forms (reference §7.3), the custom
 * metadata size limit (8,192 UTF-8 bytes of keys plus values, per the design's contract decisions), and
 * rendering stored fields back into values and headers (§7.4).
 */
import { fail } from './errors.js';
import type { StoreHTTPMetadata } from './types.js';

/** Largest custom metadata, in UTF-8 bytes of keys plus values. */
export const MAX_CUSTOM_METADATA_BYTES = 8192;

/** Stored form: strings, and cacheExpiry as epoch ms. */
export type StoredHttpMetadata = Record<string, string | number>;

const STRING_FIELDS = ['contentType', 'contentLanguage', 'contentDisposition', 'contentEncoding', 'cacheControl'] as const;
const HEADER_OF: Record<(typeof STRING_FIELDS)[number], string> = {
  contentType: 'content-type',
  contentLanguage: 'content-language',
  contentDisposition: 'content-disposition',
  contentEncoding: 'content-encoding',
  cacheControl: 'cache-control',
};

/** Parses `httpMetadata` (object or Headers) into its stored form; unknown fields are dropped. */
export function parseHttpMetadata(value: unknown): StoredHttpMetadata {
  const out: StoredHttpMetadata = {};
  if (value === undefined || value === null) return out;
  if (value instanceof Headers) {
    for (const field of STRING_FIELDS) {
      const v = value.get(HEADER_OF[field]);
      if (v !== null) out[field] = v;
    }
    const expires = value.get('expires');
    if (expires !== null) {
      const ms = new Date(expires).getTime();
      if (Number.isFinite(ms)) out.cacheExpiry = ms;
    }
    return out;
  }
  if (typeof value !== 'object') throw new TypeError("Incorrect type for the 'httpMetadata' field on 'PutOptions': the provided value is not of type 'HttpMetadata or Headers'.");
  const o = value as Record<string, unknown>;
  for (const field of STRING_FIELDS) {
    const v = o[field];
    if (v === undefined) continue;
    if (typeof v !== 'string') throw new TypeError(`Incorrect type for the '${field}' field on 'HttpMetadata': the provided value is not of type 'string'.`);
    out[field] = v;
  }
  if (o.cacheExpiry !== undefined) {
    if (!(o.cacheExpiry instanceof Date)) throw new TypeError("Incorrect type for the 'cacheExpiry' field on 'HttpMetadata': the provided value is not of type 'date'.");
    out.cacheExpiry = o.cacheExpiry.getTime();
  }
  return out;
}

/** Parses `customMetadata`: values are coerced to strings. */
export function parseCustomMetadata(value: unknown): Record<string, string> {
  if (value === undefined || value === null) return {};
  if (typeof value !== 'object' || Array.isArray(value)) {
    throw new TypeError("Incorrect type for the 'customMetadata' field on 'PutOptions': the provided value is not of type 'object'.");
  }
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(value as Record<string, unknown>)) out[k] = String(v);
  return out;
}

/** Throws MetadataTooLarge (10012) when keys plus values exceed 8,192 UTF-8 bytes. */
export function checkCustomMetadataSize(meta: Record<string, string>): void {
  let total = 0;
  for (const [k, v] of Object.entries(meta)) total += Buffer.byteLength(k, 'utf8') + Buffer.byteLength(v, 'utf8');
  if (total > MAX_CUSTOM_METADATA_BYTES) fail('MetadataTooLarge');
}

/** The public `httpMetadata` value of a stored form (a fresh object). */
export function toHttpMetadata(stored: StoredHttpMetadata): StoreHTTPMetadata {
  const out = knownHttpFields(stored);
  return (typeof out.cacheExpiry === 'number' ? { ...out, cacheExpiry: new Date(out.cacheExpiry) } : out) as StoreHTTPMetadata;
}

/** The known fields of a stored form (a fresh object, in the runtime's order; cacheExpiry stays epoch ms). */
export function knownHttpFields(stored: StoredHttpMetadata): StoredHttpMetadata {
  const out: StoredHttpMetadata = {};
  for (const field of STRING_FIELDS) if (typeof stored[field] === 'string') out[field] = stored[field];
  if (typeof stored.cacheExpiry === 'number') out.cacheExpiry = stored.cacheExpiry;
  return out;
}

/** Sets the headers of the present fields, overwriting those headers (Expires as an HTTP date). */
export function writeHttpHeaders(meta: StoreHTTPMetadata, headers: Headers): void {
  for (const field of STRING_FIELDS) {
    const v = meta[field];
    if (v !== undefined) headers.set(HEADER_OF[field], v);
  }
  if (meta.cacheExpiry !== undefined) headers.set('expires', meta.cacheExpiry.toUTCString());
}
