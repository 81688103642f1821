/**
 * Secondary zones (`type: "secondary"`): their records are a copy of a primary's, pulled by zone transfer
 * (secondary-dns/), so the API refuses to write them, and to change what a copy makes meaningless (DNSSEC
 * signing: a signed primary's records are served as they come, through the pre-signed path).
 */
import { AppError } from '../shared/errors.js';

/** The error code of a write the copy of a primary does not take. */
export const SECONDARY_READ_ONLY = 1292;

/** The error of a record write (create, update, delete, import, batch) to a secondary zone. */
export function secondaryReadOnly(): AppError {
  return new AppError(SECONDARY_READ_ONLY, 'This zone is a secondary zone: its records are transferred from its primaries and cannot be changed through the API', 400);
}

/** The error of a DNSSEC change of a secondary zone. */
export function secondaryDnssecRefused(): AppError {
  return new AppError(SECONDARY_READ_ONLY, 'This zone is a secondary zone: its DNSSEC is its primary\'s (signed records are served as transferred); Stratus does not sign it', 400);
}

/** DNS settings a secondary zone serves from its primary's copy instead (its SOA and apex NS). */
export const SECONDARY_FIXED_DNS_SETTINGS: readonly string[] = ['soa', 'ns_ttl', 'nameservers', 'multi_provider'];

/** The error of a DNS settings change that a secondary zone's copy makes meaningless. */
export function secondarySettingsRefused(fields: readonly string[]): AppError {
  return new AppError(SECONDARY_READ_ONLY, `This zone is a secondary zone: its SOA and name servers are its primary's; ${fields.join(', ')} cannot be changed`, 400);
}

/**
 * The stored DNSSEC state a secondary zone starts with: the pre-signed path (stored SOA, NS and signatures served),
 * NSEC3 allowed (a primary signed with NSEC3 brings its NSEC3 and NSEC3PARAM records).
 */
export const SECONDARY_DNSSEC = JSON.stringify({ status: 'disabled', useNsec3: true, multiSigner: false, presigned: true, modifiedOn: null, key: null });
