/**
 * A canonical, comparable form of a served zone image: every node with its rrsets (TTL and RDATA, records
 * sorted, since an rrset is a set), the delegation cuts, the SOA and the negative SOA. Two images with the same
 * canonical form answer every query alike (up to the order of records inside an rrset). Used to check that
 * an incrementally patched zone equals a full rebuild, in tests and by `ZoneCache.verify`.
 */
import type { RdataPart, WireRecord } from './wire/message.js';
import type { ZoneSnapshot } from './snapshot.js';

function part(p: RdataPart): string {
  return p instanceof Uint8Array ? Buffer.from(p).toString('hex') : `<${p.name}>`;
}

function record(r: WireRecord): string {
  return `${r.name} ${r.ttl} ${r.type} ${r.rdata.map(part).join(' ')}`;
}

/** The canonical form of a zone image (see the module comment). */
export function canonicalSnapshot(s: ZoneSnapshot): { serial: number; nodes: string[]; cuts: string[]; soa: string; negativeSoa: string } {
  const nodes: string[] = [];
  for (const node of s.nodes.values()) {
    const sets = [...node.rrsets.values()].sort((a, b) => a.type - b.type)
      .map((set) => `${set.type}/${set.ttl}[${set.records.map(record).sort().join(' | ')}]`);
    nodes.push(`${node.name}: ${sets.join(' ')}`);
  }
  return {
    serial: s.serial,
    nodes: nodes.sort(),
    cuts: [...s.cuts].sort(),
    soa: s.soa.records.map(record).join(),
    negativeSoa: record(s.negativeSoa),
  };
}
