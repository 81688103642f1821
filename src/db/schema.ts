/**
 * Table types of the relational store, shared by the SQLite and PostgreSQL dialects. JSON values are stored
 * as text and booleans as 0/1 integers so that one query layer serves both.
 */
import type { Generated } from 'kysely';
import type { SecondaryDnsAclsTable, SecondaryDnsIncomingTable, ZoneJournalTable, SecondaryDnsOutgoingTable, SecondaryDnsPeersTable, SecondaryDnsSerialTable, SecondaryDnsTsigsTable } from './schema-secondary-dns.js';
import type { AcmeChallengesTable, CertificateAuthoritiesTable, CertificatePacksTable, CertificatesTable, CertificateSerialTable, DnsNodesTable, DnsNodeZoneSerialsTable, SslSettingsTable } from './schema-certificates.js';

/** An API user (the holder of an e-mail address and a global API key). */
export interface UsersTable {
  id: string;
  email: string;
  /** SHA-256 hex of the API key; the key itself is never stored. */
  key_hash: string;
  created_on: string;
}

/** An account: the owner of zones. */
export interface AccountsTable {
  id: string;
  name: string;
  /** JSON: account settings, including the DNS settings' `zone_defaults`. */
  settings: string;
  created_on: string;
}

/** The name servers an account's zones are given (zones/name-server-assignments.ts). */
export interface AccountNameServersTable {
  account_id: string;
  /** Position in the order pairs are given from the pool; null for the instance's own names (the admin's). */
  ordinal: number | null;
  /** JSON string array of the pair. */
  name_servers: string;
  assigned_on: string;
}

/** Which users may act on which accounts. */
export interface MembershipsTable {
  user_id: string;
  account_id: string;
}

/** A zone (a domain on the service). */
export interface ZonesTable {
  id: string;
  account_id: string;
  name: string;
  status: string;
  type: string;
  /** JSON string array of assigned name servers. */
  name_servers: string;
  /** SOA serial; grows on every change of the zone's records or settings. */
  serial: number;
  /** Number of records of the zone (kept in step by every record write; quota checks read it). */
  record_count: Generated<number>;
  /** JSON: the zone's DNS settings (`/dns_settings`). */
  dns_settings: string;
  /** JSON: other zone settings by id (`/settings/:name`). */
  zone_settings: string;
  created_on: string;
  modified_on: string;
  /** When the zone last became active (null: never active). */
  activated_on: string | null;
  /** Zone hold: enforced once this time has passed; null when the zone has no hold in force or scheduled. */
  hold_after: string | null;
  /** 1 when the hold also covers names below the zone. */
  hold_include_subdomains: Generated<number>;
  /** JSON: the zone's DNSSEC state and key, private key sealed (dns/dnssec/config.ts); null: never enabled. */
  dnssec: string | null;
}

/** A DNS record of a zone, stored in its normalized form. */
export interface DnsRecordsTable {
  id: string;
  zone_id: string;
  /** Full name, lowercase, no trailing dot. */
  name: string;
  type: string;
  /** Canonical content as the API returns it. */
  content: string;
  /** JSON of the `data` object for data types, else null. */
  data: string | null;
  priority: number | null;
  ttl: number;
  proxied: number;
  comment: string | null;
  /** JSON string array of `name:value` tags. */
  tags: string;
  /** JSON object of per-record settings. */
  settings: string;
  /** JSON object of `meta`. */
  meta: string;
  created_on: string;
  modified_on: string;
  comment_modified_on: string | null;
  tags_modified_on: string | null;
}

/** An API token (`Authorization: Bearer`), owned by a user, or by an account when `account_id` is set. */
export interface ApiTokensTable {
  id: string;
  /** The user who created it (its identity when it authenticates). */
  user_id: string;
  /** Set for account-owned tokens (`/accounts/:account_id/tokens`): they act on that account only. */
  account_id: string | null;
  name: string;
  /** SHA-256 hex of the token's value; the value itself is never stored. */
  value_hash: string;
  /** `active` or `disabled` (expiry is computed from `expires_on`). */
  status: string;
  /** JSON array of policies. */
  policies: string;
  /** JSON of the condition, or null. */
  condition: string | null;
  not_before: string | null;
  expires_on: string | null;
  issued_on: string;
  modified_on: string;
  last_used_on: string | null;
}

/** A script of the edge (a Worker), owned by an account; its code lives in its versions. */
export interface WorkersScriptsTable {
  /** The script's immutable tag (32 hex). */
  id: string;
  account_id: string;
  name: string;
  /** 1 when `<name>.<account subdomain>.<workers domain>` serves it. */
  subdomain_enabled: number;
  previews_enabled: number;
  /** JSON: logpush, tags, tail_consumers, observability (script-settings). */
  settings: string;
  /** Versions made so far (the next version's number is this plus one). */
  version_count: number;
  /** `wrangler`, `api`, `dash`, … (from the upload's user agent). */
  last_deployed_from: string;
  created_on: string;
  modified_on: string;
}

/** An immutable version of a script. */
export interface WorkersVersionsTable {
  /** UUID with hyphens, as production's version ids. */
  id: string;
  script_id: string;
  number: number;
  main_module: string;
  compatibility_date: string;
  /** JSON string array. */
  compatibility_flags: string;
  /** JSON array of stored bindings; secret values are encrypted (shared/secret-box.ts). */
  bindings: string;
  /** JSON: `workers/message`, `workers/tag`, `workers/triggered_by`. */
  annotations: string;
  /** JSON: the version's own limits (`cpu_ms`, `subrequests`; `{}` when none), scripts/limits.ts. */
  limits: string;
  etag: string;
  source: string;
  author_id: string;
  author_email: string;
  created_on: string;
}

/** A module of a version, byte for byte as uploaded. */
export interface WorkersModulesTable {
  version_id: string;
  /** Upload order (0 is the main module's position only if it came first). */
  position: number;
  name: string;
  type: string;
  content: Uint8Array;
}

/** A deployment: which versions of a script serve, by percentage. The newest is the active one. */
export interface WorkersDeploymentsTable {
  id: string;
  script_id: string;
  /** Order of deployments of one script. */
  seq: number;
  /** JSON array of `{version_id, percentage}`. */
  versions: string;
  annotations: string;
  source: string;
  author_email: string;
  created_on: string;
}

/** A route of a zone: a pattern and the script (of the zone's account) it runs, or none. */
export interface WorkersRoutesTable {
  id: string;
  zone_id: string;
  pattern: string;
  script: string | null;
  created_on: string;
}

/** An account's workers subdomain (`<script>.<subdomain>.<workers domain>`). */
export interface WorkersSubdomainsTable {
  account_id: string;
  subdomain: string;
  created_on: string;
}

/** A public hostname of a bucket: its development hostname (`managed`) or one in a zone of its account (`custom`). */
export interface R2DomainsTable {
  /** Lowercase, without a trailing dot. */
  hostname: string;
  account_id: string;
  bucket: string;
  /** The bucket's creation instant (ISO): a bucket deleted and made again does not inherit the hostname's state. */
  bucket_created: string;
  kind: 'managed' | 'custom';
  /** The zone of a custom domain (null for the managed one). */
  zone_id: string | null;
  /** 1 when public reads are served. */
  enabled: number;
  /** Custom domains: the minimum TLS version asked for (kept and reported; the edge speaks plain HTTP). */
  min_tls: string | null;
  created_on: string;
}

/** One row (id 1) whose serial every edge change bumps; other nodes poll it. */
export interface EdgeSerialTable {
  id: number;
  serial: number;
}

/** One part of one committed zone change (zones/change-log.ts). */
export interface ZoneChangesTable {
  zone_id: string;
  /** The zone's serial after the change. */
  serial: number;
  /** Big changes are split in parts (0..parts-1). */
  part: number;
  parts: number;
  /** When it was written (ms since the epoch), for pruning. */
  created_ms: number;
  /** JSON: `{"records": [[id, before, after], ...]}`, `{"zone": {...columns}}` or `{"reload": true}`. */
  body: string;
}

/** The whole relational schema. */
/** Request counts per key and window, shared between nodes (migration 0008; limits/shared-counters.ts). */
export interface RateCountersTable {
  key: string;
  /** Start of the window, epoch seconds. */
  window_start: number;
  count: number;
  /** Epoch seconds after which the row is no longer read. */
  expires_at: number;
}

export interface Database {
  ssl_settings: SslSettingsTable;
  certificate_packs: CertificatePacksTable;
  certificates: CertificatesTable;
  certificate_authorities: CertificateAuthoritiesTable;
  acme_challenges: AcmeChallengesTable;
  certificate_serial: CertificateSerialTable;
  dns_nodes: DnsNodesTable;
  dns_node_zone_serials: DnsNodeZoneSerialsTable;
  secondary_dns_tsigs: SecondaryDnsTsigsTable;
  secondary_dns_peers: SecondaryDnsPeersTable;
  secondary_dns_acls: SecondaryDnsAclsTable;
  secondary_dns_outgoing: SecondaryDnsOutgoingTable;
  secondary_dns_incoming: SecondaryDnsIncomingTable;
  zone_journal: ZoneJournalTable;
  secondary_dns_serial: SecondaryDnsSerialTable;
  workers_scripts: WorkersScriptsTable;
  workers_versions: WorkersVersionsTable;
  workers_modules: WorkersModulesTable;
  workers_deployments: WorkersDeploymentsTable;
  workers_routes: WorkersRoutesTable;
  workers_subdomains: WorkersSubdomainsTable;
  edge_serial: EdgeSerialTable;
  r2_domains: R2DomainsTable;
  rate_counters: RateCountersTable;
  users: UsersTable;
  api_tokens: ApiTokensTable;
  accounts: AccountsTable;
  account_name_servers: AccountNameServersTable;
  memberships: MembershipsTable;
  zones: ZonesTable;
  dns_records: DnsRecordsTable;
  zone_changes: ZoneChangesTable;
}
