/**
 * Answers from a pre-signed zone (`dnssec_presigned`: signed by an external signer, its RRSIG, NSEC or NSEC3,
 * DNSKEY and SOA records stored in the zone; docs/dns-server.md "Pre-signed zones"). Nothing is signed here:
 *
 * - Without DO, answers are the zone's data: RRSIG, NSEC and NSEC3 records are left out of ANY answers (a
 *   question for one of those types gets the stored records, as any type).
 * - With DO (RFC 4035 §3.1): every authoritative RRset of the answer and authority sections carries its
 *   stored RRSIGs (those whose type covered is the RRset's type; for a wildcard expansion, the wildcard's,
 *   owned by the query name, RFC 4035 §3.1.3.3); a referral carries the DS and its RRSIGs, or the NSEC/NSEC3
 *   at the cut. Denial comes from the stored chain: NODATA the NSEC of the name (or the one covering an empty
 *   non-terminal), NXDOMAIN the NSEC covering the name and the one covering the wildcard of its closest
 *   encloser (RFC 4035 §3.1.3.2); with NSEC3 (an NSEC3PARAM at the apex), the closest-encloser proof of
 *   RFC 5155 §7.2.
 */
import { RCODE, TYPE } from '../wire/constants.js';
import type { WireRecord } from '../wire/message.js';
import { closestEncloser, groupRrsets, nextCloser } from './answer-names.js';
import { inZone, type ZoneSnapshot } from '../snapshot.js';
import { lookup, type LookupResult } from '../lookup.js';
import { ChainIndex } from './presigned-chain.js';

const DENIAL = new Set<number>([TYPE.RRSIG, TYPE.NSEC, TYPE.NSEC3]);

/** The stored RRSIGs at `at` covering `type`, owned by `owner`. */
function signaturesOf(s: ZoneSnapshot, at: string, type: number, owner: string): WireRecord[] {
  const sigs = s.nodes.get(at)?.rrsets.get(TYPE.RRSIG)?.records ?? [];
  const out: WireRecord[] = [];
  for (const r of sigs) {
    const head = r.rdata[0] as Uint8Array;
    if (((head[0]! << 8) | head[1]!) === type) out.push(owner === r.name ? r : { ...r, name: owner });
  }
  return out;
}

/** The answer of a pre-signed zone (see the module comment). */
export function presignedAnswer(s: ZoneSnapshot, qname: string, qtype: number, dnssecOk: boolean): LookupResult {
  const r = lookup(s, qname, qtype);
  if (!dnssecOk) {
    if (qtype !== TYPE.ANY) return r;
    return { ...r, answer: r.answer.filter((x) => !DENIAL.has(x.type)) };
  }
  if (r.rcode !== RCODE.NOERROR && r.rcode !== RCODE.NXDOMAIN) return r;
  let index: ChainIndex | undefined;
  // Built on the first denial an answer needs (most positive answers need none).
  const chain = (): ChainIndex => (index ??= ChainIndex.of(s));
  const proofs: WireRecord[] = [];
  const seen = new Set<WireRecord>();
  const prove = (records: readonly WireRecord[]) => {
    for (const rec of records) {
      if (seen.has(rec)) continue;
      seen.add(rec);
      proofs.push(rec, ...signaturesOf(s, rec.name, rec.type, rec.name));
    }
  };

  const answer: WireRecord[] = [];
  for (const set of groupRrsets(r.answer)) {
    answer.push(...set);
    const owner = set[0]!.name;
    const type = set[0]!.type;
    if (type === TYPE.RRSIG) continue;
    if (inZone(owner, s.origin) && !s.nodes.has(owner)) {
      const ce = closestEncloser(s, owner);
      answer.push(...signaturesOf(s, `*.${ce}`, type, owner));
      prove(chain().covering(nextCloser(owner, ce)));
    } else {
      answer.push(...signaturesOf(s, owner, type, owner));
    }
  }

  if (!r.aa) {
    const cut = r.authority[0]?.name;
    const out = [...r.authority];
    const ds = cut === undefined ? undefined : s.nodes.get(cut)?.rrsets.get(TYPE.DS)?.records;
    if (ds) out.push(...ds, ...signaturesOf(s, cut!, TYPE.DS, cut!));
    else if (cut !== undefined) prove(chain().matching(cut));
    return { ...r, answer, authority: [...out, ...proofs] };
  }

  const negative = r.authority.some((x) => x.type === TYPE.SOA);
  if (!negative) return { ...r, answer, authority: [...r.authority, ...proofs] };
  const last = r.answer.at(-1);
  const name = last && last.type === TYPE.CNAME && qtype !== TYPE.CNAME ? (last.rdata[0] as { name: string }).name : qname;
  const soa = r.authority.find((x) => x.type === TYPE.SOA)!;
  const authority = [soa, ...signaturesOf(s, s.origin, TYPE.SOA, s.origin)];
  if (r.rcode === RCODE.NXDOMAIN) {
    const ce = closestEncloser(s, name);
    const c = chain();
    if (c.nsec3) prove([...c.matching(ce), ...c.covering(nextCloser(name, ce)), ...c.covering(`*.${ce}`)]);
    else prove([...c.covering(name), ...c.covering(`*.${ce}`)]);
  } else if (s.nodes.has(name)) {
    const own = chain().matching(name);
    // An empty non-terminal has no NSEC of its own: the one covering it proves it holds nothing (NSEC3: RFC 5155 §7.2.3 matches it).
    prove(own.length > 0 ? own : chain().covering(name));
  } else {
    // NODATA from a wildcard: the wildcard's denial of the type, and the proof that the name itself does not exist.
    const ce = closestEncloser(s, name);
    const c = chain();
    prove([...c.matching(`*.${ce}`), ...c.covering(nextCloser(name, ce))]);
    if (c.nsec3) prove(c.matching(ce));
  }
  return { rcode: r.rcode, aa: true, answer, authority: [...authority, ...proofs], additional: r.additional };
}
