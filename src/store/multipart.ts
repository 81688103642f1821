/**
 * Multipart uploads (reference §8): create, the resumable handle, uploadPart, complete with the checks in
 * the reference's order, abort. Uploads expire 7 days after creation (checked on access and by the sweep).
 */
import { createHash, randomBytes } from 'node:crypto';
import type { BucketSettings, StoreContext } from './context.js';
import { MAX_PUT_BYTES, resolveStorageClass } from './context.js';
import { fail } from './errors.js';
import { checkKey, coerceKey } from './keys.js';
import { checkCustomMetadataSize, parseCustomMetadata, parseHttpMetadata } from './metadata.js';
import { newIv, parseSsecKey } from './ssec.js';
import { Digester, EXTRA_CHECKSUMS } from './checksums.js';
import { classifyValue, requireKnownLength } from './value/input.js';
import { storeBody } from './body-io.js';
import { HeadResult } from './value/object.js';
import { UPLOAD_MAX_AGE_MS } from './gc.js';
import { run } from './run.js';
import { conditionHolds, parseConditional } from './conditional.js';
import type { ObjectRecord, PartRecord, UploadRecord } from './ports.js';
import type { StoreCompleteOptions, StoreConditional, StoreMultipartOptions, StoreMultipartUpload, StoreObject, StorePartValue, StoreUploadedPart, StoreUploadPartOptions } from './types.js';

/** Smallest part except the last: 5 MiB. */
export const MIN_PART_BYTES = 5 * 1024 * 1024;

/** Validates a part number like the runtime (integer truncation, then 1..10000). */
export function checkPartNumber(value: unknown): number {
  const n = Math.trunc(Number(value));
  if (!(n >= 1 && n <= 10000)) throw new TypeError(`Part number must be between 1 and 10000 (inclusive). Actual value was: ${Number.isNaN(n) ? 0 : n}`);
  return n;
}

/** Starts an upload. */
export async function createUpload(ctx: StoreContext, settings: BucketSettings, key: string, opts: StoreMultipartOptions | undefined): Promise<StoreMultipartUpload> {
  const o = (opts ?? {}) as Record<string, unknown>;
  const httpMetadata = parseHttpMetadata(o.httpMetadata);
  const customMetadata = parseCustomMetadata(o.customMetadata);
  const ssec = parseSsecKey(o.ssecKey);
  const k = coerceKey(key);
  checkKey(k);
  checkCustomMetadataSize(customMetadata);
  const storageClass = resolveStorageClass(o.storageClass, settings);
  const checksumAlgorithm = typeof o.checksumAlgorithm === 'string' && EXTRA_CHECKSUMS.has(o.checksumAlgorithm) ? o.checksumAlgorithm : null;
  const checksumType = checksumAlgorithm && (o.checksumType === 'FULL_OBJECT' || o.checksumType === 'COMPOSITE') ? o.checksumType : null;
  const upload: UploadRecord = {
    uploadId: randomBytes(128).toString('base64url'),
    key: k,
    created: ctx.clock.now().getTime(),
    state: 'active',
    httpMetadata,
    customMetadata,
    storageClass,
    ssecKeyMd5: ssec?.md5 ?? null,
    checksumAlgorithm,
    checksumType,
  };
  await ctx.meta.createUpload(settings.name, upload);
  return new MultipartHandle(ctx, settings, k, upload.uploadId);
}

/**
 * Checks the listed parts against the stored ones (§8.4 steps 2-5) and builds the object row. Throws the
 * service errors in the reference's order.
 */
export function buildCompleted(
  upload: UploadRecord | null,
  stored: PartRecord[],
  listed: StoreUploadedPart[],
  version: string,
  now: number,
  objectChecksums?: StoreCompleteOptions['objectChecksums'],
): { record: ObjectRecord; used: number[] } {
  if (!upload) fail('InternalError');
  if (upload.state !== 'active') fail('NoSuchUpload');
  const seen = new Set<number>();
  for (const p of listed) {
    if (seen.has(p.partNumber)) fail('InternalError');
    seen.add(p.partNumber);
  }
  const byNumber = new Map(stored.map((p) => [p.partNumber, p]));
  const chosen: PartRecord[] = [];
  for (const p of listed) {
    const part = byNumber.get(p.partNumber);
    if (!part || part.etag !== p.etag) fail('InvalidPart');
    // A checksum listed for the part must be the one verified when it was uploaded.
    for (const [alg, value] of Object.entries(p.checksums ?? {})) if (part.checksums?.[alg] !== value) fail('InvalidPart');
    chosen.push(part);
  }
  for (let i = 0; i < chosen.length - 1; i++) if (chosen[i]!.size < MIN_PART_BYTES) fail('EntityTooSmall');
  const sorted = [...chosen].sort((a, b) => a.partNumber - b.partNumber);
  if (sorted.length > 1) {
    const size = sorted[0]!.size;
    for (let i = 0; i < sorted.length - 1; i++) if (sorted[i]!.size !== size || sorted[i]!.size < MIN_PART_BYTES) fail('BadUpload');
    if (sorted[sorted.length - 1]!.size > size) fail('BadUpload');
  }
  const md5 = createHash('md5');
  for (const p of sorted) md5.update(Buffer.from(p.etag, 'hex'));
  const record: ObjectRecord = {
    key: upload.key,
    version,
    size: sorted.reduce((n, p) => n + p.size, 0),
    etag: `${md5.digest('hex')}-${sorted.length}`,
    uploaded: now,
    checksums: objectChecksums
      ? objectChecksums(
          { checksumAlgorithm: upload.checksumAlgorithm ?? null, checksumType: upload.checksumType ?? null },
          sorted.map((p) => ({ partNumber: p.partNumber, size: p.size, checksums: p.checksums ?? {} })),
        )
      : {},
    httpMetadata: upload.httpMetadata,
    customMetadata: upload.customMetadata,
    storageClass: upload.storageClass,
    ssec: upload.ssecKeyMd5 ? { keyMd5: upload.ssecKeyMd5, iv: '' } : null,
    body: { kind: 'parts', uploadId: upload.uploadId },
  };
  return { record, used: sorted.map((p) => p.partNumber) };
}

/** Thrown inside a completion whose condition fails, so the transaction rolls back. */
class ConditionNotMet extends Error {}

/** A multipart upload handle; `resumeMultipartUpload` makes one without any check. */
export class MultipartHandle implements StoreMultipartUpload {
  declare readonly key: string;
  declare readonly uploadId: string;
  readonly #ctx: StoreContext;
  readonly #settings: BucketSettings;

  constructor(ctx: StoreContext, settings: BucketSettings, key: string, uploadId: string) {
    Object.defineProperty(this, 'key', { value: key, enumerable: true });
    Object.defineProperty(this, 'uploadId', { value: uploadId, enumerable: true });
    this.#ctx = ctx;
    this.#settings = settings;
  }

  uploadPart(partNumber: number, value: StorePartValue, options?: StoreUploadPartOptions): Promise<StoreUploadedPart> {
    const ctx = this.#ctx;
    let size = 0;
    return run(ctx, 'uploadPart', async () => {
      const n = checkPartNumber(partNumber);
      const src = classifyValue(value, 'uploadPart');
      size = src.length ?? 0;
      try {
        const ssec = parseSsecKey((options as Record<string, unknown> | undefined)?.ssecKey);
        requireKnownLength(src);
        checkKey(this.key);
        if (src.length > MAX_PUT_BYTES) fail('EntityTooLarge');
        const bucket = this.#settings.name;
        const now = ctx.clock.now().getTime();
        const upload = await ctx.meta.getUpload(bucket, this.uploadId);
        if (!upload || upload.key !== this.key || upload.state !== 'active' || upload.created <= now - UPLOAD_MAX_AGE_MS) fail('NoSuchUpload');
        if ((upload.ssecKeyMd5 ?? undefined) !== ssec?.md5) {
          fail('InvalidArgument', upload.ssecKeyMd5 ? 'The SSE-C key of the part does not match the key the upload was created with.' : 'The upload was created without SSE-C; the part must not carry a key.');
        }
        const extraChecksums = (options as Record<string, unknown> | undefined)?.extraChecksums;
        const digester = new Digester(undefined);
        const iv = ssec ? newIv() : null;
        const body = await storeBody(ctx.blobs, src, digester, ssec && iv ? { key: ssec.key, iv } : undefined, false);
        const blobId = body.kind === 'blob' ? body.blobId : '';
        const etag = digester.finish().md5!;
        const part: PartRecord = { partNumber: n, size: src.length, etag, blobId, iv };
        const extra = typeof extraChecksums === 'function' ? (extraChecksums as () => Record<string, string> | undefined)() : undefined;
        for (const [name, hex] of Object.entries(extra ?? {})) {
          if (EXTRA_CHECKSUMS.has(name) && /^[0-9a-f]+$/.test(hex)) (part.checksums ??= {})[name] = hex;
        }
        const outcome = await ctx.meta.putPart(bucket, this.uploadId, this.key, part, ctx.clock.now().getTime(), UPLOAD_MAX_AGE_MS);
        if (outcome !== 'ok') {
          ctx.collector.discard(blobId);
          fail('NoSuchUpload');
        }
        ctx.collector.schedule();
        return { partNumber: n, etag };
      } catch (err) {
        src.cancel(err);
        throw err;
      }
    }, () => size);
  }

  abort(): Promise<void> {
    const ctx = this.#ctx;
    return run(ctx, 'abortMultipartUpload', async () => {
      checkKey(this.key);
      const upload = await ctx.meta.abortUpload(this.#settings.name, this.uploadId, this.key);
      if (!upload) fail('InternalError');
      ctx.collector.schedule();
    });
  }

  complete(uploadedParts: StoreUploadedPart[]): Promise<StoreObject> {
    return this.#complete(uploadedParts, {}) as Promise<StoreObject>;
  }

  /**
   * Stratus's extension for S3's conditional CompleteMultipartUpload (`If-Match`, `If-None-Match`): completes
   * only when `onlyIf` holds for the key's current object, checked under the completion's lock; null when it
   * does not (the upload stays active, as on S3).
   */
  completeIf(uploadedParts: StoreUploadedPart[], onlyIf: StoreConditional | Headers | undefined, options?: StoreCompleteOptions): Promise<StoreObject | null> {
    return this.#complete(uploadedParts, { ...options, onlyIf });
  }

  #complete(uploadedParts: StoreUploadedPart[], options: StoreCompleteOptions): Promise<StoreObject | null> {
    const ctx = this.#ctx;
    return run(ctx, 'completeMultipartUpload', async () => {
      const cond = parseConditional(options.onlyIf);
      if (!Array.isArray(uploadedParts)) throw new TypeError("Failed to execute 'complete' on 'R2MultipartUpload': parameter 1 is not of type 'Array'.");
      const listed = uploadedParts.map((p) => {
        const o = (p ?? {}) as unknown as Record<string, unknown>;
        const part: StoreUploadedPart = { partNumber: checkPartNumber(o.partNumber), etag: o.etag === undefined ? '' : String(o.etag) };
        if (o.checksums && typeof o.checksums === 'object') part.checksums = { ...(o.checksums as Record<string, string>) };
        return part;
      });
      checkKey(this.key);
      const now = ctx.clock.now().getTime();
      const version = randomBytes(16).toString('hex');
      let record: ObjectRecord;
      try {
        record = await ctx.meta.completeUpload(this.#settings.name, this.uploadId, this.key, now, UPLOAD_MAX_AGE_MS, (upload, parts, current) => {
          const built = buildCompleted(upload, parts, listed, version, now, options.objectChecksums);
          if (!conditionHolds(cond, current && { etag: current.etag, uploaded: current.uploaded })) throw new ConditionNotMet();
          return built;
        });
      } catch (err) {
        if (err instanceof ConditionNotMet) return null;
        throw err;
      }
      ctx.collector.schedule();
      return new HeadResult(record);
    });
  }
}
