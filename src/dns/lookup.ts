/**
 * The authoritative answer to one question from one zone snapshot (RFC 1034 §4.3.2, RFC 4592 wildcards,
 * RFC 2308 negative answers, RFC 8482 is not needed: ANY returns the node's rrsets). Pure and synchronous.
 *
 * - Delegations: a cut between the apex and the name (or at the name, except for DS) gives a referral:
 *   no AA, the NS rrset in authority and in-zone glue (A/AAAA of the name servers) in additional.
 * - CNAME chains are followed inside the zone (at most 16 links, loops stop); the rcode is the last link's
 *   (RFC 6604).
 * - NXDOMAIN and NODATA carry the SOA in authority with TTL min(SOA TTL, minimum).
 */
import { TYPE, RCODE } from './wire/constants.js';
import type { WireRecord } from './wire/message.js';
import { inZone, type ZoneNode, type ZoneSnapshot } from './snapshot.js';

/** What to send back. */
export interface LookupResult {
  rcode: number;
  /** Authoritative answer (false for referrals and REFUSED). */
  aa: boolean;
  answer: WireRecord[];
  authority: WireRecord[];
  additional: WireRecord[];
}

const MAX_CHAIN = 16;

function parent(name: string): string {
  const dot = name.indexOf('.');
  return dot < 0 ? '' : name.slice(dot + 1);
}

function owned(records: readonly WireRecord[], owner: string, node: ZoneNode): WireRecord[] {
  if (owner === node.name) return records as WireRecord[];
  return records.map((r) => ({ ...r, name: owner }));
}

/** The cut at or above `qname` (below the apex) closest to the apex, if any. */
function findCut(s: ZoneSnapshot, qname: string, qtype: number): string | undefined {
  if (s.cuts.size === 0) return undefined;
  const chain: string[] = [];
  for (let n = qname; n !== s.origin && n !== ''; n = parent(n)) chain.push(n);
  for (let i = chain.length - 1; i >= 0; i--) {
    const n = chain[i]!;
    if (s.cuts.has(n) && !(i === 0 && qtype === TYPE.DS)) return n;
  }
  return undefined;
}

function referral(s: ZoneSnapshot, cut: string): LookupResult {
  const ns = s.nodes.get(cut)!.rrsets.get(TYPE.NS)!;
  const additional: WireRecord[] = [];
  for (const r of ns.records) {
    const target = (r.rdata[0] as { name: string }).name;
    if (!inZone(target, s.origin)) continue;
    const node = s.nodes.get(target);
    if (!node) continue;
    for (const type of [TYPE.A, TYPE.AAAA]) {
      const set = node.rrsets.get(type);
      if (set) additional.push(...set.records);
    }
  }
  return { rcode: RCODE.NOERROR, aa: false, answer: [], authority: ns.records, additional };
}

/** Finds the node answering for qname: the exact node, or the wildcard at the closest encloser. */
function findNode(s: ZoneSnapshot, qname: string): ZoneNode | undefined {
  const exact = s.nodes.get(qname);
  if (exact) return exact;
  for (let n = parent(qname); inZone(n, s.origin); n = parent(n)) {
    if (s.nodes.has(n)) return s.nodes.get(`*.${n}`);
    if (n === s.origin || n === '') break;
  }
  return undefined;
}

/** Answers `qname` (lowercase, no trailing dot) and `qtype` from the snapshot. */
export function lookup(s: ZoneSnapshot, qname: string, qtype: number): LookupResult {
  if (!inZone(qname, s.origin)) return { rcode: RCODE.REFUSED, aa: false, answer: [], authority: [], additional: [] };
  const answer: WireRecord[] = [];
  const seen = new Set<string>();
  let name = qname;
  for (let hop = 0; hop <= MAX_CHAIN; hop++) {
    const cut = findCut(s, name, qtype);
    if (cut !== undefined) {
      if (hop === 0) return referral(s, cut);
      return { rcode: RCODE.NOERROR, aa: true, answer, authority: [], additional: [] };
    }
    const node = findNode(s, name);
    if (!node) return { rcode: RCODE.NXDOMAIN, aa: true, answer, authority: [s.negativeSoa], additional: [] };
    if (qtype === TYPE.ANY && hop === 0) {
      for (const set of node.rrsets.values()) answer.push(...owned(set.records, name, node));
      if (answer.length === 0) return { rcode: RCODE.NOERROR, aa: true, answer, authority: [s.negativeSoa], additional: [] };
      return { rcode: RCODE.NOERROR, aa: true, answer, authority: [], additional: [] };
    }
    const set = node.rrsets.get(qtype);
    if (set) {
      answer.push(...owned(set.records, name, node));
      return { rcode: RCODE.NOERROR, aa: true, answer, authority: [], additional: [] };
    }
    const cname = node.rrsets.get(TYPE.CNAME);
    if (!cname || qtype === TYPE.CNAME) {
      return { rcode: RCODE.NOERROR, aa: true, answer, authority: [s.negativeSoa], additional: [] };
    }
    answer.push(...owned(cname.records, name, node));
    seen.add(name);
    const target = (cname.records[0]!.rdata[0] as { name: string }).name;
    if (!inZone(target, s.origin) || seen.has(target)) break;
    name = target;
  }
  return { rcode: RCODE.NOERROR, aa: true, answer, authority: [], additional: [] };
}
