/** The tables of the certificates the edge serves (migration 0013, src/certs/). */

/** Universal SSL per zone (migration 0013; certs/cert-store.ts); no row: enabled. */
export interface SslSettingsTable {
  zone_id: string;
  universal_enabled: number;
  modified_on: string;
}

/** Certificate packs: one universal per zone (`slot` = zone id), advanced ones (`slot` = pack id). */
export interface CertificatePacksTable {
  id: string;
  zone_id: string;
  slot: string;
  /** `universal` or `advanced`. */
  type: string;
  /** JSON array of names. */
  hosts: string;
  status: string;
  validation_method: string;
  validity_days: number;
  certificate_authority: string;
  /** Why the last order failed (shown in the pack's status). */
  error: string | null;
  failures: number;
  /** Not ordered again before this (ms since the epoch): the backoff after a failure. */
  next_attempt_ms: number;
  /** The node ordering the pack now, and until when its lease holds (ms since the epoch). */
  lease_holder: string | null;
  lease_expires_ms: number;
  created_on: string;
  modified_on: string;
}

/** Certificates: a pack's (kind `universal`/`advanced`) or uploaded (`custom`, no pack). */
export interface CertificatesTable {
  id: string;
  zone_id: string;
  pack_id: string | null;
  kind: string;
  /** JSON array of the names the certificate covers. */
  hosts: string;
  /** Leaf first, then intermediates. */
  certificate_pem: string;
  /** PKCS#8 PEM sealed with the secrets key (shared/secret-box.ts). */
  sealed_key: string;
  issuer: string;
  signature: string;
  priority: number;
  bundle_method: string;
  expires_on: string;
  uploaded_on: string;
  modified_on: string;
}

/** The local CA's root (`local-ca`) and ACME account keys (`acme:<directory>`), keys sealed. */
export interface CertificateAuthoritiesTable {
  id: string;
  certificate_pem: string | null;
  sealed_key: string;
  account_url: string | null;
  created_on: string;
}

/** DNS-01 challenge values Stratus's DNS answers as TXT (never records of the zone's API). */
export interface AcmeChallengesTable {
  id: string;
  zone_id: string;
  /** Full owner name, lower case (`_acme-challenge.example.com`). */
  name: string;
  content: string;
  created_ms: number;
}

/** One row (id 1) whose serial grows with every change of the served certificates. */
export interface CertificateSerialTable {
  id: number;
  serial: number;
}

/** A node's heartbeat (migration 0016; certs/serving-nodes.ts): live while `heartbeat_ms` is recent. */
export interface DnsNodesTable {
  node_id: string;
  heartbeat_ms: number;
}

/** The serial a node's DNS serves for a zone with a challenge being validated (migration 0016). */
export interface DnsNodeZoneSerialsTable {
  node_id: string;
  zone_id: string;
  serial: number;
  updated_ms: number;
}
