/**
 * The stored form of a DNS record, shared by the zones service (which validates and stores it) and the DNS
 * server (which answers with it). Everything here is already normalized by validation:
 *
 * - `name`: the full owner name, lowercase, Punycode, no trailing dot (`www.example.com`, apex `example.com`,
 *   wildcard `*.example.com`).
 * - `content` (always set; for data types it is derived from `data`):
 *   - A: dotted quad. AAAA: RFC 5952 canonical text.
 *   - CNAME, NS, PTR, MX: a host name, lowercase, no trailing dot (MX preference is in `priority`; a null MX
 *     per RFC 7505 is `.`).
 *   - TXT: one or more RFC 1035 character-strings, each in double quotes, separated by one space; inside a
 *     string `\"` and `\\` are escapes and `\DDD` a decimal byte (`"v=spf1 -all" "second"`).
 *   - OPENPGPKEY: base64 of the key.
 *   - data types: the presentation form of the RDATA built from `data` (SRV: `weight port target`, with the
 *     priority in `priority` and `data.priority`; URI: `weight "target"`, priority in `priority`). Host names
 *     inside have no trailing dot (the root is `.`), hex is uppercase, base64 has no white space; SVCB/HTTPS
 *     `priority target params` with the params canonical (keys ascending, values quoted, `data.value` the
 *     same text; `parseSvcParams` gives their wire values); LOC
 *     `37 46 46.000 N 122 23 35.000 W 0.00m 100.00m 0.00m 0.00m`.
 * - `data`: the `data` object for CAA CERT DNSKEY DS HTTPS LOC NAPTR SMIMEA SRV SSHFP SVCB TLSA URI (and the
 *   pre-signed types RRSIG NSEC NSEC3 NSEC3PARAM SOA, record-types/presigned.ts), with the
 *   field names of the v4 API (see record-types/); null for the other types.
 * - `priority`: MX and URI preference, SRV priority; null otherwise.
 * - `ttl`: 1 means Auto (served as 300 s); proxied records always have 1.
 */

/**
 * Every record type the API accepts. SOA is synthesized per zone and stored only for a pre-signed zone (from its
 * zone file), with RRSIG, NSEC, NSEC3 and NSEC3PARAM ({@link PRESIGNED_TYPES}).
 */
export const RECORD_TYPES = [
  'A', 'AAAA', 'CAA', 'CERT', 'CNAME', 'DNSKEY', 'DS', 'HTTPS', 'LOC', 'MX', 'NAPTR', 'NS', 'OPENPGPKEY',
  'PTR', 'SMIMEA', 'SRV', 'SSHFP', 'SVCB', 'TLSA', 'TXT', 'URI', 'RRSIG', 'NSEC', 'NSEC3', 'NSEC3PARAM', 'SOA',
] as const;

/** Types a zone holds only while `dnssec_presigned` is on: the signatures, the denial chain and the signed SOA. */
export const PRESIGNED_TYPES: ReadonlySet<string> = new Set(['RRSIG', 'NSEC', 'NSEC3', 'NSEC3PARAM', 'SOA']);

/** A record type the API accepts. */
export type RecordType = (typeof RECORD_TYPES)[number];

/** True when the string names a record type the API accepts (case-sensitive, as the API is). */
export function isRecordType(value: unknown): value is RecordType {
  return typeof value === 'string' && (RECORD_TYPES as readonly string[]).includes(value);
}

/** Record types whose `content` is given directly; the others use `data`. */
export const CONTENT_TYPES: ReadonlySet<RecordType> = new Set(['A', 'AAAA', 'CNAME', 'MX', 'NS', 'OPENPGPKEY', 'PTR', 'TXT']);

/** Record types that may be proxied. */
export const PROXIABLE_TYPES: ReadonlySet<RecordType> = new Set(['A', 'AAAA', 'CNAME']);

/** Per-record settings (`settings` in the API). */
export interface RecordSettings {
  ipv4_only?: boolean;
  ipv6_only?: boolean;
  flatten_cname?: boolean;
}

/** The seconds that TTL "Auto" (1) stands for. */
export const AUTO_TTL_SECONDS = 300;

/** A stored DNS record (see the module comment for the normalized forms). */
export interface DnsRecord {
  id: string;
  zoneId: string;
  name: string;
  type: RecordType;
  content: string;
  data: Record<string, unknown> | null;
  priority: number | null;
  ttl: number;
  proxied: boolean;
  comment: string | null;
  tags: string[];
  settings: RecordSettings;
  meta: Record<string, unknown>;
  createdOn: string;
  modifiedOn: string;
  commentModifiedOn: string | null;
  tagsModifiedOn: string | null;
}

/** The TTL a resolver is told for a record (Auto becomes 300 s). */
export function effectiveTtl(record: Pick<DnsRecord, 'ttl' | 'proxied'>): number {
  return record.proxied || record.ttl === 1 ? AUTO_TTL_SECONDS : record.ttl;
}
