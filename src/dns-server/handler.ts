/**
 * One DNS message in, the response message(s) out. Synchronous unless the zone asked about has changes
 * queued or a zone is being created (see zone-cache.ts). Never throws: malformed queries get FORMERR (RFC 1035 §4.1.1) when their header
 * can be read and are dropped otherwise; responses (QR set) are dropped; opcodes other than QUERY get NOTIMP;
 * EDNS versions above 0 get BADVERS (RFC 6891 §6.1.3). Zones with DNSSEC on are answered through signing.ts
 * (signed when the query has DO, whose bit is echoed per RFC 3225).
 */
import type { Logger } from '../shared/logger.js';
import { CLASS, EDNS_UDP_SIZE, OPCODE, RCODE, TYPE } from '../dns/wire/constants.js';
import { decodeMessage, encodeLimited, type DecodedMessage, type OutgoingMessage } from '../dns/wire/message.js';
import { Writer } from '../dns/wire/writer.js';
import { lookup } from '../dns/lookup.js';
import type { ZoneSnapshot } from '../dns/snapshot.js';
import type { LookupResult } from '../dns/lookup.js';
import type { Invalidation } from './zone-set.js';
import { axfrMessages, axfrStream, streamTransfer, transferView } from './axfr.js';
import { ixfrRecords } from './ixfr.js';
import { PacketCache, packetKey, questionNameEnd, type AnswerDeps } from './packet-cache.js';
import type { ZoneSigning } from './signing.js';
import { signedTransferBatches } from './signing-transfer.js';
import { DNSSEC_TYPE } from '../dns/dnssec/denial.js';
import { TYPE_TSIG, tsigErrorResponse, verifyRequest, type ResponseSigner } from '../dns/tsig.js';
import { findKey, notifyAccepted, transferAllowed, type TransferPolicies } from '../secondary-dns/transfer-policy.js';

/** Where the handler finds zones (the zone cache on the main thread with `--dns-workers 0`, the DNS thread's trees otherwise). */
export interface SnapshotSource {
  /** The zone holding `qname` (lowercase), by longest suffix. */
  find(qname: string): ZoneSnapshot | undefined;
  /** A promise to wait for before answering from this zone (or from no zone), when it must be brought up to date first. */
  pendingFor(snapshot: ZoneSnapshot | undefined): Promise<unknown> | undefined;
  /**
   * Registers the listener told which answers may have changed (the packet cache drops them; answers that had
   * to wait for a zone are never cached).
   */
  onInvalidate(listener: (inv: Invalidation) => void): void;
}

/** Answers that depend on nothing served (no zone, bad class): dropped whenever the set of zones changes. */
const NO_ZONE: AnswerDeps = { zoneId: '', names: undefined };

/**
 * What an answer from `zone` depends on: the owner names it holds, or anything in the zone when it carries
 * the SOA (negative answers, SOA and ANY at the apex: the serial changes with every write) or was synthesized
 * from a wildcard (its owner is no node of the zone).
 */
function answerDeps(zone: ZoneSnapshot, result: LookupResult): AnswerDeps {
  const any: AnswerDeps = { zoneId: zone.zoneId, names: undefined };
  const names = new Set<string>();
  for (const section of [result.answer, result.authority, result.additional]) {
    for (const r of section) {
      if (r.type === TYPE.SOA || !zone.nodes.has(r.name)) return any;
      names.add(r.name);
    }
  }
  return names.size ? { zoneId: zone.zoneId, names: [...names] } : any;
}
import { queryStats } from './query-stats.js';
import type { QueryLog } from './query-log.js';

import type { QueryOrigin, Responses, TransferPart } from './query-types.js';

export type { QueryOrigin, Responses } from './query-types.js';

/**
 * Told of every UDP answer the packet cache holds, as it is stored or served (the native UDP path caches
 * exactly these, native-udp.ts): the query, the answer, the zone it was filed under ('' none) and when it
 * must stop being served (ms since 1970; the signing epoch's end for signed answers).
 */
export type CachedAnswerListener = (query: Uint8Array, answer: Buffer, zoneId: string, expiresAt: number) => void;

/** True for AXFR/IXFR questions (their answers depend on the client's address, so they are never cached). */
function isTransfer(buf: Uint8Array): boolean {
  const end = questionNameEnd(buf);
  const type = ((buf[end] ?? 0) << 8) | (buf[end + 1] ?? 0);
  return type === TYPE.AXFR || type === TYPE.IXFR;
}

/**
 * The zone a DS question is answered from: DS lives on the parent side of a cut (RFC 4035 §3.1.4.1), so a DS
 * question for a zone's apex goes to the enclosing zone when this server has it too.
 */
function parentSide(cache: SnapshotSource, qname: string, zone: ZoneSnapshot | undefined): ZoneSnapshot | undefined {
  if (!zone || qname !== zone.origin || qname === '') return zone;
  const dot = qname.indexOf('.');
  return cache.find(dot < 0 ? '' : qname.slice(dot + 1)) ?? zone;
}

/** Answers DNS messages from the zone cache. */
export class DnsHandler {
  private readonly writer = new Writer(65_536);
  private readonly packets = new PacketCache();
  /** What the answer just computed depends on (set synchronously by {@link answer}). */
  private deps: AnswerDeps = NO_ZONE;
  /** Told of the UDP answers the packet cache holds (the DNS thread's native UDP path). */
  onCachedAnswer: CachedAnswerListener | undefined;
  /** Outgoing transfer settings of zones that have them (secondary-dns/transfer-policy.ts). */
  private policies: TransferPolicies = {};
  /** Told of a NOTIFY accepted from a secondary zone's primary (the refresh loop pulls the zone). */
  onNotify: ((zoneId: string) => void) | undefined;
  /**
   * Told when an IXFR of a zone with outgoing settings is answered over UDP (`last_transferred_time`; sent at
   * once). A TCP transfer is marked instead ({@link Responses.transferOf}), for its sender to tell when it ends.
   */
  onTransferred: ((zoneId: string) => void) | undefined;
  /** Set while answering a TSIG-signed query: its answer is signed, never cached. */
  private signed = false;
  /** Bytes kept free in a UDP answer for its TSIG record. */
  private reserve = 0;

  constructor(
    private readonly cache: SnapshotSource,
    private readonly transferAllow: readonly string[],
    private readonly logger: Logger,
    /** Access lines of queries (rate-limited); none when absent. */
    private readonly queryLog?: QueryLog,
    /** Online signing of DNSSEC zones (signing.ts); without it every zone is served unsigned. */
    private readonly signing?: ZoneSigning,
  ) {
    cache.onInvalidate((inv) => this.packets.invalidate(inv.zoneId, inv.names));
  }

  /** Replaces the transfer policies (zones without one keep the instance's `--transfer-allow`). */
  setTransferPolicies(policies: TransferPolicies): void {
    this.policies = policies;
  }

  /**
   * Handles one message; returns the responses (possibly none), or a promise of them while a zone has work
   * queued. Every message is counted (query-stats.ts) and offered to the query log, once its answer is known.
   */
  handle(buf: Uint8Array, from: QueryOrigin): Responses | Promise<Responses> {
    const started = performance.now();
    const out = this.respond(buf, from);
    if (Array.isArray(out)) {
      this.observe(buf, out, from, started);
      return out;
    }
    return out.then((r) => { this.observe(buf, r, from, started); return r; });
  }

  private observe(buf: Uint8Array, out: Responses, from: QueryOrigin, started: number): void {
    try {
      const seconds = (performance.now() - started) / 1000;
      queryStats.record(buf, out[0], from.transport, seconds);
      this.queryLog?.offer(buf, out, from, seconds);
    } catch (err) {
      this.logger.error({ err }, 'counting a query failed'); // never keeps the answer from going out
    }
  }

  private respond(buf: Uint8Array, from: QueryOrigin): Responses | Promise<Responses> {
    try {
      const plain = packetKey(buf, from.transport);
      if (plain === undefined) return this.handleUnsafe(buf, from);
      const key = this.signing ? plain + this.signing.epoch : plain;
      const hit = this.packets.get(key, buf);
      const told = from.transport === 'udp' ? this.onCachedAnswer : undefined;
      if (hit) {
        if (told) told(buf, hit, this.packets.zoneOf(key)!, this.signing ? this.signing.epochEnds : Infinity);
        return [hit];
      }
      this.deps = NO_ZONE;
      this.signed = false;
      const out = this.handleUnsafe(buf, from);
      if (Array.isArray(out) && !this.signed && out.length === 1 && out[0]!.length >= 12 && out[0]![5] === 1 && out[0]![4] === 0 && !isTransfer(buf)) {
        this.packets.set(key, out[0]!, this.deps);
        if (told) told(buf, out[0]!, this.deps.zoneId, this.signing ? this.signing.epochEnds : Infinity);
      }
      return out;
    } catch (err) {
      this.logger.error({ err }, 'unexpected error while answering');
      return this.bare(buf, RCODE.SERVFAIL);
    }
  }

  /** A header-only reply with this rcode, echoing id and opcode; none for responses or short messages. */
  private bare(buf: Uint8Array, rcode: number): Responses {
    if (buf.length < 12 || (buf[2]! & 0x80) !== 0) return [];
    const out = Buffer.alloc(12);
    out.writeUInt16BE((buf[0]! << 8) | buf[1]!, 0);
    out[2] = 0x80 | (buf[2]! & 0x79);
    out[3] = rcode & 0xf;
    return [out];
  }

  private handleUnsafe(buf: Uint8Array, from: QueryOrigin): Responses | Promise<Responses> {
    this.reserve = 0;
    if (buf.length < 12 || (buf[2]! & 0x80) !== 0) return [];
    let msg: DecodedMessage;
    try {
      msg = decodeMessage(buf);
    } catch {
      return this.bare(buf, RCODE.FORMERR);
    }
    const q = msg.questions[0];
    if (msg.opcode === OPCODE.NOTIFY) return this.notify(msg, from, buf);
    if (msg.opcode !== OPCODE.QUERY) return this.reply(msg, from, msg.questions.length === 1 ? RCODE.NOTIMP : RCODE.NOTIMP, q);
    if (msg.questions.length !== 1 || !q) return this.reply(msg, from, RCODE.FORMERR, undefined);
    if (msg.edns && msg.edns.version > 0) return this.reply(msg, from, RCODE.BADVERS, q);
    if (q.klass !== CLASS.IN && q.klass !== CLASS.ANY) return this.reply(msg, from, RCODE.REFUSED, q);
    // OPT is no question; NXNAME is a meta-type that explicit queries get FORMERR for (RFC 9824 §3.5).
    if (q.type === TYPE.OPT || q.type === DNSSEC_TYPE.NXNAME) return this.reply(msg, from, RCODE.FORMERR, q);
    const qname = q.name.toLowerCase();
    const zone = this.cache.find(qname);
    const pending = this.cache.pendingFor(zone);
    if (pending) {
      return pending.then(() => {
        try {
          return this.answer(msg, from, qname, this.cache.find(qname), buf);
        } catch (err) {
          this.logger.error({ err }, 'unexpected error while answering');
          return this.bare(buf, RCODE.SERVFAIL);
        }
      });
    }
    return this.answer(msg, from, qname, zone, buf);
  }

  /**
   * Answers from a zone; a query signed with TSIG (RFC 8945) is checked against the zone's account keys first
   * (NOTAUTH with BADKEY, BADSIG or BADTIME when it fails) and every response to it is signed.
   */
  private answer(msg: DecodedMessage, from: QueryOrigin, qname: string, found: ZoneSnapshot | undefined, buf: Uint8Array): Responses {
    const q = msg.questions[0]!;
    const zone = q.type === TYPE.DS ? parentSide(this.cache, qname, found) : found;
    this.reserve = 0;
    if (!msg.additionals.some((r) => r.type === TYPE_TSIG)) return this.answerZone(msg, from, qname, zone, undefined, buf);
    this.signed = true;
    const policy = zone ? this.policies[zone.zoneId] : undefined;
    let check: ReturnType<typeof verifyRequest>;
    try {
      check = verifyRequest(buf, (name) => findKey(policy, name));
    } catch {
      return this.reply(msg, from, RCODE.FORMERR, q);
    }
    if (check.status === 'error') {
      this.logger.info({ zone: zone?.origin, from: from.address, key: check.record.keyName, tsigError: check.error }, 'TSIG check failed');
      return [tsigErrorResponse(this.reply(msg, from, RCODE.NOTAUTH, q)[0]!, check)];
    }
    if (check.status !== 'ok') return this.answerZone(msg, from, qname, zone, undefined, buf);
    const signer = check.signer;
    this.reserve = 64 + check.record.keyName.length + check.record.algorithm.length + check.record.mac.length;
    const out = this.answerZone(msg, from, qname, zone, signer, buf);
    // Signed copies: the unsigned messages' memory is given back at once.
    const signAll = (part: TransferPart): Buffer[] => {
      const copies = part.map((m) => signer.sign(m));
      part.release?.();
      return copies;
    };
    const signed: Responses = signAll(out);
    if (out.transferOf !== undefined) signed.transferOf = out.transferOf;
    const more = out.more;
    if (more) {
      signed.more = () => {
        const next = more();
        if (next === undefined || Array.isArray(next)) return next && signAll(next);
        return next.then((n) => n && signAll(n));
      };
    }
    return signed;
  }

  private answerZone(msg: DecodedMessage, from: QueryOrigin, qname: string, zone: ZoneSnapshot | undefined, signer: ResponseSigner | undefined, buf: Uint8Array): Responses {
    const q = msg.questions[0]!;
    if (!zone) return this.reply(msg, from, RCODE.REFUSED, q);
    if (q.type === TYPE.AXFR || q.type === TYPE.IXFR) {
      if (qname !== zone.origin) return this.reply(msg, from, RCODE.NOTAUTH, q);
      if (from.transport === 'udp' && q.type === TYPE.AXFR) return this.reply(msg, from, RCODE.FORMERR, q);
      // The SOA alone: the client is current, or must ask again over TCP (RFC 1995 §2).
      const soaOnly = () => this.reply(msg, from, RCODE.NOERROR, q, { answers: zone.soa.records, aa: true });
      if (!transferAllowed(this.policies[zone.zoneId], this.transferAllow, from.address, signer?.keyName)) {
        if (from.transport === 'udp') return soaOnly();
        this.logger.info({ zone: zone.origin, from: from.address, key: signer?.keyName }, 'zone transfer refused');
        return this.reply(msg, from, RCODE.REFUSED, q);
      }
      const keys = this.signing?.keysFor(zone);
      if (q.type === TYPE.IXFR) {
        // Signed zones are transferred whole (their signatures are made per epoch, not journaled).
        const diff = keys ? undefined : ixfrRecords(msg, buf, zone);
        if (diff === 'current') return soaOnly();
        if (diff && from.transport === 'udp') {
          const out = this.reply(msg, from, RCODE.NOERROR, q, { answers: diff, aa: true });
          if ((out[0]![2]! & 0x02) !== 0) return soaOnly();
          if (this.hasOutgoing(zone)) this.onTransferred?.(zone.zoneId);
          return out;
        }
        if (diff) return this.transferred(zone, axfrMessages(zone, msg.id, q, 16_000, diff));
        if (from.transport === 'udp') return soaOnly();
      }
      // Streamed: signed (a big zone's first signed transfer takes a while) and sent a part at a time (axfr.ts).
      const { first, more } = keys ? streamTransfer(msg.id, q, signedTransferBatches(transferView(zone), keys, this.signing!.cache)) : axfrStream(zone, msg.id, q);
      return this.transferred(zone, more ? Object.assign(first, { more }) : first);
    }
    const result = this.signing ? this.signing.answer(zone, qname, q.type, msg.edns?.dnssecOk === true) : lookup(zone, qname, q.type);
    this.deps = answerDeps(zone, result);
    return this.reply(msg, from, result.rcode, q, {
      aa: result.aa, answers: result.answer, authorities: result.authority, additionals: result.additional,
    });
  }

  /** True when the zone has outgoing settings of its own (its transfers set `last_transferred_time`). */
  private hasOutgoing(zone: ZoneSnapshot): boolean {
    const policy = this.policies[zone.zoneId];
    return policy !== undefined && policy.defaults !== true;
  }

  /** A TCP transfer's answer, marked with its zone when that has outgoing settings (the sender reports its end). */
  private transferred(zone: ZoneSnapshot, out: Responses): Responses {
    if (this.hasOutgoing(zone)) out.transferOf = zone.zoneId;
    return out;
  }

  /**
   * A NOTIFY (RFC 1996): taken (NOERROR, AA) for a secondary zone from one of its primaries' addresses, checked
   * against the account's TSIG keys when signed (and the answer signed); REFUSED from anywhere else.
   */
  private notify(msg: DecodedMessage, from: QueryOrigin, buf: Uint8Array): Responses {
    const q = msg.questions[0];
    if (msg.questions.length !== 1 || !q) return this.reply(msg, from, RCODE.FORMERR, q);
    const qname = q.name.toLowerCase();
    const zone = this.cache.find(qname);
    const policy = zone && zone.origin === qname ? this.policies[zone.zoneId] : undefined;
    if (!zone || !notifyAccepted(policy, from.address)) {
      this.logger.info({ zone: qname, from: from.address }, 'NOTIFY refused: not from a primary of a secondary zone');
      return this.reply(msg, from, RCODE.REFUSED, q);
    }
    let signer: ResponseSigner | undefined;
    if (msg.additionals.some((r) => r.type === TYPE_TSIG)) {
      this.signed = true;
      let check: ReturnType<typeof verifyRequest>;
      try {
        check = verifyRequest(buf, (name) => findKey(policy, name));
      } catch {
        return this.reply(msg, from, RCODE.FORMERR, q);
      }
      if (check.status === 'error') return [tsigErrorResponse(this.reply(msg, from, RCODE.NOTAUTH, q)[0]!, check)];
      if (check.status === 'ok') signer = check.signer;
    }
    this.onNotify?.(zone.zoneId);
    const out = this.reply(msg, from, RCODE.NOERROR, q, { aa: true });
    return signer ? out.map((m) => signer.sign(m)) : out;
  }

  private reply(
    msg: DecodedMessage, from: QueryOrigin, rcode: number, question: DecodedMessage['questions'][number] | undefined,
    body: Partial<Pick<OutgoingMessage, 'aa' | 'answers' | 'authorities' | 'additionals'>> = {},
  ): Responses {
    const limit = (from.transport === 'tcp' ? 65_535 : msg.edns ? Math.max(512, Math.min(msg.edns.udpSize, 4096)) : 512) - this.reserve;
    const out: OutgoingMessage = {
      id: msg.id, qr: true, opcode: msg.opcode, aa: body.aa ?? false, rd: msg.rd, cd: msg.cd, rcode,
      question, answers: body.answers ?? [], authorities: body.authorities ?? [], additionals: body.additionals ?? [],
      edns: msg.edns ? { udpSize: EDNS_UDP_SIZE, dnssecOk: msg.edns.dnssecOk } : undefined,
    };
    try {
      return [encodeLimited(this.writer, out, limit)];
    } catch {
      // A question name that cannot be written back (odd labels): answer without the question.
      return [encodeLimited(this.writer, { ...out, question: undefined, answers: [], authorities: [], additionals: [], rcode: rcode === RCODE.NOERROR ? RCODE.FORMERR : rcode }, limit)];
    }
  }
}
