/** Object keys: coercion, the 1024-byte limit (reference §3) and UTF-8 byte-order helpers. */
import { fail } from './errors.js';

/** Longest key, in UTF-8 bytes. */
export const MAX_KEY_BYTES = 1024;

/**
 * Coerces a key argument to a string the way the runtime does (`put(123)` stores `"123"`) and replaces
 * lone surrogates with U+FFFD, since keys are stored as UTF-8.
 */
export function coerceKey(key: unknown): string {
  const s = String(key) as string & { isWellFormed(): boolean; toWellFormed(): string };
  return s.isWellFormed() ? s : s.toWellFormed();
}

/** Throws InvalidObjectName (10020) when the key is longer than 1024 UTF-8 bytes. */
export function checkKey(key: string): void {
  if (key.length > MAX_KEY_BYTES / 3 && Buffer.byteLength(key, 'utf8') > MAX_KEY_BYTES) fail('InvalidObjectName');
}

/**
 * The smallest byte string greater than every string starting with `prefix`, or null when none exists
 * (prefix of only 0xFF bytes, which UTF-8 never produces).
 */
export function prefixUpperBound(prefix: Uint8Array): Buffer | null {
  let end = prefix.length;
  while (end > 0 && prefix[end - 1] === 0xff) end--;
  if (end === 0) return null;
  const out = Buffer.from(prefix.subarray(0, end));
  out[end - 1] = out[end - 1]! + 1;
  return out;
}

/** Compares two strings by their UTF-8 bytes (which equals code-point order). */
export function compareUtf8(a: string, b: string): number {
  return Buffer.compare(Buffer.from(a, 'utf8'), Buffer.from(b, 'utf8'));
}

/**
 * The text counterpart of {@link prefixUpperBound}: the smallest string greater (in code-point order, which
 * is UTF-8 byte order) than every string starting with `prefix`, or null when none exists (empty prefix or
 * only U+10FFFF). Lets TEXT columns be range-scanned by prefix through an index.
 */
export function prefixUpperBoundText(prefix: string): string | null {
  const points = Array.from(prefix, (c) => c.codePointAt(0)!);
  while (points.length > 0 && points[points.length - 1] === 0x10ffff) points.pop();
  if (points.length === 0) return null;
  let last = points[points.length - 1]! + 1;
  if (last === 0xd800) last = 0xe000;
  points[points.length - 1] = last;
  return String.fromCodePoint(...points);
}
