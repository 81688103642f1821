/**
 * `list`: option validation (reference §2.2, §3), UTF-8 byte order, prefix/startAfter/cursor, delimiter
 * grouping (§6.3) and `include` (§6.5). Delimited prefixes follow the contract (no trailing delimiter) unless
 * the bucket has the `store_list_prefixes_keep_delimiter` flag. The cursor is opaque: base64 of the last key
 * the page covered (for a group, the group's greatest key), meaning "continue after this key".
 */
import type { BucketSettings, StoreContext } from './context.js';
import { fail } from './errors.js';
import { coerceKey, compareUtf8 } from './keys.js';
import type { ObjectRecord } from './ports.js';
import type { StoreListOptions, StoreObjects } from './types.js';
import { HeadResult, type Include } from './value/object.js';

/** Default and largest page size. */
export const MAX_LIST_LIMIT = 1000;

/** Validated list options. */
export interface ListRequest {
  limit: number;
  prefix: string;
  after: string | undefined;
  delimiter: string;
  include: Include;
}

function stringField(o: Record<string, unknown>, field: string): string {
  const v = o[field];
  if (v === undefined) return '';
  if (typeof v !== 'string') throw new TypeError(`Incorrect type for the '${field}' field on 'ListOptions': the provided value is not of type 'string'.`);
  return v;
}

/** Converts `limit` like the runtime (int32, then uint32 where -1 means unset); undefined when unset. */
function convertLimit(value: unknown): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (Number.isFinite(n) && (n > 2147483647 || n < -2147483648)) {
    throw new TypeError('Value out of range. Must be between -2147483648 and 2147483647 (inclusive).');
  }
  const int = Number.isNaN(n) ? 0 : Math.trunc(n);
  return int === -1 ? undefined : int;
}

/** Validates options (client side, then the limit on the server side). */
export function parseListOptions(opts: unknown, settings: BucketSettings): ListRequest {
  const o = (opts ?? {}) as Record<string, unknown>;
  if (typeof o !== 'object') throw new TypeError("Failed to execute 'list' on 'R2Bucket': parameter 1 is not of type 'ListOptions'.");
  const limit = convertLimit(o.limit);
  const prefix = coerceKey(stringField(o, 'prefix'));
  const cursor = stringField(o, 'cursor');
  const delimiter = stringField(o, 'delimiter');
  const startAfter = stringField(o, 'startAfter');
  let include: Include = { http: false, custom: false };
  if (o.include !== undefined) {
    if (!Array.isArray(o.include)) throw new TypeError("Incorrect type for the 'include' field on 'ListOptions': the provided value is not of type 'Array'.");
    for (const v of o.include as unknown[]) {
      if (v === 'httpMetadata') include.http = true;
      else if (v === 'customMetadata') include.custom = true;
      else throw new RangeError(`Unsupported include value ${String(v)}`);
    }
  }
  if (!settings.honorInclude) include = { http: true, custom: true };
  if (limit !== undefined && (limit < 1 || limit > MAX_LIST_LIMIT)) fail('InvalidMaxKeys');
  const fromCursor = cursor ? Buffer.from(cursor, 'base64').toString('utf8') : '';
  let after: string | undefined = startAfter || undefined;
  if (fromCursor && (after === undefined || compareUtf8(fromCursor, after) > 0)) after = fromCursor;
  return { limit: limit ?? MAX_LIST_LIMIT, prefix, after, delimiter, include };
}

/** Runs a list call. */
export async function listObjects(ctx: StoreContext, settings: BucketSettings, opts: StoreListOptions | undefined): Promise<StoreObjects> {
  const req = parseListOptions(opts, settings);
  const bucket = settings.name;
  const objects: ObjectRecord[] = [];
  const prefixes: string[] = [];
  let after = req.after;
  let count = 0;
  scan: while (count < req.limit) {
    const want = req.limit - count;
    const batch = await ctx.meta.scanObjects(bucket, { prefix: req.prefix, after, limit: want });
    if (batch.length === 0) break;
    for (const rec of batch) {
      const rest = rec.key.slice(req.prefix.length);
      const at = req.delimiter ? rest.indexOf(req.delimiter) : -1;
      if (at >= 0) {
        const group = req.prefix + rest.slice(0, at + req.delimiter.length);
        prefixes.push(settings.keepDelimiter ? group : req.prefix + rest.slice(0, at));
        count++;
        after = (await ctx.meta.lastKeyWithPrefix(bucket, group)) ?? rec.key;
        continue scan;
      }
      objects.push(rec);
      count++;
      after = rec.key;
    }
    if (batch.length < want) break;
  }
  let truncated = false;
  if (count >= req.limit) {
    const more = await ctx.meta.scanObjects(bucket, { prefix: req.prefix, after, limit: 1 });
    truncated = more.length > 0;
  }
  const out = {
    objects: objects.map((r) => new HeadResult(r, undefined, req.include)),
    truncated,
    ...(truncated ? { cursor: Buffer.from(after ?? '', 'utf8').toString('base64') } : {}),
    delimitedPrefixes: prefixes,
  };
  return out as StoreObjects;
}
