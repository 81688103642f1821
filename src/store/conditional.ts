/**
 * Preconditions (`onlyIf`): parsing the object and Headers forms (reference §4.1, workerd's
 * parseConditionalEtagHeader) and evaluating them against the stored object (§4.2, RFC 7232 §6 precedence).
 */
import type { StoreConditional } from './types.js';

/** One etag of a condition list. */
export type EtagMatch = { type: 'strong' | 'weak'; value: string } | { type: 'wildcard' };

/** A parsed, validated precondition. */
export interface Condition {
  etagMatches?: EtagMatch[];
  etagDoesNotMatch?: EtagMatch[];
  /** Epoch ms. */
  uploadedBefore?: number;
  /** Epoch ms. */
  uploadedAfter?: number;
  secondsGranularity: boolean;
}

function typeError(field: string, type: string): TypeError {
  return new TypeError(`Incorrect type for the '${field}' field on 'Conditional': the provided value is not of type '${type}'.`);
}

function objectEtag(field: string, value: unknown): EtagMatch[] | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'string') throw typeError(field, 'string');
  if (value.startsWith('"') && value.endsWith('"')) throw new TypeError(`Conditional ETag should not be wrapped in quotes (${value}).`);
  return value === '*' ? [{ type: 'wildcard' }] : [{ type: 'strong', value }];
}

function objectDate(field: string, value: unknown): number | undefined {
  if (value === undefined) return undefined;
  if (value instanceof Date) return value.getTime();
  if (typeof value === 'number') return value;
  throw typeError(field, 'date');
}

const COMMA_EXPECTED = 'Comma was expected to separate etags. ';

/** Parses an If-Match / If-None-Match header value into an etag list (stops silently at junk). */
export function parseEtagHeader(header: string): EtagMatch[] {
  const out: EtagMatch[] = [];
  let rest = header;
  let needComma = false;
  for (;;) {
    rest = rest.replace(/^[ \t]+/, '');
    if (rest === '') return out;
    const c = rest[0];
    if (c === ',') {
      rest = rest.slice(1);
      needComma = false;
      continue;
    }
    if (c === '*') {
      if (needComma) throw new Error(`${COMMA_EXPECTED}Encountered a wildcard character '*' instead.`);
      return [{ type: 'wildcard' }];
    }
    if (c === 'W') {
      if (needComma)
        throw new Error(`${COMMA_EXPECTED}Encountered a weak quotation character 'W' instead. This would otherwise indicate the start of a new weak etag.`);
      if (!rest.startsWith('W/"')) throw new Error('Weak etags must start with W/ and their value must be quoted');
      const end = rest.indexOf('"', 3);
      if (end < 0) throw new Error('Unclosed double quote for Etag');
      if (end > 3) out.push({ type: 'weak', value: rest.slice(3, end) });
      rest = rest.slice(end + 1);
      needComma = true;
      continue;
    }
    if (c === '"') {
      if (needComma)
        throw new Error(`${COMMA_EXPECTED}Encountered a double quote character '"' instead. This would otherwise indicate the start of a new strong etag.`);
      const end = rest.indexOf('"', 1);
      if (end < 0) throw new Error('Unclosed double quote for Etag');
      // An empty quoted etag is dropped, so `""` alone is an empty (invalid) list.
      if (end > 1) out.push({ type: 'strong', value: rest.slice(1, end) });
      rest = rest.slice(end + 1);
      needComma = true;
      continue;
    }
    return out;
  }
}

function headerDate(value: string | null): number | undefined {
  if (value === null) return undefined;
  const ms = new Date(value).getTime();
  return Number.isFinite(ms) ? ms : undefined;
}

/** Parses `onlyIf` in either form; throws the runtime's TypeError/Error for bad input. */
export function parseConditional(onlyIf: unknown): Condition | undefined {
  if (onlyIf === undefined || onlyIf === null) return undefined;
  if (onlyIf instanceof Headers) {
    const cond: Condition = { secondsGranularity: true };
    const ifMatch = onlyIf.get('if-match');
    if (ifMatch !== null) {
      const list = parseEtagHeader(ifMatch);
      if (list.length === 0) throw new Error('Invalid ETag in if-match header');
      cond.etagMatches = list;
    }
    const ifNoneMatch = onlyIf.get('if-none-match');
    if (ifNoneMatch !== null) {
      const list = parseEtagHeader(ifNoneMatch);
      if (list.length === 0) throw new Error('Invalid ETag in if-none-match header');
      cond.etagDoesNotMatch = list;
    }
    const after = headerDate(onlyIf.get('if-modified-since'));
    if (after !== undefined) cond.uploadedAfter = after;
    const before = headerDate(onlyIf.get('if-unmodified-since'));
    if (before !== undefined) cond.uploadedBefore = before;
    return cond;
  }
  if (typeof onlyIf !== 'object') throw new TypeError("Incorrect type for the 'onlyIf' field on 'GetOptions': the provided value is not of type 'Conditional or Headers'.");
  const o = onlyIf as StoreConditional & Record<string, unknown>;
  const cond: Condition = { secondsGranularity: Boolean(o.secondsGranularity) };
  const m = objectEtag('etagMatches', o.etagMatches);
  if (m) cond.etagMatches = m;
  const n = objectEtag('etagDoesNotMatch', o.etagDoesNotMatch);
  if (n) cond.etagDoesNotMatch = n;
  const before = objectDate('uploadedBefore', o.uploadedBefore);
  if (before !== undefined) cond.uploadedBefore = before;
  const after = objectDate('uploadedAfter', o.uploadedAfter);
  if (after !== undefined) cond.uploadedAfter = after;
  return cond;
}

function matchStrong(list: EtagMatch[], etag: string): boolean {
  return list.some((e) => e.type === 'wildcard' || (e.type === 'strong' && e.value === etag));
}

function matchWeak(list: EtagMatch[], etag: string): boolean {
  return list.some((e) => e.type === 'wildcard' || e.value === etag);
}

const truncate = (ms: number, seconds: boolean): number => (seconds ? Math.floor(ms / 1000) * 1000 : ms);

/**
 * True when the condition holds for the stored object (`null` when the key is absent). All four checks must
 * pass; a passing If-Match excuses a failing If-Unmodified-Since and a passing If-None-Match a failing
 * If-Modified-Since. Date comparisons are strict.
 */
export function conditionHolds(cond: Condition | undefined, current: { etag: string; uploaded: number } | null): boolean {
  if (!cond) return true;
  if (!current) return cond.etagMatches === undefined && cond.uploadedAfter === undefined;
  const { etag } = current;
  const uploaded = truncate(current.uploaded, cond.secondsGranularity);
  const ifMatch = cond.etagMatches === undefined || matchStrong(cond.etagMatches, etag);
  const ifNoneMatch = cond.etagDoesNotMatch === undefined || !matchWeak(cond.etagDoesNotMatch, etag);
  const ifModifiedSince =
    cond.uploadedAfter === undefined ||
    truncate(cond.uploadedAfter, cond.secondsGranularity) < uploaded ||
    (cond.etagDoesNotMatch !== undefined && ifNoneMatch);
  const ifUnmodifiedSince =
    cond.uploadedBefore === undefined ||
    uploaded < truncate(cond.uploadedBefore, cond.secondsGranularity) ||
    (cond.etagMatches !== undefined && ifMatch);
  return ifMatch && ifNoneMatch && ifModifiedSince && ifUnmodifiedSince;
}

/**
 * An If-Match / If-None-Match value with bare etags quoted (`abc, "def"` -> `"abc", "def"`), for S3, which
 * accepts etags without quotes (RFC 7232 requires them, and the binding's Headers form keeps requiring them).
 */
export function quoteBareEtags(header: string): string {
  return header
    .split(',')
    .map((t) => t.trim())
    .filter((t) => t !== '')
    .map((t) => (t === '*' || t.startsWith('"') || t.startsWith('W/') ? t : `"${t}"`))
    .join(', ');
}
