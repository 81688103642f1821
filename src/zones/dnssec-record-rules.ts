/**
 * Which DNSSEC records a zone takes, by its DNSSEC settings: DNSKEY with multi-signer DNSSEC on (production's
 * rule) or while the zone is pre-signed; RRSIG, NSEC, NSEC3, NSEC3PARAM and the signed SOA only while it is
 * pre-signed (`dnssec_presigned`, docs/dns-server.md "Pre-signed zones"), NSEC3 and NSEC3PARAM with
 * `dnssec_use_nsec3` on too (production's rule); the SOA at the apex, one per zone.
 */
import { AppError } from '../shared/errors.js';
import { PRESIGNED_TYPES } from '../dns/record.js';
import type { ZoneDnssec } from '../dns/dnssec/config.js';
import { SOA_MESSAGE } from './record-body.js';

/** Code of a DNSKEY record written while the zone's multi-signer DNSSEC is off (Stratus's own). */
export const DNSKEY_NEEDS_MULTI_SIGNER = 1117;
/** Code of a pre-signed record (RRSIG, NSEC, NSEC3, NSEC3PARAM, SOA) written while the zone is not pre-signed (Stratus's own). */
export const NEEDS_PRESIGNED = 1118;

/** Throws unless the zone's DNSSEC settings allow a record of this type at this name. */
export function checkDnssecRecord(draft: { type: string; name: string }, dnssec: ZoneDnssec, zoneName: string, atName: readonly { id: string; type: string }[], selfId: string | null): void {
  if (draft.type === 'DNSKEY' && !dnssec.multiSigner && !dnssec.presigned) {
    throw new AppError(DNSKEY_NEEDS_MULTI_SIGNER, 'DNSKEY records can only be added with multi-signer DNSSEC on: PATCH /zones/:zone_id/dnssec with {"dnssec_multi_signer": true} first (or {"dnssec_presigned": true} for a zone signed elsewhere)');
  }
  if (!PRESIGNED_TYPES.has(draft.type)) return;
  if (!dnssec.presigned) {
    if (draft.type === 'SOA') throw new AppError(1108, SOA_MESSAGE);
    throw new AppError(NEEDS_PRESIGNED, `${draft.type} records can only be added to a pre-signed zone: PATCH /zones/:zone_id/dnssec with {"dnssec_presigned": true} first`);
  }
  // Production serves a pre-signed zone's NSEC3 only with dnssec_use_nsec3 on (NSEC otherwise).
  if ((draft.type === 'NSEC3' || draft.type === 'NSEC3PARAM') && !dnssec.useNsec3) {
    throw new AppError(NEEDS_PRESIGNED, `${draft.type} records of a pre-signed zone need NSEC3 on too: PATCH /zones/:zone_id/dnssec with {"dnssec_use_nsec3": true} first`);
  }
  if (draft.type === 'SOA' && draft.name !== zoneName) throw new AppError(1108, `The SOA record of a pre-signed zone belongs at its apex ${zoneName}, not at ${draft.name}`);
  if (draft.type === 'SOA' && atName.some((r) => r.type === 'SOA' && r.id !== selfId)) throw new AppError(1108, 'The zone already has its SOA record: edit or delete it instead of adding another');
}
