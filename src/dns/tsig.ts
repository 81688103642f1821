/**
 * TSIG (RFC 8945): HMAC transaction signatures on raw DNS messages, for zone transfers, NOTIFY and SOA
 * queries. Pure and wire-level: {@link findTsig} reads a message's TSIG record, {@link verifyRequest} checks a
 * request, {@link ResponseSigner} signs the response(s) to it (the first with the request's MAC and every
 * variable, each later message of a TCP transfer with the prior MAC and the timers only, §5.3.1),
 * {@link signRequest} signs a request and {@link ResponseVerifier} checks the responses a client receives
 * (unsigned messages in between are folded into the next signed one, §5.3.1).
 *
 * Errors as §5.2 says: an unknown key or algorithm is BADKEY, a wrong MAC BADSIG (both answered NOTAUTH with
 * an empty, unsigned MAC), a time outside the fudge BADTIME (NOTAUTH, signed, with the server's time in Other
 * Data); MACs truncated below max(10, half the hash) are BADTRUNC. No npm package implements TSIG for Node
 * (dns-packet and friends stop at parsing the record), hence this file; it is tested against kdig and dig.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import { Reader, WireError } from './wire/reader.js';
import { encodeName } from './wire/writer.js';

/** TSIG's RR type. */
export const TYPE_TSIG = 250;
/** TSIG errors (in the TSIG record's Error field; the message's RCODE is NOTAUTH). */
export const TSIG_ERROR = { NOERROR: 0, BADSIG: 16, BADKEY: 17, BADTIME: 18, BADTRUNC: 22 } as const;
/** The default fudge (seconds), as BIND and Knot use. */
export const DEFAULT_FUDGE = 300;

/** Algorithm names (lowercase, no trailing dot) and the node:crypto hash each uses. */
export const TSIG_ALGORITHMS: Readonly<Record<string, string>> = {
  'hmac-md5.sig-alg.reg.int': 'md5',
  'hmac-sha1': 'sha1',
  'hmac-sha224': 'sha224',
  'hmac-sha256': 'sha256',
  'hmac-sha384': 'sha384',
  'hmac-sha512': 'sha512',
};

/** A shared key. */
export interface TsigKey {
  /** Key name (any case, with or without the trailing dot). */
  name: string;
  /** One of {@link TSIG_ALGORITHMS} (with or without the trailing dot). */
  algorithm: string;
  secret: Buffer;
}

/** A TSIG record read from a message. */
export interface TsigRecord {
  /** Key name, lowercase, no trailing dot. */
  keyName: string;
  /** Algorithm name, lowercase, no trailing dot. */
  algorithm: string;
  /** Seconds since 1970. */
  timeSigned: number;
  fudge: number;
  mac: Buffer;
  originalId: number;
  error: number;
  other: Buffer;
  /** Offset of the record in the message (it is the last one). */
  offset: number;
}

function bare(name: string): string {
  return name.toLowerCase().replace(/\.$/, '');
}

/** The hash of an algorithm name, or undefined when it is not supported. */
export function tsigHash(algorithm: string): string | undefined {
  return TSIG_ALGORITHMS[bare(algorithm)];
}

function skipName(buf: Uint8Array, pos: number): number {
  for (;;) {
    if (pos >= buf.length) throw new WireError('name runs past the end');
    const len = buf[pos]!;
    if (len === 0) return pos + 1;
    if ((len & 0xc0) === 0xc0) return pos + 2;
    if (len > 63) throw new WireError('bad label');
    pos += len + 1;
  }
}

/**
 * The TSIG record of a message, or undefined when it has none. Throws WireError when the message is malformed
 * or a TSIG record is not the last record (FORMERR, §5.1).
 */
export function findTsig(buf: Uint8Array): TsigRecord | undefined {
  if (buf.length < 12) throw new WireError('short message');
  const qd = (buf[4]! << 8) | buf[5]!;
  const total = ((buf[6]! << 8) | buf[7]!) + ((buf[8]! << 8) | buf[9]!) + ((buf[10]! << 8) | buf[11]!);
  if (total === 0) return undefined;
  let pos = 12;
  for (let i = 0; i < qd; i++) pos = skipName(buf, pos) + 4;
  for (let i = 0; i < total; i++) {
    const start = pos;
    pos = skipName(buf, pos);
    if (pos + 10 > buf.length) throw new WireError('record runs past the end');
    const type = (buf[pos]! << 8) | buf[pos + 1]!;
    const rdlen = (buf[pos + 8]! << 8) | buf[pos + 9]!;
    const end = pos + 10 + rdlen;
    if (end > buf.length) throw new WireError('record runs past the end');
    if (type === TYPE_TSIG) {
      if (i !== total - 1 || end !== buf.length) throw new WireError('TSIG is not the last record');
      const r = new Reader(buf);
      r.pos = start;
      const keyName = bare(r.name());
      r.pos = pos + 10;
      const algorithm = bare(r.name());
      const hi = r.u16();
      const timeSigned = hi * 2 ** 32 + r.u32();
      const fudge = r.u16();
      const mac = Buffer.from(r.bytes(r.u16()));
      const originalId = r.u16();
      const error = r.u16();
      const other = Buffer.from(r.bytes(r.u16()));
      if (r.pos !== end) throw new WireError('bad TSIG length');
      return { keyName, algorithm, timeSigned, fudge, mac, originalId, error, other, offset: start };
    }
    pos = end;
  }
  return undefined;
}

/** The message as it was before its TSIG record was added: the record cut, ARCOUNT less one, the original ID back. */
export function withoutTsig(buf: Uint8Array, rec: TsigRecord): Buffer {
  const out = Buffer.from(buf.subarray(0, rec.offset));
  out.writeUInt16BE(rec.originalId, 0);
  out.writeUInt16BE(out.readUInt16BE(10) - 1, 10);
  return out;
}

function u48(seconds: number): Buffer {
  const b = Buffer.alloc(6);
  b.writeUInt16BE(Math.floor(seconds / 2 ** 32) & 0xffff, 0);
  b.writeUInt32BE(seconds % 2 ** 32, 2);
  return b;
}

/** The TSIG variables of the MAC (§4.3.3): all of them, or the timers only (later messages of a transfer). */
function variables(keyName: string, algorithm: string, timeSigned: number, fudge: number, error: number, other: Buffer, timersOnly: boolean): Buffer {
  const fudgeBytes = Buffer.alloc(2);
  fudgeBytes.writeUInt16BE(fudge, 0);
  if (timersOnly) return Buffer.concat([u48(timeSigned), fudgeBytes]);
  const classTtl = Buffer.from([0, 255, 0, 0, 0, 0]);
  const tail = Buffer.alloc(4);
  tail.writeUInt16BE(error, 0);
  tail.writeUInt16BE(other.length, 2);
  return Buffer.concat([encodeName(bare(keyName)), classTtl, encodeName(bare(algorithm)), u48(timeSigned), fudgeBytes, tail, other]);
}

function prefixedMac(mac: Buffer | undefined): Buffer {
  if (!mac) return Buffer.alloc(0);
  const len = Buffer.alloc(2);
  len.writeUInt16BE(mac.length, 0);
  return Buffer.concat([len, mac]);
}

function hmac(key: TsigKey, parts: readonly Uint8Array[]): Buffer {
  const hash = tsigHash(key.algorithm);
  if (!hash) throw new RangeError(`unsupported TSIG algorithm ${key.algorithm}`);
  const h = createHmac(hash, key.secret);
  for (const p of parts) h.update(p);
  return h.digest();
}

/** What to put in a TSIG record appended by {@link appendTsig}. */
interface TsigFields {
  timeSigned: number;
  fudge: number;
  mac: Buffer;
  error: number;
  other: Buffer;
}

/** Appends a TSIG record (names uncompressed) and adds one to ARCOUNT. */
function appendTsig(msg: Uint8Array, key: TsigKey, f: TsigFields): Buffer {
  const name = encodeName(bare(key.name));
  const alg = encodeName(bare(key.algorithm));
  const rdata = Buffer.alloc(alg.length + 16 + f.mac.length + f.other.length);
  let p = alg.copy(rdata, 0);
  u48(f.timeSigned).copy(rdata, p); p += 6;
  p = rdata.writeUInt16BE(f.fudge, p);
  p = rdata.writeUInt16BE(f.mac.length, p);
  p += f.mac.copy(rdata, p);
  p = rdata.writeUInt16BE((msg[0]! << 8) | msg[1]!, p);
  p = rdata.writeUInt16BE(f.error, p);
  p = rdata.writeUInt16BE(f.other.length, p);
  f.other.copy(rdata, p);
  const head = Buffer.alloc(10);
  head.writeUInt16BE(TYPE_TSIG, 0);
  head.writeUInt16BE(255, 2);
  head.writeUInt16BE(rdata.length, 8);
  const out = Buffer.concat([msg, name, head, rdata]);
  out.writeUInt16BE(out.readUInt16BE(10) + 1, 10);
  return out;
}

/** Seconds since 1970 now. */
export function nowSeconds(): number {
  return Math.floor(Date.now() / 1000);
}

/** A signed request and its MAC (the responses are checked against it). */
export interface SignedRequest {
  message: Buffer;
  mac: Buffer;
}

/** Signs a request (a query, a NOTIFY) with a key. */
export function signRequest(msg: Uint8Array, key: TsigKey, opts: { timeSigned?: number; fudge?: number } = {}): SignedRequest {
  const timeSigned = opts.timeSigned ?? nowSeconds();
  const fudge = opts.fudge ?? DEFAULT_FUDGE;
  const mac = hmac(key, [msg, variables(key.name, key.algorithm, timeSigned, fudge, 0, Buffer.alloc(0), false)]);
  return { message: appendTsig(msg, key, { timeSigned, fudge, mac, error: 0, other: Buffer.alloc(0) }), mac };
}

/** The outcome of checking a request's TSIG. */
export type RequestCheck =
  | { status: 'unsigned' }
  /** Signed and valid: sign the responses with `signer`. */
  | { status: 'ok'; key: TsigKey; record: TsigRecord; signer: ResponseSigner }
  /** Signed and refused (BADKEY, BADSIG, BADTIME, BADTRUNC): answer NOTAUTH with {@link tsigErrorResponse}. */
  | { status: 'error'; error: number; record: TsigRecord; key?: TsigKey };

function macLengthOk(mac: Buffer, hashLength: number): 'ok' | 'short' | 'long' {
  if (mac.length > hashLength) return 'long';
  if (mac.length < Math.max(10, Math.ceil(hashLength / 2))) return 'short';
  return 'ok';
}

/**
 * Checks a request's TSIG against the keys `lookup` finds by name; `now` in seconds. Throws WireError when the
 * record is malformed (answer FORMERR).
 */
export function verifyRequest(buf: Uint8Array, lookup: (keyName: string) => TsigKey | undefined, now = nowSeconds()): RequestCheck {
  const record = findTsig(buf);
  if (!record) return { status: 'unsigned' };
  const key = lookup(record.keyName);
  if (!key || bare(key.algorithm) !== record.algorithm || !tsigHash(record.algorithm)) return { status: 'error', error: TSIG_ERROR.BADKEY, record };
  const expected = hmac(key, [withoutTsig(buf, record), variables(record.keyName, record.algorithm, record.timeSigned, record.fudge, record.error, record.other, false)]);
  const length = macLengthOk(record.mac, expected.length);
  if (length === 'long') throw new WireError('TSIG MAC longer than its hash');
  if (!timingSafeEqual(record.mac, expected.subarray(0, record.mac.length))) return { status: 'error', error: TSIG_ERROR.BADSIG, record, key };
  if (Math.abs(now - record.timeSigned) > record.fudge) return { status: 'error', error: TSIG_ERROR.BADTIME, record, key };
  if (length === 'short') return { status: 'error', error: TSIG_ERROR.BADTRUNC, record, key };
  return { status: 'ok', key, record, signer: new ResponseSigner(key, record.mac) };
}

/**
 * Signs the responses to one verified request: the first with the request's MAC and every variable, each
 * later one (a multi-message transfer) with the prior MAC and the timers (§5.3.1).
 */
export class ResponseSigner {
  private prior: Buffer;
  private first = true;

  constructor(private readonly key: TsigKey, requestMac: Buffer, private readonly fudge = DEFAULT_FUDGE) {
    this.prior = requestMac;
  }

  /** The key the request was signed with. */
  get keyName(): string {
    return bare(this.key.name);
  }

  /** Signs the next response message. */
  sign(msg: Uint8Array, now = nowSeconds()): Buffer {
    const timersOnly = !this.first;
    this.first = false;
    const other = Buffer.alloc(0);
    const mac = hmac(this.key, [prefixedMac(this.prior), msg, variables(this.key.name, this.key.algorithm, now, this.fudge, 0, other, timersOnly)]);
    this.prior = mac;
    return appendTsig(msg, this.key, { timeSigned: now, fudge: this.fudge, mac, error: 0, other });
  }
}

/**
 * The TSIG record of a refused request's NOTAUTH response (`msg`, already encoded): BADKEY, BADSIG and BADTRUNC
 * unsigned with an empty MAC; BADTIME signed with the request's MAC, its Time Signed echoed and the server's
 * time in Other Data (§5.2.3).
 */
export function tsigErrorResponse(msg: Uint8Array, check: Extract<RequestCheck, { status: 'error' }>, now = nowSeconds()): Buffer {
  const rec = check.record;
  const key: TsigKey = check.key ?? { name: rec.keyName, algorithm: rec.algorithm, secret: Buffer.alloc(0) };
  if (check.error === TSIG_ERROR.BADTIME && check.key) {
    const other = u48(now);
    const mac = hmac(check.key, [prefixedMac(rec.mac), msg, variables(rec.keyName, rec.algorithm, rec.timeSigned, rec.fudge, check.error, other, false)]);
    return appendTsig(msg, key, { timeSigned: rec.timeSigned, fudge: rec.fudge, mac, error: check.error, other });
  }
  return appendTsig(msg, key, { timeSigned: now, fudge: rec.fudge, mac: Buffer.alloc(0), error: check.error, other: Buffer.alloc(0) });
}

/**
 * Checks the responses a client receives to a request it signed: each message in turn; unsigned messages are
 * allowed between signed ones (folded into the next MAC) but the first and the last must be signed.
 */
export class ResponseVerifier {
  private prior: Buffer;
  private first = true;
  private pending: Buffer[] = [];

  constructor(private readonly key: TsigKey, requestMac: Buffer, private readonly now = nowSeconds) {
    this.prior = requestMac;
  }

  /**
   * Checks one response message; returns `signed` (valid and signed), `unsigned` (allowed for now; the next
   * signed message covers it) or the TSIG error it fails with (`BADKEY` for a message signed with another key,
   * or the error the server put in its TSIG).
   */
  check(buf: Uint8Array): 'signed' | 'unsigned' | { error: number } {
    const rec = findTsig(buf);
    if (!rec) {
      if (this.first) return { error: TSIG_ERROR.BADSIG };
      this.pending.push(Buffer.from(buf));
      return 'unsigned';
    }
    if (rec.keyName !== bare(this.key.name) || rec.algorithm !== bare(this.key.algorithm)) return { error: TSIG_ERROR.BADKEY };
    if (rec.error !== 0 && rec.mac.length === 0) return { error: rec.error };
    const timersOnly = !this.first;
    const expected = hmac(this.key, [prefixedMac(this.prior), ...this.pending, withoutTsig(buf, rec),
      variables(rec.keyName, rec.algorithm, rec.timeSigned, rec.fudge, rec.error, rec.other, timersOnly)]);
    if (macLengthOk(rec.mac, expected.length) !== 'ok' || !timingSafeEqual(rec.mac, expected.subarray(0, rec.mac.length))) return { error: TSIG_ERROR.BADSIG };
    if (rec.error !== 0) return { error: rec.error };
    if (Math.abs(this.now() - rec.timeSigned) > rec.fudge) return { error: TSIG_ERROR.BADTIME };
    this.first = false;
    this.pending = [];
    this.prior = rec.mac;
    return 'signed';
  }

  /** True when no unsigned message is waiting for a signed one (the transfer may end here). */
  get settled(): boolean {
    return !this.first && this.pending.length === 0;
  }
}
