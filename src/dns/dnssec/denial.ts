/**
 * Authenticated denial of existence, generated per answer (online signing):
 *
 * - NSEC (RFC 4034 §4) in the compact form of RFC 9824: a name that exists but lacks the type asked for gets
 *   an NSEC owned by the name with next name `\000.<name>` (the name's immediate successor, so the range covers
 *   nothing else) and the name's types plus RRSIG and NSEC; a name that does not exist is answered as if it
 *   existed with no data, its NSEC listing RRSIG, NSEC and NXNAME (type 128), so resolvers can still tell
 *   (RFC 9824 §3.3).
 * - A wildcard expansion must prove that the next closer name does not exist (RFC 4035 §3.1.3.3): an NSEC
 *   whose range covers exactly that name and its subtree, from the name's immediate predecessor label
 *   (RFC 4471 §3.1.2: last octet decremented, padded with \377 to 63 octets) to the successor of its subtree
 *   (label + \000), so aggressive use of the NSEC (RFC 8198) denies nothing that exists.
 * - NSEC3 (RFC 5155) with the parameters RFC 9276 asks for (SHA-1, no salt, 0 additional iterations, no
 *   opt-out) and minimally covering "white lies" (RFC 7129 Appendix B): a matching NSEC3 spans from H(name)
 *   to H(name)+1; a covering one from H(name)-1 to H(name)+1.
 */
import { createHash } from 'node:crypto';
import { TYPE } from '../wire/constants.js';
import type { WireRecord } from '../wire/message.js';
import { wireName } from './canonical.js';

/** DNSSEC type codes not in the wire constants. */
export const DNSSEC_TYPE = { NSEC3: 50, NSEC3PARAM: 51, CDS: 59, CDNSKEY: 60, NXNAME: 128 } as const;

/** The type bitmap field (RFC 4034 §4.1.2) of a set of types. */
export function typeBitmap(types: Iterable<number>): Buffer {
  const sorted = [...new Set(types)].sort((a, b) => a - b);
  const out: Buffer[] = [];
  let i = 0;
  while (i < sorted.length) {
    const window = sorted[i]! >> 8;
    const bits = Buffer.alloc(32);
    let len = 0;
    for (; i < sorted.length && sorted[i]! >> 8 === window; i++) {
      const low = sorted[i]! & 0xff;
      bits[low >> 3] = bits[low >> 3]! | (0x80 >> (low & 7));
      len = (low >> 3) + 1;
    }
    out.push(Buffer.from([window, len]), bits.subarray(0, len));
  }
  return Buffer.concat(out);
}

/** An NSEC record. */
export function nsec(owner: string, next: string, types: Iterable<number>, ttl: number): WireRecord {
  return { name: owner, type: TYPE.NSEC, ttl, rdata: [wireName(next), typeBitmap(types)] };
}

/** Octets of a name on the wire (lowercase dotted form, root ''). */
function wireLength(name: string): number {
  return name === '' ? 1 : name.length + 2;
}

/** Splits off the first label. */
function firstLabel(name: string): [string, string] {
  const dot = name.indexOf('.');
  return dot < 0 ? [name, ''] : [name.slice(0, dot), name.slice(dot)];
}

/** An octet one above `c`, past the uppercase letters (which sort as lowercase). */
function above(c: number): number {
  const next = Math.min(0xff, c + 1);
  return next >= 0x41 && next <= 0x5a ? 0x5b : next;
}

/**
 * The immediate successor of a name in canonical order (RFC 4471 §3.1.1 for online signers): `\000.<name>`,
 * or, when that would pass 255 octets, the next sibling (the first label's last octet raised by one).
 */
export function successor(name: string): string {
  if (name === '') return '\x00';
  if (wireLength(name) + 2 <= 255) return `\x00.${name}`;
  const [label, rest] = firstLabel(name);
  return `${label.slice(0, -1)}${String.fromCharCode(above(label.charCodeAt(label.length - 1)))}${rest}`;
}

/** A name after every name of `name`'s subtree and before anything else (its first label + \000, or bumped). */
export function subtreeEnd(name: string): string {
  const [label, rest] = firstLabel(name);
  if (label.length < 63 && wireLength(name) < 255) return `${label}\x00${rest}`;
  return `${label.slice(0, -1)}${String.fromCharCode(above(label.charCodeAt(label.length - 1)))}${rest}`;
}

/**
 * A name just before `name` among its siblings (RFC 4471 §3.1.2, without the \377 child labels): the first
 * label's last octet decremented (skipping the uppercase letters, which sort as lowercase) and padded with
 * \377 up to 63 octets (less when the name would pass 255 octets); a label ending in \000 loses that octet.
 */
export function predecessor(name: string): string {
  const [label, rest] = firstLabel(name);
  const last = label.charCodeAt(label.length - 1);
  if (last === 0) return `${label.slice(0, -1) || '\x00'}${rest}`;
  let dec = last - 1;
  if (dec >= 0x41 && dec <= 0x5a) dec = 0x40;
  const base = label.slice(0, -1) + String.fromCharCode(dec);
  // Padded to 63 octets, or as far as the name stays within 255 octets.
  const room = Math.min(63, 255 - (rest === '' ? 1 : rest.length + 1) - 1);
  return `${base}${'\xff'.repeat(Math.max(0, room - base.length))}${rest}`;
}

/** NSEC3 parameters (RFC 9276): SHA-1, no flags, 0 iterations, empty salt. */
export const NSEC3PARAM_RDATA = Buffer.from([1, 0, 0, 0, 0]);

/** The NSEC3 hash of a name (RFC 5155 §5, 0 iterations, no salt). */
export function nsec3Hash(name: string): Buffer {
  return createHash('sha1').update(wireName(name)).digest();
}

const B32 = '0123456789abcdefghijklmnopqrstuv';

/** Base32hex without padding, lowercase (RFC 4648 §7), as NSEC3 owner labels are written. */
export function base32hex(b: Uint8Array): string {
  let out = '';
  let bits = 0;
  let value = 0;
  for (const byte of b) {
    value = (value << 8) | byte;
    bits += 8;
    while (bits >= 5) {
      out += B32[(value >>> (bits - 5)) & 31];
      bits -= 5;
    }
    value &= (1 << bits) - 1;
  }
  if (bits > 0) out += B32[(value << (5 - bits)) & 31];
  return out;
}

/** `h + delta` as a 160-bit number, wrapping. */
export function hashPlus(h: Uint8Array, delta: 1 | -1): Buffer {
  const out = Buffer.from(h);
  for (let i = out.length - 1; i >= 0; i--) {
    const v = out[i]! + delta;
    out[i] = v & 0xff;
    if (v >= 0 && v <= 0xff) break;
  }
  return out;
}

/** An NSEC3 record owned by `<base32hex(ownerHash)>.<zone>` whose next hashed owner is `next`. */
export function nsec3(zone: string, ownerHash: Uint8Array, next: Uint8Array, types: Iterable<number>, ttl: number): WireRecord {
  const head = Buffer.from([1, 0, 0, 0, 0, next.length]);
  const owner = zone === '' ? base32hex(ownerHash) : `${base32hex(ownerHash)}.${zone}`;
  return { name: owner, type: DNSSEC_TYPE.NSEC3, ttl, rdata: [head, next, typeBitmap(types)] };
}

/** The NSEC3 matching `name` (white lie: the range ends at H(name)+1). */
export function matchingNsec3(zone: string, name: string, types: Iterable<number>, ttl: number): WireRecord {
  const h = nsec3Hash(name);
  return nsec3(zone, h, hashPlus(h, 1), types, ttl);
}

/** An NSEC3 covering `name` and nothing else (H(name)-1 to H(name)+1, no types). */
export function coveringNsec3(zone: string, name: string, ttl: number): WireRecord {
  const h = nsec3Hash(name);
  return nsec3(zone, hashPlus(h, -1), hashPlus(h, 1), [], ttl);
}
