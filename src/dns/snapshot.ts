/**
 * The served image of one zone (`ZoneSnapshot`, what `lookup` and AXFR read) and `buildSnapshot`, which builds
 * it from the stored records and the zone's settings in one go. The DNS server serves `ZoneTree`s
 * (zone-tree.ts), the same image patched by changesets; `buildSnapshot` is the from-scratch definition they are
 * tested against (zone-tree.test.ts) and what the lookup tests use.
 *
 * Invariants of a built snapshot:
 * - every node's rrsets are what is *served*: proxied A/AAAA/CNAME are replaced by the edge addresses
 *   (honouring `ipv4_only`/`ipv6_only`), flattened CNAMEs by the A/AAAA of their final in-zone target, HTTPS
 *   rrsets are synthesized for proxied names when http2/http3 is on (none of this while the zone is paused:
 *   its proxied records are served as stored), the apex holds the synthesized SOA and the
 *   zone's name servers;
 * - every ancestor of a node up to the apex exists (empty non-terminals have no rrsets, RFC 4592 §2.2.2);
 * - `cuts` holds the names below the apex that own NS rrsets (delegations).
 * Records whose content cannot be encoded are left out and reported in `skipped`.
 */
import { effectiveTtl, type RecordType } from './record.js';
import { recordRdata } from './rdata/index.js';
import { encodeName } from './wire/writer.js';
import { encodeSvcParams } from './wire/svcb.js';
import { ipv4Bytes, ipv6Bytes } from './wire/text.js';
import { TYPE } from './wire/constants.js';
import type { RdataPart } from './wire/message.js';
import { addApexRecords, servesStoredApexNs } from './node-rrsets.js';
import type { EdgeAddresses, RRset, SnapshotRecord, SnapshotZone, ZoneNode, ZoneSnapshot } from './snapshot-types.js';

export type { EdgeAddresses, RRset, SnapshotRecord, SnapshotZone, ZoneNode, ZoneSnapshot } from './snapshot-types.js';

/** True when `name` is `origin` or below it. */
export function inZone(name: string, origin: string): boolean {
  return origin === '' || name === origin || name.endsWith(`.${origin}`);
}

const TYPE_CODE = TYPE as unknown as Record<RecordType, number>;

class NodeBuilder {
  readonly nodes = new Map<string, ZoneNode>();

  node(name: string): ZoneNode {
    let n = this.nodes.get(name);
    if (!n) {
      n = { name, rrsets: new Map() };
      this.nodes.set(name, n);
    }
    return n;
  }

  add(name: string, type: number, ttl: number, rdata: RdataPart[]): void {
    const node = this.node(name);
    let set = node.rrsets.get(type);
    if (!set) {
      set = { type, ttl, records: [] };
      node.rrsets.set(type, set);
    }
    set.ttl = Math.min(set.ttl, ttl);
    set.records.push({ name, type, ttl, rdata });
  }

  finish(): void {
    for (const node of this.nodes.values()) {
      for (const set of node.rrsets.values()) for (const r of set.records) r.ttl = set.ttl;
    }
  }
}

interface Proxied { v4: boolean; v6: boolean; ttl: number }

/** Builds the snapshot of a zone (see the module comment for what it holds). */
export function buildSnapshot(zone: SnapshotZone, records: readonly SnapshotRecord[], edge: EdgeAddresses): ZoneSnapshot {
  const origin = zone.name;
  const b = new NodeBuilder();
  const skipped: Array<{ id: string; reason: string }> = [];
  const proxied = new Map<string, Proxied>();
  const flatten = new Map<string, { target: string; ttl: number }>();
  const settings = zone.settings;

  for (const rec of records) {
    if (!inZone(rec.name, origin)) { skipped.push({ id: rec.id, reason: 'outside the zone' }); continue; }
    if (rec.name === origin && rec.type === 'NS' && !servesStoredApexNs(zone)) continue;
    const ttl = effectiveTtl(rec);
    if (rec.proxied && settings.paused !== true && (rec.type === 'A' || rec.type === 'AAAA' || rec.type === 'CNAME')) {
      const p = proxied.get(rec.name) ?? { v4: false, v6: false, ttl };
      p.v4 ||= rec.settings?.ipv6_only !== true;
      p.v6 ||= rec.settings?.ipv4_only !== true;
      proxied.set(rec.name, p);
      continue;
    }
    let rdata: RdataPart[];
    try {
      rdata = recordRdata(rec);
    } catch (err) {
      skipped.push({ id: rec.id, reason: err instanceof Error ? err.message : String(err) });
      continue;
    }
    if (rec.type === 'CNAME' && (rec.name === origin || settings.flattenAllCnames || rec.settings?.flatten_cname === true)) {
      flatten.set(rec.name, { target: rec.content.toLowerCase().replace(/\.$/, ''), ttl });
    }
    b.add(rec.name, TYPE_CODE[rec.type], ttl, rdata);
  }

  for (const [name, p] of proxied) {
    const node = b.node(name);
    node.rrsets.delete(TYPE.A);
    node.rrsets.delete(TYPE.AAAA);
    node.rrsets.delete(TYPE.CNAME);
    if (p.v4) for (const ip of edge.ipv4) b.add(name, TYPE.A, p.ttl, [ipv4Bytes(ip)]);
    if (p.v6) for (const ip of edge.ipv6) b.add(name, TYPE.AAAA, p.ttl, [ipv6Bytes(ip)]);
    if ((settings.http2 || settings.http3) && !node.rrsets.has(TYPE.HTTPS)) {
      const alpn = [settings.http3 ? 'h3' : '', settings.http2 ? 'h2' : ''].filter(Boolean).join(',');
      const hints = [
        p.v4 && edge.ipv4.length ? `ipv4hint=${edge.ipv4.join(',')}` : '',
        p.v6 && edge.ipv6.length ? `ipv6hint=${edge.ipv6.join(',')}` : '',
      ].filter(Boolean).join(' ');
      b.add(name, TYPE.HTTPS, p.ttl, [Uint8Array.from([0, 1]), encodeName(''), encodeSvcParams(`alpn="${alpn}" ${hints}`)]);
    }
  }

  addApexRecords(zone, b.node(origin).rrsets, (type, ttl, rdata) => b.add(origin, type, ttl, [...rdata]));
  b.finish();
  const soa = b.node(origin).rrsets.get(TYPE.SOA)!.records[0]!;

  const negativeSoa = { ...soa, ttl: Math.min(soa.ttl, settings.soa.ttl, settings.soa.minTtl) };
  const make = (): ZoneSnapshot => {
    const names = [...b.nodes.keys()];
    for (const name of names) {
      let n = name;
      while (n !== origin) {
        const dot = n.indexOf('.');
        n = dot < 0 ? '' : n.slice(dot + 1);
        if (!inZone(n, origin)) break;
        b.node(n);
      }
    }
    const cuts = new Set<string>();
    for (const node of b.nodes.values()) if (node.name !== origin && node.rrsets.has(TYPE.NS)) cuts.add(node.name);
    return { zoneId: zone.id, origin, serial: zone.serial, nodes: b.nodes, cuts, soa: b.node(origin).rrsets.get(TYPE.SOA)!, negativeSoa, skipped, dnssec: zone.dnssec };
  };
  const draft = make();
  if (flatten.size > 0) flattenCnames(draft, b, flatten);
  return make();
}

/** Replaces flattened CNAMEs by the A/AAAA of their final target, resolved in the unflattened draft. */
function flattenCnames(draft: ZoneSnapshot, b: NodeBuilder, flatten: Map<string, { target: string; ttl: number }>): void {
  const resolved = new Map<string, Map<number, RdataPart[][]>>();
  for (const [name] of flatten) {
    const byType = new Map<number, RdataPart[][]>();
    for (const type of [TYPE.A, TYPE.AAAA]) {
      const res = resolveInZone(draft, name, type);
      if (res.length) byType.set(type, res);
    }
    resolved.set(name, byType);
  }
  for (const [name, { ttl }] of flatten) {
    const node = b.node(name);
    const byType = resolved.get(name)!;
    // A target outside the zone cannot be resolved here: below the apex the CNAME is then served as is.
    if (byType.size === 0 && name !== draft.origin) continue;
    node.rrsets.delete(TYPE.CNAME);
    for (const [type, rdatas] of byType) {
      node.rrsets.set(type, { type, ttl, records: rdatas.map((rdata) => ({ name, type, ttl, rdata })) });
    }
  }
}

/** Follows CNAMEs from `name` inside the draft and returns the RDATA of the final `type` rrset, if any. */
function resolveInZone(draft: ZoneSnapshot, name: string, type: number): RdataPart[][] {
  let current = name;
  for (let hop = 0; hop < 16; hop++) {
    const node = draft.nodes.get(current) ?? wildcardFor(draft, current);
    if (!node) return [];
    const set = node.rrsets.get(type);
    if (set) return set.records.map((r) => r.rdata as RdataPart[]);
    const cname = node.rrsets.get(TYPE.CNAME);
    if (!cname) return [];
    const target = (cname.records[0]!.rdata[0] as { name: string }).name;
    if (!inZone(target, draft.origin)) return [];
    current = target;
  }
  return [];
}

function wildcardFor(s: ZoneSnapshot, name: string): ZoneNode | undefined {
  let n = name;
  while (n !== s.origin && n !== '') {
    const dot = n.indexOf('.');
    n = dot < 0 ? '' : n.slice(dot + 1);
    if (s.nodes.has(n)) return s.nodes.get(`*.${n}`);
  }
  return undefined;
}
