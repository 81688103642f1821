/** The tables of zone transfers managed per zone (migration 0014, src/secondary-dns/). */

/** A TSIG key of an account (secondary-dns/); the secret sealed with the secrets key. */
export interface SecondaryDnsTsigsTable {
  id: string;
  account_id: string;
  /** Key name as given (production keeps the trailing dot). */
  name: string;
  /** Algorithm as given (`hmac-sha256.`). */
  algo: string;
  secret_sealed: string;
  created_on: string;
}
/** A peer of an account: a secondary (or primary) server by address, with its TSIG key. */
export interface SecondaryDnsPeersTable {
  id: string;
  account_id: string;
  name: string;
  ip: string | null;
  port: number | null;
  ixfr_enable: number;
  tsig_id: string | null;
  created_on: string;
}
/** An address range of an account allowed to transfer its zones that have outgoing settings. */
export interface SecondaryDnsAclsTable {
  id: string;
  account_id: string;
  name: string;
  ip_range: string;
  created_on: string;
}
/** A zone's outgoing transfer settings (peers: JSON array of peer ids). */
export interface SecondaryDnsOutgoingTable {
  zone_id: string;
  account_id: string;
  id: string;
  name: string;
  peers: string;
  enabled: number;
  created_time: string;
  checked_time: string;
  last_transferred_time: string | null;
}
/** One row (id 1): bumped by every secondary DNS write. */
export interface SecondaryDnsSerialTable {
  id: number;
  serial: number | string | bigint;
}
/** A secondary zone's incoming settings and pull state (migration 0015; peers: JSON array of peer ids). */
export interface SecondaryDnsIncomingTable {
  zone_id: string;
  account_id: string;
  name: string;
  peers: string;
  auto_refresh_seconds: number;
  created_time: string;
  modified_time: string;
  checked_time: string | null;
  soa_serial: number | string | bigint | null;
  /** The last pull that transferred records (migration 0017; null before the first). */
  last_transferred_time: string | null;
  /** The last pull's error (null after a good one). */
  error: string | null;
  /** 1: the next pull is a full AXFR (force_axfr). */
  force_axfr: number;
  next_refresh_ms: number | string | bigint;
  lease_holder: string | null;
  lease_expires_ms: number | string | bigint;
}
/** One served version step of a zone, for IXFR after a restart (dns/zone-journal.ts; body: JSON). */
export interface ZoneJournalTable {
  zone_id: string;
  to_serial: number | string | bigint;
  from_serial: number | string | bigint;
  created_ms: number | string | bigint;
  body: string;
}
