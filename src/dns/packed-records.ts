/**
 * The stored records of one name packed into one string (each char a byte, 0..255), the form a
 * {@link ZoneTree} keeps them in: a million records cost a million short strings instead of several million
 * objects (a record object, its id and content strings, an array per name), so a big zone takes a fraction of the
 * memory and the garbage collector has almost nothing to trace. Packing is exact: {@link unpackRecords} gives
 * back records equal to the ones packed.
 *
 * One record: flags (u8), type (u8: index in RECORD_TYPES; 255: a string follows, for a type the API does not
 * know, read from a row: it is kept, and left out of the served zone like any record that cannot be encoded), ttl (u32), the id (16 bytes when it is 32 lowercase
 * hex digits, as `newId` makes them, else a string), then priority (u32) when set, content (an A record's
 * strict dotted quad as its four bytes, the form a zone transfer writes and 8-11 bytes fewer; any other as a
 * string), and the JSON of `data` and of non-empty `settings` when present. Strings are UTF-8 after a varint length.
 */
import { formatIPv4, parseIPv4Into } from './ip.js';
import { RECORD_TYPES, type RecordType } from './record.js';
import type { SnapshotRecord } from './snapshot.js';

const HEX_ID = 1;
const PROXIED = 2;
const DATA = 4;
const PRIORITY = 8;
const SETTINGS = 16;
/** The content is an A record's strict dotted quad, kept as its four bytes (it reads back as the same text). */
const IPV4 = 32;
/** The type byte of a type outside RECORD_TYPES (its name follows). */
const OTHER_TYPE = 255;

const TYPE_INDEX = new Map<string, number>(RECORD_TYPES.map((t, i) => [t, i]));
/** Shared by every unpacked record without settings. */
const NO_SETTINGS: SnapshotRecord['settings'] = Object.freeze({}) as SnapshotRecord['settings'];
const HEX = /^[0-9a-f]{32}$/;

/** Grows as needed; one per process (packing is synchronous). */
let scratch = Buffer.allocUnsafe(4096);
const ipv4Scratch = new Uint8Array(4);

function room(at: number, more: number): void {
  if (at + more <= scratch.length) return;
  const next = Buffer.allocUnsafe(Math.max(scratch.length * 2, at + more));
  scratch.copy(next, 0, 0, at);
  scratch = next;
}

function putString(at: number, s: string): number {
  const len = Buffer.byteLength(s);
  room(at, len + 5);
  let n = len;
  while (n >= 0x80) { scratch[at++] = (n & 0x7f) | 0x80; n >>>= 7; }
  scratch[at++] = n;
  return at + scratch.write(s, at, 'utf8');
}

/** Packs one record (its `name` is not kept: the tree holds it). */
export function packRecord(r: SnapshotRecord): string {
  const hex = HEX.test(r.id);
  const settings = r.settings && Object.keys(r.settings).length > 0;
  const type = TYPE_INDEX.get(r.type) ?? OTHER_TYPE;
  room(0, 32);
  // A strict dotted quad (no leading zero, each part at most 255) is the only text of its four bytes.
  const ipv4 = r.type === 'A' && r.content.length <= 15 && parseIPv4Into(r.content, 0, r.content.length, ipv4Scratch, 0);
  scratch[0] = (hex ? HEX_ID : 0) | (r.proxied ? PROXIED : 0) | (r.data !== null ? DATA : 0) | (r.priority !== null ? PRIORITY : 0) | (settings ? SETTINGS : 0) | (ipv4 ? IPV4 : 0);
  scratch[1] = type;
  scratch.writeUInt32BE(r.ttl >>> 0, 2);
  let at = 6;
  if (type === OTHER_TYPE) at = putString(at, String(r.type));
  if (hex) at += scratch.write(r.id, at, 'hex');
  else at = putString(at, r.id);
  if (r.priority !== null) { room(at, 4); scratch.writeUInt32BE(r.priority >>> 0, at); at += 4; }
  if (ipv4) {
    room(at, 4);
    scratch.set(ipv4Scratch, at);
    at += 4;
  } else at = putString(at, r.content);
  if (r.data !== null) at = putString(at, JSON.stringify(r.data));
  if (settings) at = putString(at, JSON.stringify(r.settings));
  return scratch.toString('latin1', 0, at);
}

/** Reads packed records. */
class Cursor {
  at = 0;
  constructor(readonly buf: Buffer) {}

  u8(): number { return this.buf[this.at++]!; }

  u32(): number {
    const v = this.buf.readUInt32BE(this.at);
    this.at += 4;
    return v;
  }

  string(): string {
    let len = 0;
    for (let shift = 0; ; shift += 7) {
      const b = this.u8();
      len |= (b & 0x7f) << shift;
      if (b < 0x80) break;
    }
    const s = this.buf.toString('utf8', this.at, this.at + len);
    this.at += len;
    return s;
  }

  /** Four bytes as a dotted quad. */
  ipv4(): string {
    const text = formatIPv4(this.buf.subarray(this.at, this.at + 4));
    this.at += 4;
    return text;
  }

  id(flags: number, read = true): string {
    if (!(flags & HEX_ID)) return this.string();
    if (!read) { this.at += 16; return ''; }
    const s = this.buf.toString('hex', this.at, this.at + 16);
    this.at += 16;
    return s;
  }
}

function readRecord(c: Cursor, name: string, ids: boolean): SnapshotRecord {
  const flags = c.u8();
  const index = c.u8();
  const ttl = c.u32();
  const type = (index === OTHER_TYPE ? c.string() : RECORD_TYPES[index]) as RecordType;
  const id = c.id(flags, ids);
  const priority = flags & PRIORITY ? c.u32() : null;
  const content = flags & IPV4 ? c.ipv4() : c.string();
  const data = flags & DATA ? (JSON.parse(c.string()) as Record<string, unknown> | null) : null;
  const settings = flags & SETTINGS ? (JSON.parse(c.string()) as SnapshotRecord['settings']) : NO_SETTINGS;
  return { id, name, type, content, data, priority, ttl, proxied: (flags & PROXIED) !== 0, settings };
}

/** Skips one record; returns its id. */
function skipRecord(c: Cursor): string {
  const flags = c.u8();
  const index = c.u8();
  c.at += 4;
  if (index === OTHER_TYPE) c.string();
  const id = c.id(flags);
  if (flags & PRIORITY) c.at += 4;
  if (flags & IPV4) c.at += 4;
  else c.string();
  if (flags & DATA) c.string();
  if (flags & SETTINGS) c.string();
  return id;
}

/**
 * The records of a packed string, owned by `name`. Without `ids`, an id stored as 16 bytes is read as '' (serving
 * needs no ids, and a transfer of a million names would spend a tenth of its time writing them in hex).
 */
export function unpackRecords(packed: string, name: string, ids = true): SnapshotRecord[] {
  const c = new Cursor(Buffer.from(packed, 'latin1'));
  const out: SnapshotRecord[] = [];
  while (c.at < c.buf.length) out.push(readRecord(c, name, ids));
  return out;
}

/** The packed records without the one with this id (the same string when there is none). */
export function withoutRecord(packed: string, id: string): string {
  const c = new Cursor(Buffer.from(packed, 'latin1'));
  while (c.at < c.buf.length) {
    const start = c.at;
    if (skipRecord(c) === id) return Buffer.concat([c.buf.subarray(0, start), c.buf.subarray(c.at)]).toString('latin1');
  }
  return packed;
}

/** Packed records followed by one more (a new flat string: slices and concatenations would keep their parents). */
export function withRecord(packed: string, record: SnapshotRecord): string {
  const more = packRecord(record);
  if (packed === '') return more;
  return Buffer.from(packed + more, 'latin1').toString('latin1');
}
