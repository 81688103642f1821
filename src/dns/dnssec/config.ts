/**
 * A zone's DNSSEC state as stored in `zones.dnssec` (JSON) and as the DNS server reads it. One key per zone:
 * a combined signing key (CSK, flags 257, ECDSA P-256 with SHA-256, algorithm 13, RFC 6605), as production
 * uses. The private key is sealed (shared/secret-box.ts) with {@link keyContext} as additional data; nothing
 * here ever holds it in the clear.
 */

/** The statuses of the v4 API (`pending` and `pending-disabled` wait for the parent's DS, docs/compatibility.md). */
export type DnssecStatus = 'active' | 'pending' | 'disabled' | 'pending-disabled';

/** The zone's key. */
export interface DnssecKey {
  tag: number;
  flags: number;
  algorithm: number;
  /** The DNSKEY public key field, base64 (64 bytes: X then Y). */
  publicKey: string;
  /** The PKCS#8 DER private key, base64, sealed with the secrets key. */
  sealedPrivateKey: string;
  createdOn: string;
}

/** The stored state. */
export interface ZoneDnssec {
  status: DnssecStatus;
  useNsec3: boolean;
  multiSigner: boolean;
  presigned: boolean;
  modifiedOn: string | null;
  key: DnssecKey | null;
}

/** The state of a zone that never had DNSSEC. */
export const DNSSEC_OFF: ZoneDnssec = Object.freeze({ status: 'disabled', useNsec3: false, multiSigner: false, presigned: false, modifiedOn: null, key: null }) as ZoneDnssec;

const STATUSES: readonly string[] = ['active', 'pending', 'disabled', 'pending-disabled'];

/** Parses `zones.dnssec` (null, unreadable or malformed JSON: DNSSEC off). */
export function parseZoneDnssec(json: string | null | undefined): ZoneDnssec {
  if (!json) return DNSSEC_OFF;
  try {
    const v = JSON.parse(json) as Partial<ZoneDnssec>;
    const k = v.key;
    const key = k && typeof k.tag === 'number' && typeof k.publicKey === 'string' && typeof k.sealedPrivateKey === 'string'
      ? { tag: k.tag, flags: Number(k.flags ?? 257), algorithm: Number(k.algorithm ?? 13), publicKey: k.publicKey, sealedPrivateKey: k.sealedPrivateKey, createdOn: String(k.createdOn ?? '') }
      : null;
    return {
      status: STATUSES.includes(v.status as string) ? v.status as DnssecStatus : 'disabled',
      useNsec3: v.useNsec3 === true,
      multiSigner: v.multiSigner === true,
      presigned: v.presigned === true,
      modifiedOn: typeof v.modifiedOn === 'string' ? v.modifiedOn : null,
      key,
    };
  } catch {
    return DNSSEC_OFF;
  }
}

/** True when answers are signed: a key exists and the status is not `disabled`. */
export function isSigning(d: ZoneDnssec | undefined): d is ZoneDnssec & { key: DnssecKey } {
  return d !== undefined && d.key !== null && d.status !== 'disabled';
}

/** The additional data a zone key is sealed with (a sealed key copied to another zone does not open). */
export function keyContext(zoneId: string, tag: number): string {
  return `dnssec/${zoneId}/${tag}`;
}
