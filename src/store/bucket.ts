/**
 * One bucket with exactly the binding's methods. Every method validates its arguments on the "client side"
 * first (TypeError/RangeError/Error with the runtime's texts), then runs the "server side" checks in the
 * reference's order (§2.3), and reports service failures as `"<action>: <message> (<code>)"`.
 */
import { newId } from '../shared/ids.js';
import type { StoreContext, BucketSettings } from './context.js';
import { MAX_PUT_BYTES, resolveStorageClass } from './context.js';
import { fail } from './errors.js';
import { run } from './run.js';
import { checkKey, coerceKey } from './keys.js';
import { conditionHolds, parseConditional } from './conditional.js';
import { parseRange, resolveRange, type ResolvedRange } from './range.js';
import { Digester, EXTRA_CHECKSUMS, parseHashOptions } from './checksums.js';
import { checkCustomMetadataSize, parseCustomMetadata, parseHttpMetadata } from './metadata.js';
import { checkReadKey, newIv, parseSsecKey } from './ssec.js';
import { classifyValue, requireKnownLength, type ValueSource } from './value/input.js';
import { GetResult, HeadResult } from './value/object.js';
import { openBody, storeBody, type OpenedBody } from './body-io.js';
import { listObjects } from './list.js';
import { createUpload, MultipartHandle } from './multipart.js';
import type { ObjectRecord } from './ports.js';
import type {
  StoreBucket,
  StoreGetOptions,
  StoreListOptions,
  StoreMultipartOptions,
  StoreMultipartUpload,
  StoreObject,
  StoreObjectBody,
  StoreObjects,
  StorePutOptions,
  StorePutValue,
} from './types.js';

/**
 * The key of a bucket's record reads: `head` and `get` answered as the stored record, its range and its opened
 * body, for a caller that encodes them itself (the store service answering workerd's binding) and would only
 * take the script-facing value apart again. A symbol, so the binding's own surface stays the runtime's.
 */
export const READ_RECORD = Symbol('stratus.bucket.readRecord');

/** What a `head` or `get` read: the record and range its value shows, and the body when every condition held (a `get`'s). */
export interface RecordRead {
  record: ObjectRecord;
  range: ResolvedRange;
  /** Absent for a `head`, and for a `get` whose condition failed (its value has no body). */
  body?: OpenedBody;
}

/** A bucket that reads records ({@link READ_RECORD}); every bucket the store opens does. */
export interface RecordReads {
  [READ_RECORD](action: 'head' | 'get', key: string, opts?: StoreGetOptions): Promise<RecordRead | null>;
}

/** Most keys one delete call takes. */
export const MAX_DELETE_KEYS = 1000;

function options(value: unknown, name: string): Record<string, unknown> {
  if (value === undefined || value === null) return {};
  if (typeof value !== 'object') throw new TypeError(`Failed to execute '${name}' on 'R2Bucket': parameter 2 is not of type '${name === 'get' ? 'GetOptions' : 'PutOptions'}'.`);
  return value as Record<string, unknown>;
}

/** The binding over one bucket name. */
export class Bucket implements StoreBucket, RecordReads {
  constructor(
    private readonly ctx: StoreContext,
    private readonly settings: BucketSettings,
  ) {}

  head(key: string): Promise<StoreObject | null> {
    return run(this.ctx, 'head', async () => {
      const read = await this.readHead(key);
      return read ? new HeadResult(read.record, read.range) : null;
    });
  }

  get(key: string, opts?: StoreGetOptions): Promise<StoreObjectBody | StoreObject | null> {
    return run(this.ctx, 'get', async () => {
      const read = await this.readGet(key, opts);
      if (!read) return null;
      return read.body ? new GetResult(read.record, read.range, read.body.chunks, read.body.release, read.body.whole) : new HeadResult(read.record, read.range);
    });
  }

  /** `head` and `get` as records ({@link RecordReads}): the same checks and errors, no script-facing value built. */
  [READ_RECORD](action: 'head' | 'get', key: string, opts?: StoreGetOptions): Promise<RecordRead | null> {
    return run(this.ctx, action, () => (action === 'head' ? this.readHead(key) : this.readGet(key, opts)));
  }

  private async readHead(key: string): Promise<RecordRead | null> {
    const k = coerceKey(key);
    checkKey(k);
    const rec = await this.ctx.meta.getObject(this.settings.name, k);
    return rec ? { record: rec, range: { offset: 0, length: rec.size } } : null;
  }

  private async readGet(key: string, opts: StoreGetOptions | undefined): Promise<RecordRead | null> {
    const o = options(opts, 'get');
    const cond = parseConditional(o.onlyIf);
    const rangeReq = parseRange(o.range);
    const ssec = parseSsecKey(o.ssecKey);
    const k = coerceKey(key);
    checkKey(k);
    const rec = await this.ctx.meta.getObject(this.settings.name, k);
    if (!rec) return null;
    if (!conditionHolds(cond, rec)) return { record: rec, range: { offset: 0, length: rec.size } };
    checkReadKey(rec.ssec?.keyMd5, ssec);
    const range = resolveRange(rangeReq, rec.size);
    const body = await openBody(this.ctx.meta, this.ctx.blobs, this.settings.name, rec, range, ssec?.key);
    return { record: rec, range, body };
  }

  put(key: string, value: StorePutValue, opts?: StorePutOptions): Promise<StoreObject | null> {
    let src: ValueSource | undefined;
    return run(this.ctx, 'put', async () => {
      try {
        return await this.doPut(key, value, opts, (s) => (src = s));
      } catch (err) {
        src?.cancel(new Error('Stream cancelled because the associated put operation encountered an error.'));
        throw err;
      }
    });
  }

  private async doPut(key: string, value: StorePutValue, opts: StorePutOptions | undefined, seen: (s: ValueSource) => void): Promise<StoreObject | null> {
    const o = options(opts, 'put');
    const src = classifyValue(value, 'put');
    seen(src);
    // Client-side checks, in the runtime's order.
    const cond = parseConditional(o.onlyIf);
    const customMetadata = parseCustomMetadata(o.customMetadata);
    const httpMetadata = parseHttpMetadata(o.httpMetadata);
    const expected = parseHashOptions(o);
    const ssec = parseSsecKey(o.ssecKey);
    requireKnownLength(src);
    // Server-side checks: key, size, metadata size, storage class, then digest and precondition.
    const k = coerceKey(key);
    checkKey(k);
    if (src.length > MAX_PUT_BYTES) fail('EntityTooLarge');
    checkCustomMetadataSize(customMetadata);
    const storageClass = resolveStorageClass(o.storageClass, this.settings);
    const digester = new Digester(expected);
    const cipher = ssec ? { key: ssec.key, iv: newIv() } : undefined;
    const body = await storeBody(this.ctx.blobs, src, digester, cipher);
    const newBlob = body.kind === 'blob' ? body.blobId : undefined;
    let checksums: Record<string, string>;
    try {
      checksums = digester.finish();
      const extra = typeof o.extraChecksums === 'function' ? (o.extraChecksums as () => Record<string, string> | undefined)() : undefined;
      for (const [name, hex] of Object.entries(extra ?? {})) {
        if (EXTRA_CHECKSUMS.has(name) && /^[0-9a-f]+$/.test(hex) && checksums[name] === undefined) checksums[name] = hex;
      }
    } catch (err) {
      if (newBlob) this.ctx.collector.discard(newBlob);
      throw err;
    }
    const record: ObjectRecord = {
      key: k,
      version: newId(),
      size: src.length,
      etag: checksums.md5!,
      uploaded: this.ctx.clock.now().getTime(),
      checksums,
      httpMetadata,
      customMetadata,
      storageClass,
      ssec: ssec && cipher ? { keyMd5: ssec.md5, iv: cipher.iv } : null,
      body,
    };
    const result = await this.ctx.meta.putObject(this.settings.name, record, (current) => conditionHolds(cond, current));
    if (!result.ok) {
      if (newBlob) this.ctx.collector.discard(newBlob);
      return null;
    }
    if (result.replaced && result.replaced.body.kind !== 'inline') this.ctx.collector.schedule();
    return new HeadResult(record);
  }

  delete(keys: string | string[]): Promise<void> {
    return run(this.ctx, 'delete', async () => {
      const list = (Array.isArray(keys) ? keys : [keys]).map(coerceKey);
      for (const k of list) checkKey(k);
      if (list.length > MAX_DELETE_KEYS) fail('InvalidArgument', `You can delete at most ${MAX_DELETE_KEYS} keys in one call.`);
      if (list.length === 0) return;
      await this.ctx.meta.deleteObjects(this.settings.name, list);
      this.ctx.collector.schedule();
    });
  }

  list(opts?: StoreListOptions): Promise<StoreObjects> {
    return run(this.ctx, 'list', () => listObjects(this.ctx, this.settings, opts));
  }

  createMultipartUpload(key: string, opts?: StoreMultipartOptions): Promise<StoreMultipartUpload> {
    return run(this.ctx, 'createMultipartUpload', () => createUpload(this.ctx, this.settings, key, opts));
  }

  resumeMultipartUpload(key: string, uploadId: string): StoreMultipartUpload {
    return new MultipartHandle(this.ctx, this.settings, String(key), String(uploadId));
  }
}
