/**
 * RDATA of a decoded record as presentation text (RFC 1035 §5.1 and each type's RFC), as dig and production's
 * DNS-over-HTTPS JSON (`data`) show it: names absolute with their trailing dot, character-strings quoted,
 * digests in hex, keys and signatures in base64. Types without a text form here get RFC 3597's `\# LEN HEX`.
 */
import { Reader } from './reader.js';
import { TYPE } from './constants.js';
import { rrTypeName as typeName } from '../record-types/type-names.js';
import type { DecodedRecord } from './message.js';

const abs = (name: string): string => (name === '' ? '.' : `${name}.`);
const hex = (b: Uint8Array): string => Buffer.from(b).toString('hex').toUpperCase();
const b64 = (b: Uint8Array): string => Buffer.from(b).toString('base64');

/** One character-string quoted, with `"` and `\` escaped and bytes outside printable ASCII as `\DDD`. */
export function quoteCharacterString(bytes: Uint8Array): string {
  let out = '"';
  for (const c of bytes) {
    if (c === 0x22 || c === 0x5c) out += `\\${String.fromCharCode(c)}`;
    else if (c < 0x20 || c > 0x7e) out += `\\${String(c).padStart(3, '0')}`;
    else out += String.fromCharCode(c);
  }
  return `${out}"`;
}

function ipv6(b: Uint8Array): string {
  const groups: string[] = [];
  for (let i = 0; i < 16; i += 2) groups.push(((b[i]! << 8) | b[i + 1]!).toString(16));
  // The longest run of two or more zero groups becomes `::` (RFC 5952 §4.2).
  let best = -1, bestLen = 1;
  for (let i = 0; i < 8;) {
    if (groups[i] !== '0') { i++; continue; }
    let j = i;
    while (j < 8 && groups[j] === '0') j++;
    if (j - i > bestLen) { best = i; bestLen = j - i; }
    i = j;
  }
  if (best < 0) return groups.join(':');
  return `${groups.slice(0, best).join(':')}::${groups.slice(best + bestLen).join(':')}`;
}

/** The type names of an NSEC/NSEC3 type bit map (RFC 4034 §4.1.2). */
function typeBitmap(r: Reader, end: number): string[] {
  const types: string[] = [];
  while (r.pos < end) {
    const window = r.u8();
    const len = r.u8();
    const bits = r.bytes(len);
    bits.forEach((byte, i) => {
      for (let bit = 0; bit < 8; bit++) if (byte & (0x80 >> bit)) types.push(typeName(window * 256 + i * 8 + bit));
    });
  }
  return types;
}

/** The RDATA of `rec` (decoded from `message`, whose names it may point into) as presentation text. */
export function rdataText(message: Uint8Array, rec: DecodedRecord): string {
  const r = new Reader(message);
  r.pos = rec.rdataOffset;
  const end = rec.rdataOffset + rec.rdata.length;
  const rest = () => r.bytes(end - r.pos);
  const strings = () => { const out: string[] = []; while (r.pos < end) out.push(quoteCharacterString(r.bytes(r.u8()))); return out; };
  switch (rec.type) {
    case TYPE.A: return rec.rdata.length === 4 ? [...rec.rdata].join('.') : unknown(rec);
    case TYPE.AAAA: return rec.rdata.length === 16 ? ipv6(rec.rdata) : unknown(rec);
    case TYPE.NS: case TYPE.CNAME: case TYPE.PTR: case 39 /* DNAME */: return abs(r.name());
    case TYPE.MX: { const pref = r.u16(); return `${pref} ${abs(r.name())}`; }
    case TYPE.SOA: {
      const mname = abs(r.name());
      const rname = abs(r.name());
      return [mname, rname, r.u32(), r.u32(), r.u32(), r.u32(), r.u32()].join(' ');
    }
    case TYPE.TXT: case TYPE.HINFO: return strings().join(' ');
    case TYPE.SRV: { const p = r.u16(), w = r.u16(), port = r.u16(); return `${p} ${w} ${port} ${abs(r.name())}`; }
    case TYPE.CAA: {
      const flags = r.u8();
      const tag = Buffer.from(r.bytes(r.u8())).toString('latin1');
      return `${flags} ${tag} ${quoteCharacterString(rest())}`;
    }
    case TYPE.DS: { const tag = r.u16(), alg = r.u8(), dt = r.u8(); return `${tag} ${alg} ${dt} ${hex(rest())}`; }
    case TYPE.DNSKEY: { const flags = r.u16(), proto = r.u8(), alg = r.u8(); return `${flags} ${proto} ${alg} ${b64(rest())}`; }
    case TYPE.RRSIG: {
      const covered = typeName(r.u16()), alg = r.u8(), labels = r.u8(), ttl = r.u32();
      const exp = r.u32(), inc = r.u32(), tag = r.u16();
      const signer = abs(r.name());
      return `${covered} ${alg} ${labels} ${ttl} ${sigTime(exp)} ${sigTime(inc)} ${tag} ${signer} ${b64(rest())}`;
    }
    case TYPE.NSEC: { const next = abs(r.name()); return [next, ...typeBitmap(r, end)].join(' '); }
    case TYPE.SSHFP: { const alg = r.u8(), fp = r.u8(); return `${alg} ${fp} ${hex(rest())}`; }
    case TYPE.TLSA: case TYPE.SMIMEA: { const u = r.u8(), s = r.u8(), m = r.u8(); return `${u} ${s} ${m} ${hex(rest())}`; }
    case TYPE.URI: { const p = r.u16(), w = r.u16(); return `${p} ${w} ${quoteCharacterString(rest())}`; }
    case TYPE.OPENPGPKEY: return b64(rest());
    default: return unknown(rec);
  }
}

/** RFC 3597 §5: `\# LEN HEX`. */
function unknown(rec: DecodedRecord): string {
  return rec.rdata.length === 0 ? '\\# 0' : `\\# ${rec.rdata.length} ${hex(rec.rdata)}`;
}

/** An RRSIG time as YYYYMMDDHHmmSS (RFC 4034 §3.2). */
function sigTime(seconds: number): string {
  return new Date(seconds * 1000).toISOString().replace(/[-:T]/g, '').slice(0, 14);
}
