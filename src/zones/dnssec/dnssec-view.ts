/**
 * The v4 shape of a zone's DNSSEC state (`GET/PATCH /zones/:zone_id/dnssec`, the official SDK's `DNSSEC`
 * type) and the validation of a PATCH body. A zone without a key answers every key field as null, as
 * production does for a zone whose DNSSEC is off.
 */
import { AppError } from '../../shared/errors.js';
import { dnskeyRdata, dsDigest, DIGEST_SHA256 } from '../../dns/dnssec/keys.js';
import type { ZoneDnssec } from '../../dns/dnssec/config.js';

/** Code of an invalid DNSSEC body (Stratus's own). */
export const INVALID_DNSSEC_BODY = 1116;

/** The v4 `DNSSEC` object. */
export interface DnssecView {
  algorithm: string | null;
  digest: string | null;
  digest_algorithm: string | null;
  digest_type: string | null;
  dnssec_multi_signer: boolean;
  dnssec_presigned: boolean;
  dnssec_use_nsec3: boolean;
  ds: string | null;
  flags: number | null;
  key_tag: number | null;
  key_type: string | null;
  modified_on: string | null;
  public_key: string | null;
  status: ZoneDnssec['status'];
}

/**
 * The view of a zone's state. A pre-signed zone is signed by its owner's signer, not with Stratus's key (which
 * it keeps for when pre-signing is turned off): its key fields are null, so no DS of a key that signs nothing is
 * offered for the parent.
 */
export function dnssecView(zoneName: string, d: ZoneDnssec): DnssecView {
  const k = d.presigned ? undefined : d.key;
  const digest = k ? dsDigest(zoneName, dnskeyRdata(k.flags, k.algorithm, Buffer.from(k.publicKey, 'base64')), DIGEST_SHA256) : null;
  return {
    algorithm: k ? String(k.algorithm) : null,
    digest,
    digest_algorithm: k ? 'SHA256' : null,
    digest_type: k ? String(DIGEST_SHA256) : null,
    dnssec_multi_signer: d.multiSigner,
    dnssec_presigned: d.presigned,
    dnssec_use_nsec3: d.useNsec3,
    ds: k ? `${zoneName}. 3600 IN DS ${k.tag} ${k.algorithm} ${DIGEST_SHA256} ${digest}` : null,
    flags: k ? k.flags : null,
    key_tag: k ? k.tag : null,
    key_type: k ? 'ECDSAP256SHA256' : null,
    modified_on: d.modifiedOn,
    public_key: k ? k.publicKey : null,
    status: d.status,
  };
}

/** What a PATCH asks for. */
export interface DnssecPatch {
  status?: 'active' | 'disabled';
  useNsec3?: boolean;
  multiSigner?: boolean;
  presigned?: boolean;
}

const FLAGS = { dnssec_use_nsec3: 'useNsec3', dnssec_multi_signer: 'multiSigner', dnssec_presigned: 'presigned' } as const;

/** Validates a PATCH body (every problem named at once, 400 + {@link INVALID_DNSSEC_BODY}). */
export function parseDnssecPatch(body: unknown): DnssecPatch {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) throw new AppError(INVALID_DNSSEC_BODY, 'The request body must be a JSON object');
  const b = body as Record<string, unknown>;
  const errors: AppError[] = [];
  const out: DnssecPatch = {};
  if (b.status !== undefined) {
    if (b.status === 'active' || b.status === 'disabled') out.status = b.status;
    else errors.push(new AppError(INVALID_DNSSEC_BODY, `Invalid status ${JSON.stringify(b.status)}: send "active" or "disabled"`));
  }
  for (const [field, key] of Object.entries(FLAGS)) {
    const v = b[field];
    if (v === undefined) continue;
    if (typeof v === 'boolean') out[key] = v;
    else errors.push(new AppError(INVALID_DNSSEC_BODY, `Invalid ${field}: send true or false`));
  }
  for (const field of Object.keys(b)) {
    if (field !== 'status' && !(field in FLAGS)) errors.push(new AppError(INVALID_DNSSEC_BODY, `Unknown field ${JSON.stringify(field)}: send status, dnssec_use_nsec3, dnssec_multi_signer or dnssec_presigned`));
  }
  if (errors.length) throw new AppError(errors[0]!.code, errors[0]!.message, 400, { others: errors.slice(1) });
  return out;
}
