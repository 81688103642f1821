/**
 * DNS messages (RFC 1035 §4): decoding of whole messages (questions, resource records with raw RDATA, the
 * EDNS(0) OPT pseudo-record of RFC 6891) and encoding of responses with name compression.
 */
import { Reader, WireError } from './reader.js';
import { Writer } from './writer.js';
import { TYPE } from './constants.js';

/** RDATA as pieces: raw bytes, or a domain name that may be compressed (only NS, CNAME, SOA, PTR, MX: RFC 3597 §4). */
export type RdataPart = Uint8Array | { readonly name: string };

/** A resource record ready to be written. */
export interface WireRecord {
  name: string;
  type: number;
  /** Class; 1 (IN) when omitted. */
  klass?: number;
  ttl: number;
  rdata: readonly RdataPart[];
}

/** A decoded question. */
export interface Question {
  /** Name as received (case preserved). */
  name: string;
  type: number;
  klass: number;
}

/** A decoded resource record (RDATA left raw). */
export interface DecodedRecord {
  name: string;
  type: number;
  klass: number;
  ttl: number;
  rdata: Uint8Array;
  /** Offset of the RDATA in the message (for names compressed inside it). */
  rdataOffset: number;
}

/** The EDNS(0) part of a message. */
export interface Edns {
  udpSize: number;
  version: number;
  extendedRcode: number;
  dnssecOk: boolean;
}

/** A decoded message. */
export interface DecodedMessage {
  id: number;
  qr: boolean;
  opcode: number;
  aa: boolean;
  tc: boolean;
  rd: boolean;
  cd: boolean;
  rcode: number;
  questions: Question[];
  answers: DecodedRecord[];
  authorities: DecodedRecord[];
  additionals: DecodedRecord[];
  edns: Edns | undefined;
}

function readRecord(r: Reader): DecodedRecord {
  const name = r.name();
  const type = r.u16();
  const klass = r.u16();
  const ttl = r.u32();
  const len = r.u16();
  const rdataOffset = r.pos;
  return { name, type, klass, ttl, rdata: r.bytes(len), rdataOffset };
}

/** Decodes a whole message; throws {@link WireError} when it is malformed (including trailing bytes). */
export function decodeMessage(buf: Uint8Array): DecodedMessage {
  const r = new Reader(buf);
  const id = r.u16();
  const flags = r.u16();
  const qd = r.u16();
  const an = r.u16();
  const ns = r.u16();
  const ar = r.u16();
  const questions: Question[] = [];
  for (let i = 0; i < qd; i++) questions.push({ name: r.name(), type: r.u16(), klass: r.u16() });
  const answers: DecodedRecord[] = [];
  for (let i = 0; i < an; i++) answers.push(readRecord(r));
  const authorities: DecodedRecord[] = [];
  for (let i = 0; i < ns; i++) authorities.push(readRecord(r));
  const additionals: DecodedRecord[] = [];
  let edns: Edns | undefined;
  for (let i = 0; i < ar; i++) {
    const rec = readRecord(r);
    if (rec.type === TYPE.OPT) {
      if (edns !== undefined) throw new WireError('more than one OPT record');
      if (rec.name !== '') throw new WireError('OPT owner is not the root');
      edns = {
        udpSize: rec.klass,
        extendedRcode: rec.ttl >>> 24,
        version: (rec.ttl >>> 16) & 0xff,
        dnssecOk: (rec.ttl & 0x8000) !== 0,
      };
      continue;
    }
    additionals.push(rec);
  }
  if (r.left !== 0) throw new WireError('trailing bytes after the message');
  return {
    id,
    qr: (flags & 0x8000) !== 0,
    opcode: (flags >> 11) & 0xf,
    aa: (flags & 0x0400) !== 0,
    tc: (flags & 0x0200) !== 0,
    rd: (flags & 0x0100) !== 0,
    cd: (flags & 0x0010) !== 0,
    rcode: (flags & 0xf) | ((edns?.extendedRcode ?? 0) << 4),
    questions,
    answers,
    authorities,
    additionals,
    edns,
  };
}

/** What a response (or a NOTIFY) says. */
export interface OutgoingMessage {
  id: number;
  qr: boolean;
  opcode: number;
  aa: boolean;
  tc?: boolean;
  rd: boolean;
  cd?: boolean;
  rcode: number;
  question?: Question | undefined;
  answers: readonly WireRecord[];
  authorities: readonly WireRecord[];
  additionals: readonly WireRecord[];
  /** Adds an OPT record advertising this UDP size (and echoing the DO bit, RFC 3225 §3). */
  edns?: { udpSize: number; dnssecOk?: boolean } | undefined;
}

function writeRecord(w: Writer, rec: WireRecord): void {
  w.name(rec.name);
  w.u16(rec.type);
  w.u16(rec.klass ?? 1);
  w.u32(rec.ttl);
  const lenAt = w.pos;
  w.u16(0);
  for (const part of rec.rdata) {
    if (part instanceof Uint8Array) w.bytes(part);
    else w.name(part.name, true);
  }
  w.patch16(lenAt, w.pos - lenAt - 2);
}

/**
 * Encodes a message into the writer (reset first). Returns the offset where the answer section starts, so
 * that a caller can fall back to a truncated form.
 */
export function encodeMessage(w: Writer, m: OutgoingMessage, sections = true): void {
  w.reset();
  w.u16(m.id);
  let flags = (m.opcode & 0xf) << 11 | (m.rcode & 0xf);
  if (m.qr) flags |= 0x8000;
  if (m.aa) flags |= 0x0400;
  if (m.tc || !sections) flags |= 0x0200;
  if (m.rd) flags |= 0x0100;
  if (m.cd) flags |= 0x0010;
  w.u16(flags);
  w.u16(m.question ? 1 : 0);
  w.u16(sections ? m.answers.length : 0);
  w.u16(sections ? m.authorities.length : 0);
  w.u16((sections ? m.additionals.length : 0) + (m.edns ? 1 : 0));
  if (m.question) {
    w.name(m.question.name);
    w.u16(m.question.type);
    w.u16(m.question.klass);
  }
  if (sections) {
    for (const rec of m.answers) writeRecord(w, rec);
    for (const rec of m.authorities) writeRecord(w, rec);
    for (const rec of m.additionals) writeRecord(w, rec);
  }
  if (m.edns) {
    w.u8(0);
    w.u16(TYPE.OPT);
    w.u16(m.edns.udpSize);
    w.u32((((m.rcode >> 4) & 0xff) << 24 | (m.edns.dnssecOk ? 0x8000 : 0)) >>> 0);
    w.u16(0);
  }
}

/** Encodes a message; when it exceeds `limit` bytes, sends the header and question only with TC set. */
export function encodeLimited(w: Writer, m: OutgoingMessage, limit: number): Buffer {
  encodeMessage(w, m, true);
  if (w.pos > limit) encodeMessage(w, m, false);
  return w.result();
}
