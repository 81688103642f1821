/**
 * Questions for the DNSSEC types themselves at a name of a signing zone, answered as Knot DNS answers them
 * (checked with kdig against knotd with automatic signing), with or without DO:
 *
 * - RRSIG (RFC 4035 §3.1.5 leaves it open; RFC 8482 style): one RRSIG, the one over the name's RRset of the
 *   lowest type, alone and unsigned in the answer. Knot answers the same way.
 * - NSEC (NSEC mode): the name's NSEC (compact form, RFC 9824: next name `\000.<name>`, the name's types),
 *   with its RRSIG when the query has DO.
 *
 * Everything else falls through to the ordinary lookup ({@link metaAnswer} answers undefined): names that
 * own no data (NXDOMAIN and empty non-terminals get the usual compact denial), names at or below a delegation
 * (a referral), NSEC in NSEC3 mode and NSEC3 questions (NODATA: NSEC3 records are owned by hashed names).
 */
import { RCODE, TYPE } from '../wire/constants.js';
import type { ZoneSnapshot } from '../snapshot.js';
import type { LookupResult } from '../lookup.js';
import type { SignatureCache } from './rrsig.js';
import { nsec, successor } from './denial.js';
import type { ZoneKeys } from './zone-keys.js';
import { lookupSigning, nodeTypes } from './sign-response.js';

function atOrBelowCut(s: ZoneSnapshot, qname: string): boolean {
  for (let n = qname; n !== s.origin && n.length > s.origin.length; n = n.slice(n.indexOf('.') + 1)) {
    if (s.cuts.has(n)) return true;
    if (!n.includes('.')) break;
  }
  return false;
}

/** The answer to an RRSIG or NSEC question at a name owning data in a signing zone; undefined otherwise. */
export function metaAnswer(s: ZoneSnapshot, qname: string, qtype: number, dnssecOk: boolean, keys: ZoneKeys, cache: SignatureCache): LookupResult | undefined {
  if (qtype !== TYPE.RRSIG && qtype !== TYPE.NSEC) return undefined;
  const node = s.nodes.get(qname);
  if (!node || node.rrsets.size === 0 || atOrBelowCut(s, qname)) return undefined;
  if (qtype === TYPE.NSEC) {
    if (keys.nsec3) return undefined;
    const rec = nsec(qname, successor(qname), nodeTypes(s, node, keys), s.negativeSoa.ttl);
    return { rcode: RCODE.NOERROR, aa: true, answer: dnssecOk ? [rec, cache.rrsig(keys.signer, [rec])] : [rec], authority: [], additional: [] };
  }
  const first = Math.min(...node.rrsets.keys());
  const set = lookupSigning(s, qname, first, keys).answer.filter((r) => r.name === qname && r.type === first);
  if (!set.length) return undefined;
  return { rcode: RCODE.NOERROR, aa: true, answer: [cache.rrsig(keys.signer, set)], authority: [], additional: [] };
}
