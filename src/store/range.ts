/**
 * Ranges of `get`: client-side validation with the runtime's messages (reference §2.2) and resolution
 * against the object size (§5.3). The Headers form follows the peer: anything unsatisfiable or malformed
 * reads the whole object.
 */
import { fail } from './errors.js';

/** A validated range request. */
export type RangeRequest = { offset?: number; length?: number; suffix?: number } | { header: string };

/** The bytes actually returned. */
export interface ResolvedRange {
  offset: number;
  length: number;
}

function num(value: unknown): number | undefined {
  if (value === undefined) return undefined;
  return typeof value === 'number' ? value : Number(value);
}

const show = (n: number): string => (Number.isNaN(n) ? 'nan' : String(n));

/** Validates `options.range`; throws RangeError/TypeError with the runtime's messages. */
export function parseRange(range: unknown): RangeRequest | undefined {
  if (range === undefined || range === null) return undefined;
  if (range instanceof Headers) {
    const header = range.get('range');
    return header === null ? undefined : { header };
  }
  if (typeof range !== 'object') throw new TypeError("Incorrect type for the 'range' field on 'GetOptions': the provided value is not of type 'Range or Headers'.");
  const r = range as Record<string, unknown>;
  const offset = num(r.offset);
  const length = num(r.length);
  const suffix = num(r.suffix);
  if (offset !== undefined) {
    if (!(offset >= 0)) throw new RangeError(`Invalid range. Starting offset (${show(offset)}) must be greater than or equal to 0.`);
    if (!Number.isInteger(offset)) throw new RangeError(`Invalid range. Starting offset (${show(offset)}) must be an integer, not floating point.`);
  }
  if (length !== undefined) {
    if (!(length >= 0)) throw new RangeError(`Invalid range. Length (${show(length)}) must be greater than or equal to 0.`);
    if (!Number.isInteger(length)) throw new RangeError(`Invalid range. Length (${show(length)}) must be an integer, not floating point.`);
  }
  if (suffix !== undefined) {
    if (offset !== undefined) throw new TypeError('Suffix is incompatible with offset.');
    if (length !== undefined) throw new TypeError('Suffix is incompatible with length.');
    if (!(suffix >= 0)) throw new RangeError(`Invalid suffix. Suffix (${show(suffix)}) must be greater than or equal to 0.`);
    if (!Number.isInteger(suffix)) throw new RangeError(`Invalid range. Suffix (${show(suffix)}) must be an integer, not floating point.`);
  }
  const out: { offset?: number; length?: number; suffix?: number } = {};
  if (offset !== undefined) out.offset = offset;
  if (length !== undefined) out.length = length;
  if (suffix !== undefined) out.suffix = suffix;
  return out;
}

/** Resolves a Range header; malformed, multi-range or unsatisfiable means the whole object. */
export function resolveRangeHeader(header: string, size: number): ResolvedRange {
  const whole = { offset: 0, length: size };
  const m = /^\s*bytes\s*=\s*(\d*)\s*-\s*(\d*)\s*$/i.exec(header);
  if (!m) return whole;
  const [, a, b] = m;
  if (a === '' && b === '') return whole;
  if (a === '') {
    const n = Number(b);
    if (n === 0 || n >= size) return whole;
    return { offset: size - n, length: n };
  }
  const start = Number(a);
  if (start >= size) return whole;
  if (b === '') return { offset: start, length: size - start };
  const end = Number(b);
  if (end < start) return whole;
  return { offset: start, length: Math.min(end, size - 1) - start + 1 };
}

/** Resolves a validated request against the size; throws InvalidRange (10039) when unsatisfiable. */
export function resolveRange(req: RangeRequest | undefined, size: number): ResolvedRange {
  if (!req) return { offset: 0, length: size };
  if ('header' in req) return resolveRangeHeader(req.header, size);
  if (req.offset === undefined && req.length === undefined && req.suffix === undefined) return { offset: 0, length: size };
  if (req.suffix !== undefined) {
    if (req.suffix <= 0 || size === 0) fail('InvalidRange');
    const length = Math.min(req.suffix, size);
    return { offset: size - length, length };
  }
  const offset = req.offset ?? 0;
  let length = req.length ?? size - offset;
  if (offset > size || length <= 0) fail('InvalidRange');
  length = Math.min(length, size - offset);
  if (length <= 0) fail('InvalidRange');
  return { offset, length };
}
