/**
 * Presentation-format helpers for RDATA: character-strings (RFC 1035 §5.1 quoting and `\DDD` escapes),
 * hex, base64, IPv4 and IPv6 addresses to bytes.
 */
import { parseIPv4, parseIPv6 } from '../ip.js';

/**
 * The character-strings of `text[from, to)` without escapes, all ASCII, each at most 255 bytes (the common TXT
 * record: read in one pass), written into `out` at `at` as RDATA (each behind its length byte); the end offset,
 * or -1 to take the general path. `out` has room for `2 * (to - from) + 1` bytes from `at`.
 */
export function plainCharacterStringsInto(text: string, from: number, to: number, out: Uint8Array, at: number): number {
  let i = from;
  while (i < to) {
    let c = text.charCodeAt(i);
    if (c === 0x20 || c === 0x09) { i++; continue; }
    const quoted = c === 0x22;
    if (quoted) i++;
    const start = i;
    for (; i < to; i++) {
      c = text.charCodeAt(i);
      if (c === 0x5c || c >= 0x80) return -1;
      if (quoted ? c === 0x22 : c === 0x20 || c === 0x09 || c === 0x22) break;
    }
    // A quote inside a bare string, or a string of more than 255 bytes: the general path decides.
    if ((!quoted && i < to && c === 0x22) || i - start > 255) return -1;
    out[at++] = i - start;
    for (let k = start; k < i; k++) out[at++] = text.charCodeAt(k);
    if (quoted) i++;
  }
  return at;
}

/** The character-strings of a plain text ({@link plainCharacterStringsInto}), or undefined to take the general path. */
function plainCharacterStrings(text: string): Uint8Array[] | undefined {
  const wire = Buffer.allocUnsafe(2 * text.length + 1);
  const end = plainCharacterStringsInto(text, 0, text.length, wire, 0);
  if (end < 0) return undefined;
  const out: Uint8Array[] = [];
  for (let p = 0; p < end; p += 1 + wire[p]!) out.push(Uint8Array.prototype.slice.call(wire, p + 1, p + 1 + wire[p]!));
  return out;
}

/** Parses one or more quoted (or bare) character-strings into their bytes; each is at most 255 bytes. */
export function parseCharacterStrings(text: string): Uint8Array[] {
  const plain = plainCharacterStrings(text);
  if (plain) return plain;
  const out: Uint8Array[] = [];
  let i = 0;
  const n = text.length;
  while (i < n) {
    while (i < n && (text[i] === ' ' || text[i] === '\t')) i++;
    if (i >= n) break;
    const quoted = text[i] === '"';
    if (quoted) i++;
    const bytes: number[] = [];
    while (i < n) {
      const c = text[i]!;
      if (quoted ? c === '"' : c === ' ' || c === '\t') break;
      if (c === '\\' && i + 1 < n) {
        const d = text.slice(i + 1, i + 4);
        if (/^\d{3}$/.test(d)) {
          bytes.push(Number(d) & 0xff);
          i += 4;
          continue;
        }
        i++;
        for (const b of Buffer.from(text[i]!, 'utf8')) bytes.push(b);
        i++;
        continue;
      }
      const code = c.charCodeAt(0);
      if (code < 0x80) bytes.push(code);
      else for (const b of Buffer.from(c, 'utf8')) bytes.push(b);
      i++;
    }
    if (quoted) i++;
    for (let k = 0; k < bytes.length || (k === 0 && bytes.length === 0); k += 255) {
      out.push(Uint8Array.from(bytes.slice(k, k + 255)));
    }
  }
  return out;
}

/** Length-prefixed character-string bytes. */
export function characterString(value: string | Uint8Array): Uint8Array {
  const b = typeof value === 'string' ? Buffer.from(value, 'utf8') : value;
  if (b.length > 255) throw new RangeError('character-string longer than 255 bytes');
  const out = new Uint8Array(b.length + 1);
  out[0] = b.length;
  out.set(b, 1);
  return out;
}

/** Hex (spaces allowed) to bytes. */
export function hexBytes(hex: string): Uint8Array {
  const clean = hex.replace(/\s+/g, '');
  if (!/^(?:[0-9a-fA-F]{2})*$/.test(clean)) throw new RangeError('invalid hex');
  return Buffer.from(clean, 'hex');
}

/** Base64 (spaces allowed) to bytes. */
export function base64Bytes(text: string): Uint8Array {
  const clean = text.replace(/\s+/g, '');
  if (!/^[A-Za-z0-9+/]*={0,2}$/.test(clean)) throw new RangeError('invalid base64');
  return Buffer.from(clean, 'base64');
}

/** A dotted-quad IPv4 address to 4 bytes. */
export function ipv4Bytes(ip: string): Uint8Array {
  const b = parseIPv4(ip);
  if (!b) throw new RangeError(`invalid IPv4 address ${ip}`);
  return b;
}

/** An IPv6 address (any RFC 4291 text form) to 16 bytes. */
export function ipv6Bytes(ip: string): Uint8Array {
  const b = parseIPv6(ip);
  if (!b) throw new RangeError(`invalid IPv6 address ${ip}`);
  return b;
}
