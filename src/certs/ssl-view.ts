/**
 * The v4 shapes of certificate packs, certificates, custom certificates and SSL verification, as production
 * answers them (the official SDK's `ssl.certificatePacks`, `customCertificates`, `ssl.verification` types).
 */
import type { CertificateRow, PackRow } from './cert-store.js';

/** One certificate inside a pack, or a custom certificate (the same fields plus `keyless_server`, `policy`). */
export function certificateView(row: CertificateRow, now: Date): Record<string, unknown> {
  const expired = new Date(row.expires_on).getTime() <= now.getTime();
  return {
    id: row.id, hosts: JSON.parse(row.hosts) as string[], issuer: row.issuer, signature: row.signature, status: expired ? 'expired' : 'active',
    bundle_method: row.bundle_method, zone_id: row.zone_id, uploaded_on: row.uploaded_on, modified_on: row.modified_on, expires_on: row.expires_on,
    priority: row.priority,
  };
}

/** A custom certificate as `/zones/:zone_id/custom_certificates` shows it. */
export function customCertificateView(row: CertificateRow, now: Date): Record<string, unknown> {
  return { ...certificateView(row, now), keyless_server: null, policy: null, geo_restrictions: undefined };
}

/** A certificate pack with its certificates. */
export function packView(pack: PackRow, certs: CertificateRow[], now: Date): Record<string, unknown> {
  const sorted = [...certs].sort((a, b) => b.expires_on.localeCompare(a.expires_on));
  return {
    id: pack.id, type: pack.type, hosts: JSON.parse(pack.hosts) as string[], status: pack.status,
    validation_method: pack.validation_method, validity_days: pack.validity_days, certificate_authority: pack.certificate_authority,
    cloudflare_branding: false,
    certificates: sorted.map((c) => certificateView(c, now)),
    ...(sorted[0] ? { primary_certificate: sorted[0].id } : {}),
    validation_records: [],
    validation_errors: pack.error ? [{ message: pack.error }] : [],
  };
}

/** The zone's SSL verification entries (one per pack). */
export function verificationView(zoneName: string, packs: PackRow[]): Array<Record<string, unknown>> {
  return packs.map((p) => ({
    certificate_status: p.status === 'active' ? 'active' : p.status === 'initializing' ? 'initializing' : 'authorizing',
    hostname: zoneName, cert_pack_uuid: p.id, signature: 'ECDSAWithSHA256', validation_method: p.validation_method,
    verification_info: { record_name: 'txt_name', record_target: 'txt_value' },
    verification_status: p.status === 'active', verification_type: 'cname', brand_check: false,
  }));
}
