/**
 * Requests of the bucket protocol turned into the store's binding options (the reverse of what workerd's
 * binding does with the script's arguments): conditions, ranges, HTTP and custom metadata, checksums, SSE-C.
 */
import type { StoreConditional, StoreGetOptions, StoreHTTPMetadata, StorePutOptions, StoreRange } from '../../store/types.js';

/* eslint-disable @typescript-eslint/no-explicit-any */
type Etag = { type: 'strong' | 'weak'; value: string } | { type: 'wildcard' };

function etagHeader(list: Etag[]): string {
  if (list.some((e) => e.type === 'wildcard')) return '*';
  return list.map((e) => (e.type === 'weak' ? `W/"${(e as { value: string }).value}"` : `"${(e as { value: string }).value}"`)).join(', ');
}

const ms = (v: unknown): number => Number(v);

/**
 * `onlyIf`: the object form when it can carry the condition exactly (one strong etag or a wildcard, no
 * seconds granularity), else the Headers form (etag lists, weak etags, HTTP dates truncated to seconds).
 */
export function conditional(onlyIf: any): StoreConditional | Headers | undefined {
  if (!onlyIf) return undefined;
  const single = (l: Etag[] | undefined) => l === undefined || (l.length === 1 && l[0]!.type !== 'weak');
  if (!onlyIf.secondsGranularity && single(onlyIf.etagMatches) && single(onlyIf.etagDoesNotMatch)) {
    const out: StoreConditional = {};
    const one = (l: Etag[]) => (l[0]!.type === 'wildcard' ? '*' : (l[0] as { value: string }).value);
    if (onlyIf.etagMatches) out.etagMatches = one(onlyIf.etagMatches);
    if (onlyIf.etagDoesNotMatch) out.etagDoesNotMatch = one(onlyIf.etagDoesNotMatch);
    if (onlyIf.uploadedBefore !== undefined) out.uploadedBefore = new Date(ms(onlyIf.uploadedBefore));
    if (onlyIf.uploadedAfter !== undefined) out.uploadedAfter = new Date(ms(onlyIf.uploadedAfter));
    return out;
  }
  const h = new Headers();
  if (onlyIf.etagMatches) h.set('if-match', etagHeader(onlyIf.etagMatches));
  if (onlyIf.etagDoesNotMatch) h.set('if-none-match', etagHeader(onlyIf.etagDoesNotMatch));
  if (onlyIf.uploadedBefore !== undefined) h.set('if-unmodified-since', new Date(ms(onlyIf.uploadedBefore)).toUTCString());
  if (onlyIf.uploadedAfter !== undefined) h.set('if-modified-since', new Date(ms(onlyIf.uploadedAfter)).toUTCString());
  return h;
}

/** `range` or `rangeHeader` of a get. */
export function range(req: any): StoreRange | Headers | undefined {
  if (typeof req.rangeHeader === 'string') return new Headers({ range: req.rangeHeader });
  const r = req.range;
  if (!r) return undefined;
  if (r.suffix !== undefined) return { suffix: ms(r.suffix) };
  const out: { offset?: number; length?: number } = {};
  if (r.offset !== undefined) out.offset = ms(r.offset);
  if (r.length !== undefined) out.length = ms(r.length);
  return out as StoreRange;
}

/** `httpFields` as the store's HTTP metadata. */
export function httpMetadata(fields: any): StoreHTTPMetadata | undefined {
  if (!fields) return undefined;
  const { cacheExpiry, ...rest } = fields;
  return cacheExpiry !== undefined ? { ...rest, cacheExpiry: new Date(ms(cacheExpiry)) } : rest;
}

/** `customFields` (`[{k, v}]`) as the store's custom metadata. */
export function customMetadata(fields: any): Record<string, string> | undefined {
  if (!Array.isArray(fields)) return undefined;
  const out: Record<string, string> = {};
  for (const { k, v } of fields) out[k] = v;
  return out;
}

/** The SSE-C key of a request, as the store takes it. */
export function ssecKey(req: any): string | undefined {
  return typeof req.ssec?.key === 'string' ? req.ssec.key : undefined;
}

/** Options of a put (or createMultipartUpload) request. */
export function putOptions(req: any): StorePutOptions {
  const o: StorePutOptions = {};
  const cond = conditional(req.onlyIf);
  if (cond) o.onlyIf = cond;
  const http = httpMetadata(req.httpFields);
  if (http) o.httpMetadata = http;
  const custom = customMetadata(req.customFields);
  if (custom) o.customMetadata = custom;
  if (typeof req.md5 === 'string') o.md5 = Buffer.from(req.md5, 'base64').toString('hex');
  for (const h of ['sha1', 'sha256', 'sha384', 'sha512'] as const) if (typeof req[h] === 'string') o[h] = req[h];
  if (typeof req.storageClass === 'string') o.storageClass = req.storageClass;
  const key = ssecKey(req);
  if (key !== undefined) o.ssecKey = key;
  return o;
}

/** Options of a get request. */
export function getOptions(req: any): StoreGetOptions {
  const o: StoreGetOptions = {};
  const cond = conditional(req.onlyIf);
  if (cond) o.onlyIf = cond;
  const r = range(req);
  if (r) o.range = r;
  const key = ssecKey(req);
  if (key !== undefined) o.ssecKey = key;
  return o;
}
