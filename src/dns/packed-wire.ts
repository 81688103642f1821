/**
 * The wire form of a name's packed records (packed-records.ts) read straight from the packed bytes, for zone
 * transfers: a million-record AXFR otherwise unpacks every record into objects, derives rrsets from them
 * (node-rrsets.ts) and encodes those, and spent about a third of its time collecting that garbage.
 *
 * Only names whose served rrsets are exactly their stored records take this path ("plain" names): every record
 * A, AAAA or TXT, not proxied, without `data`, priority or settings, each type in one run (so the rrsets come
 * out in the order {@link deriveNode} gives them) and every content encodable. Any other name (the apex, a
 * proxied record, a CNAME, a record that would be skipped...) answers undefined and is derived as before, so
 * what is served never depends on the path taken.
 */
import { AUTO_TTL_SECONDS } from './record.js';
import { parseIPv4Into, parseIPv6 } from './ip.js';
import { TYPE } from './wire/constants.js';
import { plainCharacterStringsInto } from './wire/text.js';
import { RECORD_TYPES } from './record.js';

const HEX_ID = 1;
const INDEX_A = RECORD_TYPES.indexOf('A');
const INDEX_AAAA = RECORD_TYPES.indexOf('AAAA');
const INDEX_TXT = RECORD_TYPES.indexOf('TXT');

/** The records of the last plain name read by {@link readPlainRecords}; reused (one reader per thread, synchronous). */
export interface PlainRecords {
  count: number;
  /** Per record: type code, TTL (the rrset's: the lowest of its type's run), RDATA start and end in `rdata`. */
  readonly types: Uint16Array;
  readonly ttls: Uint32Array;
  readonly starts: Uint32Array;
  readonly ends: Uint32Array;
  rdata: Buffer;
}

let capacity = 64;
const plain: PlainRecords = {
  count: 0, types: new Uint16Array(capacity), ttls: new Uint32Array(capacity), starts: new Uint32Array(capacity), ends: new Uint32Array(capacity),
  rdata: Buffer.allocUnsafe(8192),
};

function grow(): void {
  capacity *= 2;
  const more = <T extends Uint16Array | Uint32Array>(a: T, make: new (n: number) => T): T => { const b = new make(capacity); b.set(a); return b; };
  Object.assign(plain, { types: more(plain.types, Uint16Array), ttls: more(plain.ttls, Uint32Array), starts: more(plain.starts, Uint32Array), ends: more(plain.ends, Uint32Array) });
}

/** Room for `n` more RDATA bytes at `at`. */
function rdataRoom(at: number, n: number): void {
  if (at + n <= plain.rdata.length) return;
  const next = Buffer.allocUnsafe(Math.max(plain.rdata.length * 2, at + n));
  plain.rdata.copy(next, 0, 0, at);
  plain.rdata = next;
}

/** A strict dotted quad (ip.ts) written at `at`; false when the text is not one. */
function ipv4At(src: string, from: number, to: number, at: number): boolean {
  return parseIPv4Into(src, from, to, plain.rdata, at);
}

/** TXT character-strings of an ASCII text without escapes (wire/text.ts) written at `at`; the end offset, or -1 when the text needs the general path. */
function txtAt(src: string, from: number, to: number, at: number): number {
  rdataRoom(at, 2 * (to - from) + 1);
  return plainCharacterStringsInto(src, from, to, plain.rdata, at);
}

/** Reads a varint length at `c.at`. */
function varint(src: string, c: { at: number }): number {
  let len = 0;
  for (let shift = 0; ; shift += 7) {
    const b = src.charCodeAt(c.at++);
    len |= (b & 0x7f) << shift;
    if (b < 0x80) return len;
  }
}

/**
 * The wire RDATA, types and TTLs of a plain name's packed records (see the module comment), in a buffer reused
 * by the next call; undefined when the name is not plain. Read from the packed string by character codes (one
 * byte each: latin1), not written into a buffer first (a call per name).
 */
export function readPlainRecords(src: string): PlainRecords | undefined {
  const end = src.length;
  const buf = src;
  const c = { at: 0 };
  let n = 0;
  let at = 0;
  let runStart = 0;
  while (c.at < end) {
    const flags = buf.charCodeAt(c.at);
    const index = buf.charCodeAt(c.at + 1);
    if ((flags & ~HEX_ID) !== 0) return undefined;
    const stored = ((buf.charCodeAt(c.at + 2) << 24) | (buf.charCodeAt(c.at + 3) << 16) | (buf.charCodeAt(c.at + 4) << 8) | buf.charCodeAt(c.at + 5)) >>> 0;
    c.at += 6;
    if (flags & HEX_ID) c.at += 16;
    else {
      // (Not `c.at += varint(...)`: that adds to c.at as it was before the varint was read.)
      const idLength = varint(buf, c);
      c.at += idLength;
    }
    const len = varint(buf, c);
    const from = c.at;
    c.at += len;
    let type: number;
    if (index === INDEX_A) {
      rdataRoom(at, 4);
      if (!ipv4At(buf, from, c.at, at)) return undefined;
      type = TYPE.A;
    } else if (index === INDEX_AAAA) {
      const text = buf.slice(from, c.at);
      const ip = parseIPv6(text);
      if (!ip || /[^\x00-\x7f]/.test(text)) return undefined;
      rdataRoom(at, 16);
      plain.rdata.set(ip, at);
      type = TYPE.AAAA;
    } else if (index === INDEX_TXT) {
      type = TYPE.TXT;
    } else return undefined;
    if (n === capacity) grow();
    const ttl = stored === 1 ? AUTO_TTL_SECONDS : stored;
    if (n > 0 && plain.types[n - 1] !== type) {
      // A type seen before this run: its rrset would gather records from two runs (the derived path orders them).
      for (let k = 0; k < n; k++) if (plain.types[k] === type) return undefined;
      runStart = n;
    }
    plain.types[n] = type;
    plain.starts[n] = at;
    if (type === TYPE.TXT) {
      const next = txtAt(buf, from, c.at, at);
      if (next < 0) return undefined;
      at = next;
    } else at += type === TYPE.A ? 4 : 16;
    plain.ends[n] = at;
    plain.ttls[n] = ttl;
    // The rrset's TTL is the lowest of its records' (node-rrsets.ts).
    for (let k = runStart; k < n; k++) {
      if (plain.ttls[k]! > ttl) plain.ttls[k] = ttl;
      else if (plain.ttls[k]! < ttl) plain.ttls[n] = plain.ttls[k]!;
    }
    n++;
  }
  plain.count = n;
  return plain;
}
