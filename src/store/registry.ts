/**
 * The bucket registry and the upload listing of an open store, for an S3 API's ListBuckets, CreateBucket,
 * DeleteBucket, HeadBucket, Get/PutBucketCors and ListMultipartUploads, plus what S3 needs beyond the binding:
 * upload outcomes (repeated completions), conditional deletes and part layouts (`partNumber` reads). Names are not validated here (the binding accepts any
 * name; the S3 layer checks S3's rules). Uploads older than the 7-day limit are aborted before a listing or a
 * deletion looks at them, so an expired upload neither shows up nor keeps a bucket from being deleted.
 */
import type { StoreContext } from './context.js';
import { UPLOAD_MAX_AGE_MS } from './gc.js';
import { checkKey, coerceKey } from './keys.js';
import type { BucketRecord } from './ports.js';
import type { BucketCorsRule, BucketInfo, CreateBucketOptions, PartListing, StorageClass, UploadInfo, UploadListOptions, UploadOutcome, ConditionalDelete, StoreObjectLayout } from './types.js';
import { defaultLifecycleRules } from './lifecycle/rules.js';
import { HeadResult } from './value/object.js';

/** Uploads a listing returns when no limit is given (S3's max-uploads default). */
const DEFAULT_UPLOAD_LIMIT = 1000;

/** The public view of a registry row (`name` as given: the namespace view strips its account prefix). */
export function toInfo(b: BucketRecord, name = b.name): BucketInfo {
  const storageClass = b.storageClass as StorageClass | null | undefined;
  return { name, created: new Date(b.created), ...(storageClass ? { storageClass } : {}), ...(b.location ? { location: b.location } : {}) };
}

/** Aborts uploads past their age limit (everywhere) and schedules deletion of their parts. */
async function expireUploads(ctx: StoreContext): Promise<void> {
  const expired = await ctx.meta.expireUploads(ctx.clock.now().getTime() - UPLOAD_MAX_AGE_MS);
  if (expired > 0) ctx.collector.schedule();
}

/** Every registered bucket, by name in UTF-8 byte order. */
export async function listBuckets(ctx: StoreContext): Promise<BucketInfo[]> {
  return (await ctx.meta.listBuckets()).map((b) => toInfo(b));
}

/** Registers a bucket dated now, with its settings and (by default) the default lifecycle rule; 'exists' when it already was registered. */
export async function createBucket(ctx: StoreContext, name: string, opts: CreateBucketOptions = {}): Promise<'created' | 'exists'> {
  const created = await ctx.meta.createBucket(String(name), ctx.clock.now().getTime(), {
    ...(opts.storageClass ? { storageClass: opts.storageClass } : {}),
    ...(opts.location ? { location: opts.location } : {}),
    lifecycle: JSON.stringify(opts.lifecycle ?? defaultLifecycleRules()),
  });
  return created ? 'created' : 'exists';
}

/** The registered bucket, or null. */
export async function bucketInfo(ctx: StoreContext, name: string): Promise<BucketInfo | null> {
  const b = await ctx.meta.getBucket(String(name));
  return b ? toInfo(b) : null;
}

/** The rule as stored: its known fields only, copied (strings as strings), so nothing else is kept. */
function corsRule(rule: BucketCorsRule): BucketCorsRule {
  const strings = (list: unknown): string[] => (Array.isArray(list) ? list.map(String) : []);
  return {
    ...(rule.id !== undefined ? { id: String(rule.id) } : {}),
    allowedOrigins: strings(rule.allowedOrigins),
    allowedMethods: strings(rule.allowedMethods),
    allowedHeaders: strings(rule.allowedHeaders),
    exposeHeaders: strings(rule.exposeHeaders),
    ...(rule.maxAgeSeconds !== undefined ? { maxAgeSeconds: Number(rule.maxAgeSeconds) } : {}),
  };
}

/** The bucket's CORS rules (stored as JSON with the bucket), or null. */
export async function getBucketCors(ctx: StoreContext, name: string): Promise<BucketCorsRule[] | null> {
  const stored = await ctx.meta.getBucketCors(String(name));
  return stored === null ? null : (JSON.parse(stored) as BucketCorsRule[]).map(corsRule);
}

/** Replaces (null or [] removes) the bucket's CORS rules; 'missing' when the bucket is not registered. */
export async function putBucketCors(ctx: StoreContext, name: string, rules: BucketCorsRule[] | null): Promise<'ok' | 'missing'> {
  const json = rules === null || rules.length === 0 ? null : JSON.stringify(rules.map(corsRule));
  return (await ctx.meta.setBucketCors(String(name), json)) ? 'ok' : 'missing';
}

/** Unregisters an empty bucket (no object, no active unexpired upload). */
export async function deleteBucket(ctx: StoreContext, name: string): Promise<'deleted' | 'missing' | 'not-empty'> {
  await expireUploads(ctx);
  const result = await ctx.meta.deleteBucket(String(name));
  if (result === 'deleted') ctx.collector.schedule();
  return result;
}

/** Clamps a listing limit to a non-negative integer (NaN lists nothing). */
function uploadLimit(limit: number | undefined): number {
  const n = Math.trunc(Number(limit ?? DEFAULT_UPLOAD_LIMIT));
  return Number.isNaN(n) ? 0 : Math.max(0, Math.min(n, Number.MAX_SAFE_INTEGER));
}

/** Active uploads of a bucket in ListMultipartUploads order, after the markers. */
export async function listUploads(ctx: StoreContext, bucket: string, opts: UploadListOptions = {}): Promise<UploadInfo[]> {
  const limit = uploadLimit(opts.limit);
  if (limit === 0) return [];
  await expireUploads(ctx);
  const rows = await ctx.meta.listUploads(String(bucket), {
    prefix: opts.prefix === undefined ? '' : coerceKey(opts.prefix),
    keyMarker: opts.keyMarker === undefined || opts.keyMarker === '' ? undefined : coerceKey(opts.keyMarker),
    uploadIdMarker: opts.uploadIdMarker === undefined ? undefined : String(opts.uploadIdMarker),
    limit,
  });
  return rows.map((u) => ({ key: u.key, uploadId: u.uploadId, initiated: new Date(u.created), storageClass: u.storageClass }));
}

/** The parts of an active upload of `key` after `partNumberMarker` (ListParts), or null when there is no such upload. */
export async function listParts(
  ctx: StoreContext,
  bucket: string,
  key: string,
  uploadId: string,
  opts: { partNumberMarker?: number; limit?: number } = {},
): Promise<PartListing | null> {
  await expireUploads(ctx);
  const upload = await ctx.meta.getUpload(String(bucket), String(uploadId));
  if (!upload || upload.state !== 'active' || upload.key !== key) return null;
  const marker = opts.partNumberMarker ?? 0;
  const limit = uploadLimit(opts.limit);
  const parts = (await ctx.meta.listParts(String(bucket), upload.uploadId))
    .filter((p) => p.partNumber > marker)
    .slice(0, limit)
    .map((p) => ({ partNumber: p.partNumber, size: p.size, etag: p.etag, ...(p.checksums ? { checksums: { ...p.checksums } } : {}) }));
  return {
    initiated: new Date(upload.created), storageClass: upload.storageClass, checksumAlgorithm: upload.checksumAlgorithm ?? null, checksumType: upload.checksumType ?? null, parts,
  };
}

/** Where an upload of `key` stands (`BucketStore.uploadOutcome`). */
export async function uploadOutcome(ctx: StoreContext, bucket: string, key: string, uploadId: string, opts: { expire?: boolean } = {}): Promise<UploadOutcome> {
  if (opts.expire !== false) await expireUploads(ctx);
  const upload = await ctx.meta.getUpload(String(bucket), String(uploadId));
  if (!upload || upload.key !== key) return { state: 'missing' };
  if (upload.state === 'active') {
    return { state: 'active', ssecKeyMd5: upload.ssecKeyMd5, checksumAlgorithm: upload.checksumAlgorithm ?? null, checksumType: upload.checksumType ?? null };
  }
  if (upload.state !== 'completed') return { state: upload.state };
  const current = await ctx.meta.getObject(String(bucket), key);
  const fromUpload = current?.body.kind === 'parts' && current.body.uploadId === upload.uploadId;
  return { state: 'completed', object: fromUpload ? new HeadResult(current) : null };
}

/**
 * Deletes keys, each only if its etag is still `etag` when one is given (`*`: only if it exists), checked under
 * the delete's lock (S3's conditional DeleteObject and DeleteObjects). Says per key what happened.
 */
export async function deleteObjectsIf(ctx: StoreContext, bucket: string, entries: ConditionalDelete[]): Promise<Array<{ key: string; outcome: 'deleted' | 'missing' | 'mismatch' }>> {
  const wanted = new Map<string, string | undefined>();
  for (const e of entries) {
    const key = coerceKey(e.key);
    checkKey(key);
    wanted.set(key, e.etag);
  }
  const refused = await ctx.meta.deleteObjects(String(bucket), [...wanted.keys()], (key, current) => {
    const etag = wanted.get(key);
    return etag === undefined || (current !== null && (etag === '*' || current.etag === etag));
  });
  ctx.collector.schedule();
  const why = new Map(refused.map((r) => [r.key, r.current === null ? ('missing' as const) : ('mismatch' as const)]));
  return entries.map((e) => ({ key: e.key, outcome: why.get(coerceKey(e.key)) ?? 'deleted' }));
}

/** The etag and part sizes of the key's object (`BucketStore.objectParts`). */
export async function objectParts(ctx: StoreContext, bucket: string, key: string): Promise<StoreObjectLayout | null> {
  const k = coerceKey(key);
  checkKey(k);
  const rec = await ctx.meta.getObject(String(bucket), k);
  if (!rec) return null;
  if (rec.body.kind !== 'parts') return { etag: rec.etag, partSizes: null };
  const parts = rec.body.parts ?? [];
  return { etag: rec.etag, partSizes: parts.map((p) => p.size), partChecksums: parts.map((p) => p.checksums ?? {}) };
}
