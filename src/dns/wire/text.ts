/**
 * Presentation-format helpers for RDATA: character-strings (RFC 1035 §5.1 quoting and `\DDD` escapes),
 * hex, base64, IPv4 and IPv6 addresses to bytes.
 */
import { isIPv4, isIPv6 } from 'node:net';

/** Parses one or more quoted (or bare) character-strings into their bytes; each is at most 255 bytes. */
export function parseCharacterStrings(text: string): Uint8Array[] {
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
      for (const b of Buffer.from(c, 'utf8')) bytes.push(b);
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
  if (!isIPv4(ip)) throw new RangeError(`invalid IPv4 address ${ip}`);
  return Uint8Array.from(ip.split('.').map(Number));
}

/** An IPv6 address (any RFC 4291 text form, embedded IPv4 allowed) to 16 bytes. */
export function ipv6Bytes(ip: string): Uint8Array {
  if (!isIPv6(ip)) throw new RangeError(`invalid IPv6 address ${ip}`);
  let text = ip;
  const tail: number[] = [];
  const lastColon = text.lastIndexOf(':');
  if (text.slice(lastColon + 1).includes('.')) {
    const v4 = ipv4Bytes(text.slice(lastColon + 1));
    tail.push((v4[0]! << 8) | v4[1]!, (v4[2]! << 8) | v4[3]!);
    text = text.slice(0, lastColon + 1) + '0';
  }
  const [head, rest] = text.includes('::') ? text.split('::') as [string, string] : [text, undefined];
  const parse = (s: string): number[] => (s === '' ? [] : s.split(':').map((g) => parseInt(g, 16)));
  const left = parse(head);
  const right = rest === undefined ? [] : parse(rest);
  if (tail.length) (rest === undefined ? left : right).pop();
  const groups = rest === undefined ? [...left, ...tail] : [...left, ...new Array(8 - left.length - right.length - tail.length).fill(0), ...right, ...tail];
  const out = new Uint8Array(16);
  groups.forEach((g, i) => { out[i * 2] = g >> 8; out[i * 2 + 1] = g & 0xff; });
  return out;
}
