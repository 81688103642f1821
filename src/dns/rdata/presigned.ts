/**
 * RDATA of the pre-signed types (RFC 4034 §3.1, §4.1, RFC 5155 §3.2, §4.2, RFC 1035 §3.3.13) from their stored
 * `data` (record-types/presigned.ts). Names inside are written uncompressed and as stored (RFC 4034 §3.1.7,
 * §4.1.1; RFC 3597 §4); the SOA's names may be compressed.
 */
import type { RdataPart } from '../wire/message.js';
import { encodeName } from '../wire/writer.js';
import { base64Bytes, hexBytes } from '../wire/text.js';
import { typeBitmap } from '../dnssec/denial.js';
import { rrTypeCode } from '../record-types/type-names.js';

const BASE32HEX = '0123456789ABCDEFGHIJKLMNOPQRSTUV';

/** Bytes of an unpadded base32hex string (RFC 4648 §7). */
export function base32hexBytes(text: string): Buffer {
  const out: number[] = [];
  let bits = 0;
  let acc = 0;
  for (const c of text.toUpperCase()) {
    const v = BASE32HEX.indexOf(c);
    if (v < 0) throw new RangeError(`${text} is not base32hex`);
    acc = (acc << 5) | v;
    bits += 5;
    if (bits >= 8) {
      bits -= 8;
      out.push((acc >> bits) & 0xff);
    }
  }
  return Buffer.from(out);
}

function num(bytes: number, v: unknown, what: string): Buffer {
  const n = Number(v);
  if (!Number.isInteger(n) || n < 0 || n >= 2 ** (8 * bytes)) throw new RangeError(`${what} is out of range`);
  const b = Buffer.alloc(bytes);
  b.writeUIntBE(n, 0, bytes);
  return b;
}

/** Seconds since 1970 of `YYYYMMDDHHmmSS` (UTC), modulo 2^32 (RFC 4034 §3.1.5 serial arithmetic). */
function seconds(t: unknown): number {
  const s = String(t);
  return (Date.UTC(+s.slice(0, 4), +s.slice(4, 6) - 1, +s.slice(6, 8), +s.slice(8, 10), +s.slice(10, 12), +s.slice(12, 14)) / 1000) >>> 0;
}

function types(list: unknown): Buffer {
  const codes = String(list ?? '').split(/\s+/).filter(Boolean).map((t) => rrTypeCode(t));
  if (codes.some((c) => c === undefined)) throw new RangeError(`unknown type in ${String(list)}`);
  return typeBitmap(codes as number[]);
}

function salt(hex: unknown): Buffer {
  const b = Buffer.from(hexBytes(String(hex ?? '')));
  return Buffer.concat([num(1, b.length, 'salt length'), b]);
}

const name = (v: unknown): Uint8Array => encodeName(String(v ?? '').toLowerCase().replace(/^\.$/, ''));

/** RDATA of a pre-signed type's stored data. */
export function presignedRdata(type: 'RRSIG' | 'NSEC' | 'NSEC3' | 'NSEC3PARAM' | 'SOA', d: Record<string, unknown>): RdataPart[] {
  switch (type) {
    case 'RRSIG': {
      const covered = rrTypeCode(String(d.type_covered));
      if (covered === undefined) throw new RangeError('unknown RRSIG type covered');
      return [
        num(2, covered, 'type covered'), num(1, d.algorithm, 'algorithm'), num(1, d.labels, 'labels'), num(4, d.original_ttl, 'original TTL'),
        num(4, seconds(d.expiration), 'expiration'), num(4, seconds(d.inception), 'inception'), num(2, d.key_tag, 'key tag'),
        name(d.signer_name), base64Bytes(String(d.signature ?? '')),
      ];
    }
    case 'NSEC': return [name(d.next_domain), types(d.types)];
    case 'NSEC3': {
      const hash = base32hexBytes(String(d.next_hashed_owner ?? ''));
      return [num(1, d.algorithm, 'algorithm'), num(1, d.flags, 'flags'), num(2, d.iterations, 'iterations'), salt(d.salt), num(1, hash.length, 'hash length'), hash, types(d.types)];
    }
    case 'NSEC3PARAM': return [num(1, d.algorithm, 'algorithm'), num(1, d.flags, 'flags'), num(2, d.iterations, 'iterations'), salt(d.salt)];
    case 'SOA': {
      const nums = Buffer.concat(['serial', 'refresh', 'retry', 'expire', 'minimum'].map((f) => num(4, d[f], f)));
      return [{ name: String(d.mname).toLowerCase() }, { name: String(d.rname).toLowerCase() }, nums];
    }
  }
}
