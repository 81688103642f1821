/**
 * The records of a zone transfer (AXFR) of a signing zone, so a secondary serves it signed without the key:
 * the zone's records with the apex key records (DNSKEY, CDS, CDNSKEY, NSEC3PARAM), an RRSIG over every
 * authoritative RRset (not the NS of a delegation, not glue below it), and a complete NSEC chain over the
 * names that own data, or in NSEC3 mode a complete NSEC3 chain over every authoritative name (empty
 * non-terminals included, RFC 5155 §7.1). SOA first and last, as for an unsigned zone.
 */
import type { ZoneSnapshot } from '../dns/snapshot.js';
import { TYPE } from '../dns/wire/constants.js';
import type { WireRecord } from '../dns/wire/message.js';
import type { SignatureCache } from '../dns/dnssec/rrsig.js';
import type { ZoneKeys } from '../dns/dnssec/zone-keys.js';
import { apexRrsets } from '../dns/dnssec/zone-keys.js';
import { compareNames } from '../dns/dnssec/canonical.js';
import { nodeTypes } from '../dns/dnssec/sign-response.js';
import { nsec, nsec3, nsec3Hash } from '../dns/dnssec/denial.js';

/** True when `name` is strictly below one of the zone's delegations (glue or occluded data). */
function occluded(s: ZoneSnapshot, name: string): boolean {
  for (let n = name; n !== s.origin && n !== ''; ) {
    const dot = n.indexOf('.');
    n = dot < 0 ? '' : n.slice(dot + 1);
    if (n !== s.origin && s.cuts.has(n)) return true;
  }
  return false;
}

/** RRsets (or chain records) signed per batch of {@link signedTransferBatches}. */
const SLICE = 64;

/** Every record of the signed zone in transfer order (see the module comment), at once. */
export function signedTransferRecords(s: ZoneSnapshot, keys: ZoneKeys, cache: SignatureCache): WireRecord[] {
  const out: WireRecord[] = [];
  for (const batch of signedTransferBatches(s, keys, cache)) for (const r of batch) out.push(r);
  return out;
}

/**
 * {@link signedTransferRecords} in batches of about {@link SLICE} signed RRsets, made as they are taken, so the
 * transfer of a big zone is signed and sent a slice at a time (axfr.ts) with queries answered in between.
 * `s` must not change while the batches are read (a frozen version of a tree: zone-tree-transfer.ts).
 */
export function* signedTransferBatches(s: ZoneSnapshot, keys: ZoneKeys, cache: SignatureCache): Generator<WireRecord[], void> {
  let work = 0;
  const soa = s.soa.records[0]!;
  let out: WireRecord[] = [soa, cache.rrsig(keys.signer, [soa])];
  const ttl = s.negativeSoa.ttl;
  const names = [...s.nodes.keys()].filter((n) => !occluded(s, n)).sort(compareNames);
  const extra = apexRrsets(s, keys);
  for (const name of names) {
    const node = s.nodes.get(name)!;
    const cut = name !== s.origin && s.cuts.has(name);
    const sets = [...node.rrsets.values()].map((set) => set.records).filter((r) => !(name === s.origin && (r[0]!.type === TYPE.SOA || extra.has(r[0]!.type))));
    if (name === s.origin) sets.push(...extra.values());
    for (const set of sets) {
      out.push(...set);
      if (!(cut && set[0]!.type === TYPE.NS)) out.push(cache.rrsig(keys.signer, set));
      if (++work % SLICE === 0) { yield out; out = []; }
    }
  }
  for (const name of s.nodes.keys()) {
    if (!occluded(s, name)) continue;
    for (const set of s.nodes.get(name)!.rrsets.values()) out.push(...set.records);
  }
  if (keys.nsec3) {
    // Hashes first (their order is the chain's), the owner's types when its NSEC3 is made.
    const hashed = names.map((n) => ({ h: nsec3Hash(n), n })).sort((a, b) => Buffer.compare(a.h, b.h));
    for (const [i, e] of hashed.entries()) {
      const rec = nsec3(s.origin, e.h, hashed[(i + 1) % hashed.length]!.h, nodeTypes(s, s.nodes.get(e.n), keys), ttl);
      out.push(rec, cache.rrsig(keys.signer, [rec]));
      if (++work % SLICE === 0) { yield out; out = []; }
    }
  } else {
    const owning = names.filter((n) => s.nodes.get(n)!.rrsets.size > 0);
    for (const [i, n] of owning.entries()) {
      const rec = nsec(n, owning[(i + 1) % owning.length]!, nodeTypes(s, s.nodes.get(n), keys), ttl);
      out.push(rec, cache.rrsig(keys.signer, [rec]));
      if (++work % SLICE === 0) { yield out; out = []; }
    }
  }
  out.push(soa);
  yield out;
}
