/**
 * The client side of zone transfers, over TCP (RFC 7766): the primary's SOA serial, AXFR (RFC 5936) and IXFR
 * (RFC 1995). With a TSIG key (RFC 8945) the request is signed and EVERY response message is verified
 * (dns/tsig.ts ResponseVerifier): a message that fails, or a transfer ending on an unsigned message, throws and
 * nothing of the transfer is used. Records come out as presentation text (dns/wire/rdata-text.ts). A primary's
 * `refuse` check (the peer address policy) runs on the address connected to (a literal: no name is resolved)
 * before each connection; a refused address is never contacted.
 */
import net from 'node:net';
import { randomInt } from 'node:crypto';
import { CLASS, OPCODE, RCODE, TYPE } from '../dns/wire/constants.js';
import { decodeMessage, encodeMessage, type DecodedMessage, type DecodedRecord } from '../dns/wire/message.js';
import { Writer } from '../dns/wire/writer.js';
import { rdataText } from '../dns/wire/rdata-text.js';
import { rrTypeName } from '../dns/record-types/type-names.js';
import { ResponseVerifier, signRequest, TSIG_ERROR, TYPE_TSIG, type TsigKey } from '../dns/tsig.js';
import type { CopiedRecord } from '../zones/secondary-copy.js';

/** A primary to pull from. */
export interface Primary {
  host: string;
  port: number;
  key?: TsigKey;
  /** Why the address may not be connected to (peer-address.ts), checked before every connection; undefined: any. */
  refuse?: (address: string) => string | undefined;
}

/** What an IXFR or AXFR brought. */
export type TransferResult =
  | { kind: 'current'; serial: number }
  | { kind: 'full'; serial: number; records: CopiedRecord[]; skippedTypes: number }
  | { kind: 'diff'; serial: number; deleted: CopiedRecord[]; added: CopiedRecord[]; skippedTypes: number };

/** A transfer that failed (network, rcode, TSIG, malformed). */
export class TransferError extends Error {}

const TSIG_NAMES: Record<number, string> = { [TSIG_ERROR.BADSIG]: 'BADSIG', [TSIG_ERROR.BADKEY]: 'BADKEY', [TSIG_ERROR.BADTIME]: 'BADTIME', [TSIG_ERROR.BADTRUNC]: 'BADTRUNC' };
const RCODE_NAMES: Record<number, string> = { 1: 'FORMERR', 2: 'SERVFAIL', 3: 'NXDOMAIN', 4: 'NOTIMP', 5: 'REFUSED', 9: 'NOTAUTH' };

function query(zone: string, type: number, soaSerial: number | undefined, key: TsigKey | undefined): { id: number; msg: Buffer; verifier?: ResponseVerifier } {
  const id = randomInt(0, 65536);
  const w = new Writer(512);
  const authorities = soaSerial === undefined ? [] : [{
    name: zone, type: TYPE.SOA, ttl: 0,
    rdata: [Buffer.from([0, 0]), (() => { const b = Buffer.alloc(20); b.writeUInt32BE(soaSerial >>> 0, 0); return b; })()],
  }];
  encodeMessage(w, { id, qr: false, opcode: OPCODE.QUERY, aa: false, rd: false, rcode: 0, question: { name: zone, type, klass: CLASS.IN }, answers: [], authorities, additionals: [] });
  const plain = w.result();
  if (!key) return { id, msg: plain };
  const signed = signRequest(plain, key);
  return { id, msg: signed.message, verifier: new ResponseVerifier(key, signed.mac) };
}

/**
 * Sends one query over TCP and hands every response message to `each` until it returns true (done); rejects
 * on timeout (`timeoutMs` of silence), a closed connection before the end, or what `each` throws.
 */
function exchange(p: Primary, msg: Buffer, timeoutMs: number, each: (buf: Buffer) => boolean): Promise<void> {
  const refused = p.refuse?.(p.host);
  if (refused) return Promise.reject(new TransferError(refused));
  return new Promise((resolve, reject) => {
    const sock = net.connect({ host: p.host, port: p.port });
    let pending: Buffer = Buffer.alloc(0);
    let finished = false;
    const finish = (err?: Error) => {
      if (finished) return;
      finished = true;
      sock.destroy();
      if (err) reject(err);
      else resolve();
    };
    sock.setTimeout(timeoutMs, () => finish(new TransferError(`no answer from ${p.host}:${p.port} within ${timeoutMs} ms`)));
    sock.on('error', (err) => finish(new TransferError(`${p.host}:${p.port}: ${err.message}`)));
    sock.on('close', () => finish(new TransferError(`${p.host}:${p.port} closed the connection before the transfer ended`)));
    sock.on('connect', () => {
      const len = Buffer.alloc(2);
      len.writeUInt16BE(msg.length);
      sock.write(Buffer.concat([len, msg]));
    });
    sock.on('data', (chunk: Buffer) => {
      pending = pending.length ? Buffer.concat([pending, chunk]) : chunk;
      try {
        while (pending.length >= 2) {
          const n = pending.readUInt16BE(0);
          if (pending.length < 2 + n) break;
          const one = Buffer.from(pending.subarray(2, 2 + n));
          pending = pending.subarray(2 + n);
          if (each(one)) { finish(); return; }
        }
      } catch (err) {
        finish(err instanceof Error ? err : new TransferError(String(err)));
      }
    });
  });
}

/** Checks a response: id, TSIG (every message when signed), rcode. */
function checked(buf: Buffer, id: number, verifier: ResponseVerifier | undefined): DecodedMessage {
  if (buf.length < 12 || buf.readUInt16BE(0) !== id) throw new TransferError('a response with another id');
  if (verifier) {
    const v = verifier.check(buf);
    if (typeof v === 'object') throw new TransferError(`TSIG check of the primary's response failed: ${TSIG_NAMES[v.error] ?? `error ${v.error}`}`);
  }
  let msg: DecodedMessage;
  try {
    msg = decodeMessage(buf);
  } catch (err) {
    throw new TransferError(`malformed response: ${(err as Error).message}`);
  }
  if (msg.rcode !== RCODE.NOERROR) throw new TransferError(`the primary answered ${RCODE_NAMES[msg.rcode] ?? `rcode ${msg.rcode}`}`);
  return msg;
}

function soaSerialOf(r: DecodedRecord, buf: Uint8Array): number {
  const text = rdataText(TYPE.SOA, buf, r.rdataOffset, r.rdata.length)!;
  return Number(text.split(' ')[2]);
}

/** The primary's SOA serial (an SOA query over TCP, signed when the primary has a key). */
export async function primarySerial(p: Primary, zone: string, timeoutMs = 10_000): Promise<number> {
  const q = query(zone, TYPE.SOA, undefined, p.key);
  let serial: number | undefined;
  await exchange(p, q.msg, timeoutMs, (buf) => {
    const msg = checked(buf, q.id, q.verifier);
    const soa = msg.answers.find((r) => r.type === TYPE.SOA && r.name.toLowerCase() === zone.toLowerCase());
    if (!soa) throw new TransferError(`the primary has no SOA for ${zone} (not authoritative?)`);
    if (q.verifier && !q.verifier.settled) throw new TransferError('the primary\'s response is not signed');
    serial = soaSerialOf(soa, buf);
    return true;
  });
  return serial!;
}

/** One transferred record in presentation form (undefined: a type Stratus cannot present). */
function copied(r: DecodedRecord, buf: Uint8Array): CopiedRecord | undefined {
  const text = rdataText(r.type, buf, r.rdataOffset, r.rdata.length);
  if (text === undefined) return undefined;
  return { name: r.name.toLowerCase(), type: rrTypeName(r.type), ttl: r.ttl, rdata: text };
}

/**
 * Transfers the zone: IXFR from `fromSerial` when given (the primary may answer with the whole zone, or with its
 * SOA alone when nothing changed), else AXFR.
 */
export async function transferZone(p: Primary, zone: string, fromSerial: number | undefined, timeoutMs = 30_000): Promise<TransferResult> {
  const q = query(zone, fromSerial === undefined ? TYPE.AXFR : TYPE.IXFR, fromSerial, p.key);
  const apex = zone.toLowerCase();
  let newSerial: number | undefined;
  let firstSoa: CopiedRecord | undefined;
  // start: after the opening SOA; axfr: whole zone; del/add: inside an IXFR sequence (RFC 1995 §4).
  let state: 'start' | 'axfr' | 'del' | 'add' = 'start';
  let count = 0;
  let skippedTypes = 0;
  const full: CopiedRecord[] = [];
  const deleted = new Map<string, CopiedRecord>();
  const added = new Map<string, CopiedRecord>();
  let oldSoa: CopiedRecord | undefined;
  const key = (r: CopiedRecord) => `${r.name}|${r.type}|${r.ttl}|${r.rdata}`;
  let ended = false;
  await exchange(p, q.msg, timeoutMs, (buf) => {
    const msg = checked(buf, q.id, q.verifier);
    for (const r of msg.answers) {
      if (ended) throw new TransferError('records after the closing SOA');
      const rec = copied(r, buf);
      if (!rec) { skippedTypes++; continue; }
      const soa = r.type === TYPE.SOA && rec.name === apex ? soaSerialOf(r, buf) : undefined;
      count++;
      if (count === 1) {
        if (soa === undefined) throw new TransferError('the transfer does not start with the zone\'s SOA');
        newSerial = soa;
        firstSoa = rec;
        full.push(rec);
        continue;
      }
      if (state === 'start') {
        if (soa === undefined) { state = 'axfr'; full.push(rec); continue; }
        if (soa === newSerial) { ended = true; continue; } // a zone of its SOA alone
        state = 'del';
        oldSoa = rec;
        continue;
      }
      if (state === 'axfr') {
        if (soa !== undefined) ended = true;
        else full.push(rec);
        continue;
      }
      if (soa !== undefined) {
        if (state === 'add' && soa === newSerial) ended = true;
        else state = state === 'del' ? 'add' : 'del';
        continue;
      }
      const k = key(rec);
      if (state === 'add') { if (deleted.has(k)) deleted.delete(k); else added.set(k, rec); } else if (added.has(k)) added.delete(k); else deleted.set(k, rec);
    }
    // An IXFR answered with the SOA alone: the copy is current.
    if (!ended && count === 1 && fromSerial !== undefined) ended = true;
    if (ended && q.verifier && !q.verifier.settled) throw new TransferError('the transfer ends on a message that is not signed');
    return ended;
  });
  if (newSerial === undefined || !firstSoa) throw new TransferError('empty transfer');
  if (count === 1) return { kind: 'current', serial: newSerial };
  const last = state as string;
  if (last === 'axfr' || last === 'start') return { kind: 'full', serial: newSerial, records: full, skippedTypes };
  return { kind: 'diff', serial: newSerial, deleted: [oldSoa!, ...deleted.values()], added: [firstSoa, ...added.values()], skippedTypes };
}
