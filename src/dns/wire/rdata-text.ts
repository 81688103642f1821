/**
 * RDATA of a received record as zone-file presentation text (RFC 1035 §5.1 and each type's RFC), as dig prints
 * it. Two readers: the records a zone transfer brings in (`rdataText`: the text is then read by the same per-type
 * parsers as a zone-file import; a type without a presentation here gives undefined and is skipped) and
 * DNS-over-HTTPS's JSON `data` (`recordText`: such a type as RFC 3597's `\# LEN HEX`). Names are absolute with
 * a trailing dot; names compressed inside RDATA (NS, CNAME, PTR, MX, SOA, SRV...) are read against the whole
 * message.
 */
import { Reader } from './reader.js';
import { rrTypeName } from '../record-types/type-names.js';
import { base32hex } from '../dnssec/denial.js';
import type { DecodedRecord } from './message.js';

/** A name read at the reader's position, absolute with a trailing dot. */
function fqdn(r: Reader): string {
  const n = r.name();
  return n === '' ? '.' : `${n}.`;
}

/** One character-string, quoted, with `"`, `\` and bytes outside printable ASCII escaped (`\DDD`). */
export function quoteCharacterString(bytes: Uint8Array): string {
  let s = '"';
  for (const b of bytes) {
    if (b === 0x22 || b === 0x5c) s += `\\${String.fromCharCode(b)}`;
    else if (b < 0x20 || b > 0x7e) s += `\\${String(b).padStart(3, '0')}`;
    else s += String.fromCharCode(b);
  }
  return `${s}"`;
}

function characterStrings(r: Reader, end: number): string[] {
  const out: string[] = [];
  while (r.pos < end) out.push(quoteCharacterString(r.bytes(r.u8())));
  return out;
}

const hex = (b: Uint8Array): string => Buffer.from(b).toString('hex').toUpperCase();
const b64 = (b: Uint8Array): string => Buffer.from(b).toString('base64');

function ipv6(b: Uint8Array): string {
  const groups: string[] = [];
  for (let i = 0; i < 16; i += 2) groups.push(((b[i]! << 8) | b[i + 1]!).toString(16));
  // Longest run of zero groups compressed (RFC 5952).
  let best = -1;
  let bestLen = 0;
  for (let i = 0; i < 8;) {
    if (groups[i] !== '0') { i++; continue; }
    let j = i;
    while (j < 8 && groups[j] === '0') j++;
    if (j - i > bestLen && j - i > 1) { best = i; bestLen = j - i; }
    i = j;
  }
  if (best < 0) return groups.join(':');
  return `${groups.slice(0, best).join(':')}::${groups.slice(best + bestLen).join(':')}`;
}

/** The type list of an NSEC/NSEC3 bitmap (RFC 4034 §4.1.2). */
function bitmapTypes(r: Reader, end: number): string {
  const names: string[] = [];
  while (r.pos < end) {
    const window = r.u8();
    const len = r.u8();
    const bits = r.bytes(len);
    for (let i = 0; i < bits.length; i++) {
      for (let bit = 0; bit < 8; bit++) if (bits[i]! & (0x80 >> bit)) names.push(rrTypeName(window * 256 + i * 8 + bit));
    }
  }
  return names.join(' ');
}

const SVC_KEYS = ['mandatory', 'alpn', 'no-default-alpn', 'port', 'ipv4hint', 'ech', 'ipv6hint', 'dohpath', 'ohttp'];

/** One SvcParam's presentation (RFC 9460 §7); values quoted, list commas and backslashes escaped. */
function svcParam(key: number, v: Uint8Array): string {
  const name = SVC_KEYS[key] ?? `key${key}`;
  const esc = (t: string) => t.replace(/\\/g, '\\\\').replace(/,/g, '\\,').replace(/"/g, '\\"');
  switch (key) {
    case 0: { const ks: string[] = []; for (let i = 0; i + 1 < v.length; i += 2) ks.push(SVC_KEYS[(v[i]! << 8) | v[i + 1]!] ?? `key${(v[i]! << 8) | v[i + 1]!}`); return `${name}=${ks.join(',')}`; }
    case 1: { const ids: string[] = []; for (let i = 0; i < v.length;) { const n = v[i]!; ids.push(esc(Buffer.from(v.subarray(i + 1, i + 1 + n)).toString('latin1'))); i += 1 + n; } return `${name}="${ids.join(',')}"`; }
    case 2: case 8: return name;
    case 3: return `${name}=${(v[0]! << 8) | v[1]!}`;
    case 4: { const a: string[] = []; for (let i = 0; i + 3 < v.length; i += 4) a.push([...v.subarray(i, i + 4)].join('.')); return `${name}=${a.join(',')}`; }
    case 5: return `${name}=${b64(v)}`;
    case 6: { const a: string[] = []; for (let i = 0; i + 15 < v.length; i += 16) a.push(ipv6(v.subarray(i, i + 16))); return `${name}=${a.join(',')}`; }
    default: return `${name}="${[...v].map((b) => (b >= 0x21 && b <= 0x7e && b !== 0x22 && b !== 0x5c ? String.fromCharCode(b) : `\\${String(b).padStart(3, '0')}`)).join('')}"`;
  }
}

/** `YYYYMMDDHHmmSS` of RRSIG times (RFC 4034 §3.2). */
function sigTime(secs: number): string {
  return new Date(secs * 1000).toISOString().replace(/[-:T]/g, '').slice(0, 14);
}

/**
 * The presentation text of a record's RDATA; `msg` is the whole message and `offset`, `length` the RDATA's place
 * in it. Undefined for a type this module does not write (or malformed RDATA: the reader throws).
 */
export function rdataText(type: number, msg: Uint8Array, offset: number, length: number): string | undefined {
  const r = new Reader(msg);
  r.pos = offset;
  const end = offset + length;
  // DNAME (RFC 6672) has no record type of Stratus's own, so no name in the type table.
  switch (type === 39 ? 'DNAME' : rrTypeName(type)) {
    case 'A': return length === 4 ? [...r.bytes(4)].join('.') : undefined;
    case 'AAAA': return length === 16 ? ipv6(r.bytes(16)) : undefined;
    case 'NS': case 'CNAME': case 'PTR': case 'DNAME': return fqdn(r);
    case 'MX': { const pref = r.u16(); return `${pref} ${fqdn(r)}`; }
    case 'TXT': case 'HINFO': return characterStrings(r, end).join(' ');
    case 'SOA': {
      const mname = fqdn(r);
      const rname = fqdn(r);
      return `${mname} ${rname} ${r.u32()} ${r.u32()} ${r.u32()} ${r.u32()} ${r.u32()}`;
    }
    case 'SRV': { const p = r.u16(); const w = r.u16(); const port = r.u16(); return `${p} ${w} ${port} ${fqdn(r)}`; }
    case 'CAA': {
      const flags = r.u8();
      const tag = Buffer.from(r.bytes(r.u8())).toString('latin1');
      return `${flags} ${tag} ${quoteCharacterString(r.bytes(end - r.pos))}`;
    }
    case 'DS': case 'CDS': { const tag = r.u16(); const alg = r.u8(); const dt = r.u8(); return `${tag} ${alg} ${dt} ${hex(r.bytes(end - r.pos))}`; }
    case 'DNSKEY': case 'CDNSKEY': { const f = r.u16(); const p = r.u8(); const a = r.u8(); return `${f} ${p} ${a} ${b64(r.bytes(end - r.pos))}`; }
    case 'RRSIG': {
      const covered = rrTypeName(r.u16());
      const alg = r.u8();
      const labels = r.u8();
      const ttl = r.u32();
      const exp = r.u32();
      const inc = r.u32();
      const tag = r.u16();
      const signer = fqdn(r);
      return `${covered} ${alg} ${labels} ${ttl} ${sigTime(exp)} ${sigTime(inc)} ${tag} ${signer} ${b64(r.bytes(end - r.pos))}`;
    }
    case 'NSEC': { const next = fqdn(r); return `${next} ${bitmapTypes(r, end)}`.trim(); }
    case 'NSEC3': {
      const alg = r.u8(); const flags = r.u8(); const it = r.u16();
      const salt = r.bytes(r.u8());
      const next = base32hex(r.bytes(r.u8()));
      return `${alg} ${flags} ${it} ${salt.length ? hex(salt) : '-'} ${next} ${bitmapTypes(r, end)}`.trim();
    }
    case 'NSEC3PARAM': { const alg = r.u8(); const flags = r.u8(); const it = r.u16(); const salt = r.bytes(r.u8()); return `${alg} ${flags} ${it} ${salt.length ? hex(salt) : '-'}`; }
    case 'TLSA': case 'SMIMEA': { const u = r.u8(); const s = r.u8(); const m = r.u8(); return `${u} ${s} ${m} ${hex(r.bytes(end - r.pos))}`; }
    case 'SSHFP': { const a = r.u8(); const t = r.u8(); return `${a} ${t} ${hex(r.bytes(end - r.pos))}`; }
    case 'NAPTR': {
      const order = r.u16(); const pref = r.u16();
      const [flags, services, regexp] = [quoteCharacterString(r.bytes(r.u8())), quoteCharacterString(r.bytes(r.u8())), quoteCharacterString(r.bytes(r.u8()))];
      return `${order} ${pref} ${flags} ${services} ${regexp} ${fqdn(r)}`;
    }
    case 'URI': { const p = r.u16(); const w = r.u16(); return `${p} ${w} ${quoteCharacterString(r.bytes(end - r.pos))}`; }
    case 'CERT': { const t = r.u16(); const tag = r.u16(); const a = r.u8(); return `${t} ${tag} ${a} ${b64(r.bytes(end - r.pos))}`; }
    case 'OPENPGPKEY': return b64(r.bytes(end - r.pos));
    case 'SVCB': case 'HTTPS': {
      const prio = r.u16();
      const target = fqdn(r);
      const params: string[] = [];
      while (r.pos < end) { const key = r.u16(); params.push(svcParam(key, r.bytes(r.u16()))); }
      return [String(prio), target, ...params].join(' ');
    }
    default: return undefined;
  }
}

/** The RDATA of `rec` (decoded from `message`) as text, RFC 3597's `\# LEN HEX` for a type without a text form here. */
export function recordText(message: Uint8Array, rec: DecodedRecord): string {
  let text: string | undefined;
  try {
    text = rdataText(rec.type, message, rec.rdataOffset, rec.rdata.length);
  } catch {
    text = undefined; // malformed RDATA: shown as bytes
  }
  if (text !== undefined) return text;
  return rec.rdata.length === 0 ? '\\# 0' : `\\# ${rec.rdata.length} ${hex(rec.rdata)}`;
}
