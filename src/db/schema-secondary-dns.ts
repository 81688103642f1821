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
