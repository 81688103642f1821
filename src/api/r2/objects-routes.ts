/**
 * Objects over v4 (`…/r2/buckets/:bucket_name/objects[/:key]`), as wrangler's `r2 object put|get|delete
 * --remote` and the SDK's `r2.buckets.objects.*` call them: PUT streams the body into the bucket with the
 * HTTP metadata headers (Content-Type, Content-Disposition, Content-Encoding, Content-Language,
 * Cache-Control, Expires) and `cf-r2-storage-class`; GET streams the body back with its metadata as headers
 * (errors stay v4 envelopes), honouring Range and the conditional headers (If-None-Match, If-Modified-Since:
 * 304; If-Match, If-Unmodified-Since: 412); DELETE removes the key; GET without a key lists (`prefix`, `delimiter`,
 * `cursor`, `start_after`, `per_page`). A token needs the Bucket Item groups on the bucket (or the account).
 */
import { Hono, type Context } from 'hono';
import type { ApiEnv } from '../context.js';
import { withBucketDefaults, withKnownLength, type BucketStore, type StoreBucket, type StoreHTTPMetadata, type StoreObject } from '../../store/index.js';
import { isoTimestamp } from '../../shared/clock.js';
import { ok } from '../respond.js';
import { successBody } from '../envelope.js';
import { accountBuckets, authorizeBucketItems, bucketParam } from './scope.js';
import { invalidArgument, noSuchBucket, noSuchKey } from './errors.js';
import { parseStorageClass } from './buckets-routes.js';
import { toAppError } from './store-errors.js';

/** Request headers stored as the object's HTTP metadata. */
/**
 * The custom metadata of a PUT: production's `cf-r2-custom-metadata` header, a JSON object of string values
 * (non-ASCII characters as `\u` escapes: a header is Latin-1); 400 (10040) for anything else. The store checks
 * the size (8,192 bytes of keys and values).
 */
function customMetadataOf(header: string | undefined): Record<string, string> | undefined {
  if (header === undefined || header === '') return undefined;
  let parsed: unknown;
  try {
    parsed = JSON.parse(header);
  } catch {
    throw invalidArgument('Invalid cf-r2-custom-metadata header: send a JSON object of string values');
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed) || !Object.values(parsed).every((v) => typeof v === 'string')) {
    throw invalidArgument('Invalid cf-r2-custom-metadata header: send a JSON object of string values');
  }
  return parsed as Record<string, string>;
}

function httpMetadataOf(c: Context<ApiEnv>): StoreHTTPMetadata {
  const h = (name: string) => c.req.header(name) || undefined;
  const expires = h('expires');
  const meta: StoreHTTPMetadata = {};
  if (h('content-type')) meta.contentType = h('content-type');
  if (h('content-disposition')) meta.contentDisposition = h('content-disposition');
  if (h('content-encoding')) meta.contentEncoding = h('content-encoding');
  if (h('content-language')) meta.contentLanguage = h('content-language');
  if (h('cache-control')) meta.cacheControl = h('cache-control');
  if (expires) {
    const at = new Date(expires);
    if (Number.isNaN(at.getTime())) throw invalidArgument(`Invalid Expires header ${JSON.stringify(expires)}: send an HTTP date`);
    meta.cacheExpiry = at;
  }
  return meta;
}

/** The object entry of v4 answers and listings. */
function objectView(o: StoreObject): Record<string, unknown> {
  const m = o.httpMetadata ?? {};
  return {
    key: o.key, etag: o.etag, size: o.size, last_modified: isoTimestamp(o.uploaded), uploaded: isoTimestamp(o.uploaded), version: o.version,
    storage_class: o.storageClass, custom_metadata: o.customMetadata ?? {},
    http_metadata: {
      ...(m.contentType ? { contentType: m.contentType } : {}), ...(m.contentDisposition ? { contentDisposition: m.contentDisposition } : {}),
      ...(m.contentEncoding ? { contentEncoding: m.contentEncoding } : {}), ...(m.contentLanguage ? { contentLanguage: m.contentLanguage } : {}),
      ...(m.cacheControl ? { cacheControl: m.cacheControl } : {}), ...(m.cacheExpiry ? { cacheExpiry: m.cacheExpiry.toISOString() } : {}),
    },
  };
}

/** Routes of objects. */
export function r2ObjectRoutes(store: BucketStore): Hono<ApiEnv> {
  const app = new Hono<ApiEnv>();
  const base = '/accounts/:account_id/r2/buckets/:bucket_name/objects';

  /** The bucket of the path as a binding, after the access checks; 10006 when the account has no such bucket. */
  async function target(c: Context<ApiEnv>, level: 'read' | 'edit'): Promise<StoreBucket> {
    const { accountId, buckets } = accountBuckets(c, store);
    const name = bucketParam(c);
    authorizeBucketItems(c, accountId, name, level);
    const info = await buckets.bucketInfo(name);
    if (!info) throw noSuchBucket();
    return buckets.bucket(name, withBucketDefaults(info, { compatibilityFlags: ['store_list_honor_include'] }));
  }

  app.put(`${base}/:key{.+}`, async (c) => {
    const bucket = await target(c, 'edit');
    const storageClass = parseStorageClass(c.req.header('cf-r2-storage-class'), 'cf-r2-storage-class header');
    const httpMetadata = httpMetadataOf(c);
    const customMetadata = customMetadataOf(c.req.header('cf-r2-custom-metadata'));
    const length = c.req.header('content-length');
    if (length === undefined || !/^\d+$/.test(length)) throw invalidArgument('Send the object with a Content-Length header (the body is streamed into the bucket)');
    const raw = c.req.raw.body;
    const body = raw ? withKnownLength(raw, Number(length)) : new Uint8Array(0);
    let obj: StoreObject | null;
    try {
      obj = await bucket.put(c.req.param('key'), body, { httpMetadata, ...(customMetadata ? { customMetadata } : {}), ...(storageClass ? { storageClass } : {}) });
    } catch (err) {
      throw toAppError(err);
    }
    return ok(c, objectView(obj!));
  });

  app.get(`${base}/:key{.+}`, async (c) => {
    const bucket = await target(c, 'read');
    const headers = c.req.raw.headers;
    const ranged = headers.has('range');
    let obj;
    try {
      obj = await bucket.get(c.req.param('key'), { onlyIf: headers, ...(ranged ? { range: headers } : {}) });
    } catch (err) {
      throw toAppError(err);
    }
    if (!obj) throw noSuchKey();
    const out = new Headers();
    obj.writeHttpMetadata(out);
    out.set('etag', obj.httpEtag);
    out.set('last-modified', obj.uploaded.toUTCString());
    if (!('body' in obj)) {
      // A precondition failed: If-Match / If-Unmodified-Since is 412, If-None-Match / If-Modified-Since 304.
      return new Response(null, { status: headers.has('if-match') || headers.has('if-unmodified-since') ? 412 : 304, headers: out });
    }
    const { offset, length } = obj.range ?? { offset: 0, length: obj.size };
    out.set('content-length', String(length));
    if (ranged && obj.range) out.set('content-range', `bytes ${offset}-${offset + length - 1}/${obj.size}`);
    return new Response(obj.body, { status: ranged && obj.range ? 206 : 200, headers: out });
  });

  app.delete(`${base}/:key{.+}`, async (c) => {
    const bucket = await target(c, 'edit');
    const key = c.req.param('key');
    try {
      await bucket.delete(key);
    } catch (err) {
      throw toAppError(err);
    }
    return ok(c, { key });
  });

  app.get(base, async (c) => {
    const bucket = await target(c, 'read');
    const q = (n: string) => c.req.query(n) || undefined;
    const perPageRaw = q('per_page');
    const limit = perPageRaw === undefined ? 1000 : Number(perPageRaw);
    if (!Number.isInteger(limit) || limit < 1 || limit > 1000) throw invalidArgument(`Invalid per_page ${JSON.stringify(perPageRaw)}: a whole number from 1 to 1000`);
    let listed;
    try {
      listed = await bucket.list({ prefix: q('prefix'), delimiter: q('delimiter'), cursor: q('cursor'), startAfter: q('start_after'), limit, include: ['httpMetadata', 'customMetadata'] });
    } catch (err) {
      throw toAppError(err);
    }
    const body = successBody(listed.objects.map(objectView), c.get('messages'));
    return c.json({
      ...body,
      result_info: { per_page: limit, is_truncated: listed.truncated, delimited: listed.delimitedPrefixes, ...(listed.truncated ? { cursor: listed.cursor } : {}) },
    });
  });
  return app;
}
