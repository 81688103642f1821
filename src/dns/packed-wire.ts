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
/** An A record's content kept as its four bytes (packed-records.ts). */
const IPV4 = 32;
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

/** TXT character-strings of an ASCII text without escapes (wire/text.ts) written at `at`; the end offset, or -1 when the text needs the general path. */
function txtAt(src: string, from: number, to: number, at: number): number {
  rdataRoom(at, 2 * (to - from) + 1);
  return plainCharacterStringsInto(src, from, to, plain.rdata, at);
}

/**
 * The wire RDATA, types and TTLs of a plain name's packed records (see the module comment), in a buffer reused
 * by the next call; undefined when the name is not plain. Read from the packed string by character codes (one
 * byte each: latin1), not written into a buffer first (a call per name), with the read position in a local (a
 * transfer calls this for every name of the zone).
 */
export function readPlainRecords(src: string): PlainRecords | undefined {
  const end = src.length;
  let i = 0;
  let n = 0;
  let at = 0;
  let runStart = 0;
  while (i < end) {
    const flags = src.charCodeAt(i);
    const index = src.charCodeAt(i + 1);
    if ((flags & ~(HEX_ID | IPV4)) !== 0) return undefined;
    const stored = ((src.charCodeAt(i + 2) << 24) | (src.charCodeAt(i + 3) << 16) | (src.charCodeAt(i + 4) << 8) | src.charCodeAt(i + 5)) >>> 0;
    i += 6;
    // The id (16 bytes, or a varint length and its text), then the content's varint length.
    if (flags & HEX_ID) i += 16;
    else {
      let idLength = 0;
      for (let shift = 0, b = 0x80; b >= 0x80; shift += 7) { b = src.charCodeAt(i++); idLength |= (b & 0x7f) << shift; }
      i += idLength;
    }
    let len = 4;
    if (!(flags & IPV4)) {
      len = 0;
      for (let shift = 0, b = 0x80; b >= 0x80; shift += 7) { b = src.charCodeAt(i++); len |= (b & 0x7f) << shift; }
    }
    const from = i;
    i += len;
    let type: number;
    if (index === INDEX_A) {
      rdataRoom(at, 4);
      const rdata = plain.rdata;
      if (flags & IPV4) {
        rdata[at] = src.charCodeAt(from);
        rdata[at + 1] = src.charCodeAt(from + 1);
        rdata[at + 2] = src.charCodeAt(from + 2);
        rdata[at + 3] = src.charCodeAt(from + 3);
      } else if (!parseIPv4Into(src, from, i, rdata, at)) return undefined;
      type = TYPE.A;
    } else if (index === INDEX_AAAA) {
      const text = src.slice(from, i);
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
    const { types, ttls } = plain;
    if (n > 0 && types[n - 1] !== type) {
      // A type seen before this run: its rrset would gather records from two runs (the derived path orders them).
      for (let k = 0; k < n; k++) if (types[k] === type) return undefined;
      runStart = n;
    }
    types[n] = type;
    plain.starts[n] = at;
    if (type === TYPE.TXT) {
      const next = txtAt(src, from, i, at);
      if (next < 0) return undefined;
      at = next;
    } else at += type === TYPE.A ? 4 : 16;
    plain.ends[n] = at;
    ttls[n] = ttl;
    // The rrset's TTL is the lowest of its records' (node-rrsets.ts).
    for (let k = runStart; k < n; k++) {
      if (ttls[k]! > ttl) ttls[k] = ttl;
      else if (ttls[k]! < ttl) ttls[n] = ttls[k]!;
    }
    n++;
  }
  plain.count = n;
  return plain;
}
