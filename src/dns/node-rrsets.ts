/**
 * One owner name's served rrsets, derived from the stored records at that name alone (the per-name half of
 * `buildSnapshot`; CNAME flattening, which looks at other names, is zone-flatten.ts). Pure: the same records,
 * zone settings and edge addresses always give the same rrsets.
 */
import { effectiveTtl, type RecordType } from './record.js';
import { recordRdata } from './rdata/index.js';
import { encodeName } from './wire/writer.js';
import { encodeSvcParams } from './wire/svcb.js';
import { ipv4Bytes, ipv6Bytes } from './wire/text.js';
import { TYPE } from './wire/constants.js';
import type { RdataPart, WireRecord } from './wire/message.js';
import type { EdgeAddresses, RRset, SnapshotRecord, SnapshotZone } from './snapshot-types.js';

const TYPE_CODE = TYPE as unknown as Record<RecordType, number>;

/** A CNAME at this name that is served flattened (its final in-zone target's A/AAAA, with this TTL). */
export interface FlattenSpec {
  target: string;
  ttl: number;
}

/** What the records of one name give. */
export interface DerivedNode {
  /** The rrsets served at the name before flattening (apex: with SOA and NS). */
  rrsets: Map<number, RRset>;
  /** True when some record makes the name exist (a name whose records all fail to encode does not). */
  exists: boolean;
  /** True when the name has proxied A/AAAA/CNAME records (their rrsets depend on the http2/http3 settings). */
  proxied: boolean;
  /** True when the name has a plain (unproxied) CNAME (flattening settings change it). */
  cname: boolean;
  flatten?: FlattenSpec;
  /** Records left out, with the reason. */
  skipped: Array<{ id: string; reason: string }>;
}

function add(sets: Map<number, RRset>, name: string, type: number, ttl: number, rdata: readonly RdataPart[]): void {
  let set = sets.get(type);
  if (!set) {
    set = { type, ttl, records: [] };
    sets.set(type, set);
  }
  set.ttl = Math.min(set.ttl, ttl);
  set.records.push({ name, type, ttl, rdata });
}

/** True when the apex NS records stored in the zone are served: multi-provider zones, and pre-signed ones (their signer's). */
export function servesStoredApexNs(zone: SnapshotZone): boolean {
  return zone.settings.multiProvider === true || zone.dnssec?.presigned === true;
}

/**
 * Adds the apex SOA and NS to a node's rrsets: Stratus's own, except what a pre-signed zone stores (its
 * signer's SOA and NS, which its signatures cover: docs/dns-server.md "Pre-signed zones").
 */
export function addApexRecords(zone: SnapshotZone, sets: Map<number, RRset>, add: (type: number, ttl: number, rdata: readonly RdataPart[]) => void): void {
  const presigned = zone.dnssec?.presigned === true;
  const settings = zone.settings;
  if (!presigned || !sets.has(TYPE.SOA)) sets.set(TYPE.SOA, { type: TYPE.SOA, ttl: settings.soa.ttl, records: [soaRecord(zone, settings.soa.ttl)] });
  if (!presigned || !sets.has(TYPE.NS)) for (const ns of zone.nameServers) add(TYPE.NS, settings.nsTtl, [{ name: ns }]);
}

/** The apex SOA record of a zone. */
export function soaRecord(zone: SnapshotZone, ttl: number): WireRecord {
  const s = zone.settings.soa;
  const nums = Buffer.alloc(20);
  [zone.serial, s.refresh, s.retry, s.expire, s.minTtl].forEach((v, i) => nums.writeUInt32BE(v >>> 0, i * 4));
  return { name: zone.name, type: TYPE.SOA, ttl, rdata: [{ name: s.mname }, { name: s.rname }, nums] };
}

/** Derives the served rrsets of `name` from its records (see the module comment). */
export function deriveNode(zone: SnapshotZone, name: string, records: readonly SnapshotRecord[], edge: EdgeAddresses): DerivedNode {
  const origin = zone.name;
  const settings = zone.settings;
  const sets = new Map<number, RRset>();
  const out: DerivedNode = { rrsets: sets, exists: name === origin, proxied: false, cname: false, skipped: [] };
  let proxied: { v4: boolean; v6: boolean; ttl: number } | undefined;
  for (const rec of records) {
    if (name === origin && rec.type === 'NS' && !servesStoredApexNs(zone)) continue;
    const ttl = effectiveTtl(rec);
    // A paused zone serves proxied records as they are (the name still counts as proxied: it depends on settings).
    if (rec.proxied && settings.paused === true) out.proxied = true;
    if (rec.proxied && settings.paused !== true && (rec.type === 'A' || rec.type === 'AAAA' || rec.type === 'CNAME')) {
      proxied ??= { v4: false, v6: false, ttl };
      proxied.v4 ||= rec.settings?.ipv6_only !== true;
      proxied.v6 ||= rec.settings?.ipv4_only !== true;
      out.exists = true;
      continue;
    }
    let rdata: RdataPart[];
    try {
      rdata = recordRdata(rec);
    } catch (err) {
      out.skipped.push({ id: rec.id, reason: err instanceof Error ? err.message : String(err) });
      continue;
    }
    if (rec.type === 'CNAME') {
      out.cname = true;
      if (name === origin || settings.flattenAllCnames || rec.settings?.flatten_cname === true) {
        out.flatten = { target: rec.content.toLowerCase().replace(/\.$/, ''), ttl };
      }
    }
    out.exists = true;
    add(sets, name, TYPE_CODE[rec.type], ttl, rdata);
  }
  if (proxied) {
    out.proxied = true;
    sets.delete(TYPE.A);
    sets.delete(TYPE.AAAA);
    sets.delete(TYPE.CNAME);
    if (proxied.v4) for (const ip of edge.ipv4) add(sets, name, TYPE.A, proxied.ttl, [ipv4Bytes(ip)]);
    if (proxied.v6) for (const ip of edge.ipv6) add(sets, name, TYPE.AAAA, proxied.ttl, [ipv6Bytes(ip)]);
    if ((settings.http2 || settings.http3) && !sets.has(TYPE.HTTPS)) {
      const alpn = [settings.http3 ? 'h3' : '', settings.http2 ? 'h2' : ''].filter(Boolean).join(',');
      const hints = [
        proxied.v4 && edge.ipv4.length ? `ipv4hint=${edge.ipv4.join(',')}` : '',
        proxied.v6 && edge.ipv6.length ? `ipv6hint=${edge.ipv6.join(',')}` : '',
      ].filter(Boolean).join(' ');
      add(sets, name, TYPE.HTTPS, proxied.ttl, [Uint8Array.from([0, 1]), encodeName(''), encodeSvcParams(`alpn="${alpn}" ${hints}`)]);
    }
  }
  if (name === origin) addApexRecords(zone, sets, (type, ttl, rdata) => add(sets, name, type, ttl, rdata));
  for (const set of sets.values()) for (const r of set.records) r.ttl = set.ttl;
  return out;
}
