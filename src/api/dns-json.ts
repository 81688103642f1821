/**
 * The JSON form of DNS-over-HTTPS (`GET /dns-query?name=&type=`, `accept: application/dns-json`), in the shape of
 * production's public resolver JSON API: Status, TC, RD, RA, AD, CD, Question, Answer (and Authority when the
 * answer has one), each record `{ name, type, TTL, data }` with `data` in presentation format. The question is
 * made into a wire query here and answered by the same handler as the wire form; this file only translates.
 */
import { CLASS, EDNS_UDP_SIZE, OPCODE } from '../dns/wire/constants.js';
import { decodeMessage, encodeMessage, type DecodedRecord } from '../dns/wire/message.js';
import { Writer, encodeName } from '../dns/wire/writer.js';
import { recordText } from '../dns/wire/rdata-text.js';
import { rrTypeCode } from '../dns/record-types/type-names.js';

/** A JSON question the client got wrong: answered 400 with `{ "error": message }`. */
export class DnsJsonError extends Error {}

/** The parameters of a JSON question. */
export interface JsonQuestion {
  name: string;
  type: number;
  /** DNSSEC OK: signatures are wanted (`do=1` / `do=true`). */
  dnssecOk: boolean;
  /** Checking disabled (`cd=1`), echoed. */
  checkingDisabled: boolean;
}

const TRUE = new Set(['1', 'true']);
const FALSE = new Set(['', '0', 'false']);

function flag(name: string, value: string | undefined): boolean {
  if (value === undefined) return false;
  const v = value.toLowerCase();
  if (TRUE.has(v)) return true;
  if (FALSE.has(v)) return false;
  throw new DnsJsonError(`Invalid ${name} flag: use 1, 0, true or false`);
}

/** Reads `name`, `type` (a mnemonic or number; A by default), `do` and `cd` from the query string. */
export function parseJsonQuestion(q: (key: string) => string | undefined): JsonQuestion {
  const raw = q('name');
  if (raw === undefined || raw.trim() === '') throw new DnsJsonError('Invalid DNS name: the name parameter is required');
  const name = raw.trim().replace(/\.$/, '');
  try {
    encodeName(name);
  } catch {
    throw new DnsJsonError(`Invalid DNS name: ${raw}`);
  }
  const typeText = (q('type') ?? 'A').trim();
  const type = /^\d{1,5}$/.test(typeText) ? Number(typeText) : rrTypeCode(typeText) ?? (typeText.toUpperCase() === 'ANY' ? 255 : undefined);
  if (type === undefined || type < 1 || type > 65535) throw new DnsJsonError(`Invalid DNS type: ${typeText}`);
  return { name, type, dnssecOk: flag('do', q('do')), checkingDisabled: flag('cd', q('cd')) };
}

/** The wire query of a JSON question (id 0, RD set, EDNS with the DO bit asked for). */
export function jsonQuery(question: JsonQuestion): Buffer {
  const w = new Writer(512);
  encodeMessage(w, {
    id: 0, qr: false, opcode: OPCODE.QUERY, aa: false, rd: true, cd: question.checkingDisabled, rcode: 0,
    question: { name: question.name, type: question.type, klass: CLASS.IN },
    answers: [], authorities: [], additionals: [], edns: { udpSize: EDNS_UDP_SIZE, dnssecOk: question.dnssecOk },
  });
  return w.result();
}

/** One record as the JSON API shows it. */
export interface JsonRecord { name: string; type: number; TTL: number; data: string }

/** The JSON answer. */
export interface JsonAnswer {
  Status: number; TC: boolean; RD: boolean; RA: boolean; AD: boolean; CD: boolean;
  Question: Array<{ name: string; type: number }>;
  Answer?: JsonRecord[];
  Authority?: JsonRecord[];
}

/** The JSON of a wire response (RA and AD false: this is an authoritative server, not a validating resolver). */
export function jsonAnswer(response: Uint8Array): JsonAnswer {
  const m = decodeMessage(response);
  const rec = (r: DecodedRecord): JsonRecord => ({ name: r.name === '' ? '.' : r.name, type: r.type, TTL: r.ttl, data: recordText(response, r) });
  return {
    Status: m.rcode, TC: m.tc, RD: m.rd, RA: false, AD: false, CD: m.cd,
    Question: m.questions.map((q) => ({ name: q.name === '' ? '.' : q.name, type: q.type })),
    ...(m.answers.length ? { Answer: m.answers.map(rec) } : {}),
    ...(m.authorities.length ? { Authority: m.authorities.map(rec) } : {}),
  };
}
