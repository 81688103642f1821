/**
 * The shapes of a served zone image (`ZoneSnapshot` and its parts) and of what builds one; snapshot.ts builds
 * them, node-rrsets.ts derives one name's rrsets. Types only.
 */
import type { DnsRecord } from './record.js';
import type { WireRecord } from './wire/message.js';
import type { ZoneServingSettings } from './snapshot-settings.js';
import type { ZoneDnssec } from './dnssec/config.js';

/** Records of one name and type, as served. */
export interface RRset {
  type: number;
  ttl: number;
  /** Ready-to-write records owned by the node's name. */
  records: WireRecord[];
}

/** One owner name of the zone. */
export interface ZoneNode {
  name: string;
  rrsets: Map<number, RRset>;
}

/** A zone image. */
export interface ZoneSnapshot {
  zoneId: string;
  /** Apex name, lowercase, no trailing dot. */
  origin: string;
  serial: number;
  nodes: ReadonlyMap<string, ZoneNode>;
  cuts: ReadonlySet<string>;
  soa: RRset;
  /** SOA record for negative answers, with TTL min(SOA TTL, minimum) (RFC 2308 §3). */
  negativeSoa: WireRecord;
  /** Records left out, with the reason. */
  skipped: Array<{ id: string; reason: string }>;
  /** The zone's DNSSEC state (absent: unsigned). */
  readonly dnssec?: ZoneDnssec | undefined;
}

/** The zone fields a snapshot needs. */
export interface SnapshotZone {
  id: string;
  name: string;
  serial: number;
  nameServers: string[];
  settings: ZoneServingSettings;
  /** The zone's DNSSEC state (zones.dnssec); absent: unsigned. */
  dnssec?: ZoneDnssec | undefined;
}

/** The stored record fields a snapshot needs. */
export type SnapshotRecord = Pick<DnsRecord, 'id' | 'name' | 'type' | 'content' | 'data' | 'priority' | 'ttl' | 'proxied' | 'settings'>;

/** The service's edge addresses. */
export interface EdgeAddresses {
  ipv4: readonly string[];
  ipv6: readonly string[];
}
