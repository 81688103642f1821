/**
 * Signing one answer (online signing, RFC 4035 §3.1): the lookup result of a signing zone becomes what a
 * DO query gets.
 *
 * - Every RRset of the answer and authority sections gets its RRSIG, except the NS rrset of a referral and
 *   glue (RFC 4035 §2.2: not authoritative). A referral carries the child's DS with its RRSIG, or the proof
 *   that there is none (an NSEC/NSEC3 at the cut with NS and without DS: an insecure delegation).
 * - An RRset synthesized from a wildcard is signed over the wildcard owner (labels field one less than the
 *   owner's, RFC 4035 §2.2), with the proof that the next closer name does not exist (denial.ts).
 * - Negative answers are compact (RFC 9824): NODATA and NXDOMAIN both answer NOERROR with the signed SOA and
 *   one NSEC (or NSEC3) at the name, NXDOMAIN being told by the NXNAME type in its bitmap.
 * - DNSKEY, CDS, CDNSKEY (and NSEC3PARAM) exist at the apex of a signing zone whether or not DO is set
 *   ({@link lookupSigning}).
 */
import { RCODE, TYPE } from '../wire/constants.js';
import type { WireRecord } from '../wire/message.js';
import { closestEncloser, groupRrsets, nextCloser } from './answer-names.js';
import { inZone, type ZoneNode, type ZoneSnapshot } from '../snapshot.js';
import { lookup, type LookupResult } from '../lookup.js';
import type { SignatureCache } from './rrsig.js';
import { DNSSEC_TYPE, coveringNsec3, matchingNsec3, nsec, predecessor, subtreeEnd, successor } from './denial.js';
import { apexRrsets, type ZoneKeys } from './zone-keys.js';

/** `lookup`, plus the apex records of a signing zone (DNSKEY, CDS, CDNSKEY, NSEC3PARAM; also in ANY). */
export function lookupSigning(s: ZoneSnapshot, qname: string, qtype: number, keys: ZoneKeys): LookupResult {
  if (qname === s.origin) {
    const extra = apexRrsets(s, keys);
    const set = extra.get(qtype);
    if (set) return { rcode: RCODE.NOERROR, aa: true, answer: set, authority: [], additional: [] };
    if (qtype === TYPE.ANY) {
      const r = lookup(s, qname, qtype);
      const answer = r.answer.filter((x) => x.type !== TYPE.DNSKEY);
      for (const records of extra.values()) answer.push(...records);
      return { ...r, answer, authority: [] };
    }
  }
  return lookup(s, qname, qtype);
}

/**
 * Types of a node as its NSEC or NSEC3 bitmap lists them: its rrsets (at the apex with the key records) and
 * RRSIG where signatures are owned by the name: always with NSEC (the NSEC itself is signed there), with NSEC3
 * where signed data is (not at an insecure delegation, not at an empty non-terminal).
 */
export function nodeTypes(s: ZoneSnapshot, node: ZoneNode | undefined, keys: ZoneKeys): number[] {
  const types = node ? [...node.rrsets.keys()] : [];
  if (node && node.name === s.origin) {
    const extra = apexRrsets(s, keys);
    for (const t of extra.keys()) if (!types.includes(t)) types.push(t);
  }
  if (!keys.nsec3) return [...types, TYPE.RRSIG, TYPE.NSEC];
  const isCut = node !== undefined && node.name !== s.origin && s.cuts.has(node.name);
  if ((isCut && !types.includes(TYPE.DS)) || types.length === 0) return types;
  return [...types, TYPE.RRSIG];
}

/** Signs a lookup result of a signing zone for a DO query (see the module comment). */
export function signResult(s: ZoneSnapshot, qname: string, qtype: number, r: LookupResult, keys: ZoneKeys, cache: SignatureCache): LookupResult {
  if (r.rcode !== RCODE.NOERROR && r.rcode !== RCODE.NXDOMAIN) return r;
  const ttl = s.negativeSoa.ttl;
  const sign = (set: WireRecord[], owner?: string) => cache.rrsig(keys.signer, set, owner);
  const answer: WireRecord[] = [];
  const authority: WireRecord[] = [];
  const proofs = new Set<string>();
  const denyNextCloser = (owner: string) => {
    const ce = closestEncloser(s, owner);
    const nc = nextCloser(owner, ce);
    if (proofs.has(nc)) return;
    proofs.add(nc);
    const rec = keys.nsec3 ? coveringNsec3(s.origin, nc, ttl) : nsec(predecessor(nc), subtreeEnd(nc), [TYPE.RRSIG, TYPE.NSEC], ttl);
    authority.push(rec, sign([rec]));
  };

  for (const set of groupRrsets(r.answer)) {
    answer.push(...set);
    const owner = set[0]!.name;
    if (inZone(owner, s.origin) && !s.nodes.has(owner)) {
      answer.push(sign(set, `*.${closestEncloser(s, owner)}`));
      denyNextCloser(owner);
    } else {
      answer.push(sign(set));
    }
  }

  // Referral: NS (unsigned), then the DS or the proof that there is none.
  if (!r.aa) {
    const cut = r.authority[0]?.name;
    const out: WireRecord[] = [...r.authority];
    const node = cut === undefined ? undefined : s.nodes.get(cut);
    const ds = node?.rrsets.get(TYPE.DS)?.records;
    if (ds) out.push(...ds, sign(ds));
    else if (node) {
      const rec = keys.nsec3 ? matchingNsec3(s.origin, node.name, nodeTypes(s, node, keys), ttl) : nsec(node.name, successor(node.name), nodeTypes(s, node, keys), ttl);
      out.push(rec, sign([rec]));
    }
    return { ...r, answer, authority: out };
  }

  const negative = r.authority.some((x) => x.type === TYPE.SOA);
  if (!negative) return { ...r, answer, authority: [...r.authority, ...authority] };

  // Negative: the name where the answer ended (after any CNAME chain), proven to exist without the type, or not to exist.
  const last = r.answer.at(-1);
  const name = last && last.type === TYPE.CNAME && qtype !== TYPE.CNAME ? (last.rdata[0] as { name: string }).name : qname;
  const soa = [s.negativeSoa];
  authority.unshift(...soa, sign(soa));
  const types = r.rcode === RCODE.NXDOMAIN
    ? (keys.nsec3 ? [DNSSEC_TYPE.NXNAME] : [TYPE.RRSIG, TYPE.NSEC, DNSSEC_TYPE.NXNAME])
    : nodeTypes(s, s.nodes.get(name) ?? s.nodes.get(`*.${closestEncloser(s, name)}`), keys);
  const rec = keys.nsec3 ? matchingNsec3(s.origin, name, types, ttl) : nsec(name, successor(name), types, ttl);
  authority.push(rec, sign([rec]));
  return { rcode: RCODE.NOERROR, aa: true, answer, authority, additional: r.additional };
}
