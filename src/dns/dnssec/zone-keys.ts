/**
 * The records a signed zone adds at its apex: DNSKEY (the zone's key, plus the other providers' DNSKEY
 * records in multi-signer mode), CDS and CDNSKEY for automated DS updates (RFC 7344; the delete form of
 * RFC 8078 §4 while DNSSEC is being turned off), NSEC3PARAM in NSEC3 mode, and what signs with the key.
 */
import { TYPE } from '../wire/constants.js';
import type { WireRecord } from '../wire/message.js';
import type { ZoneSnapshot } from '../snapshot.js';
import { DNSSEC_TYPE, NSEC3PARAM_RDATA } from './denial.js';
import { dnskeyRdata, dsRdata, DIGEST_SHA256 } from './keys.js';
import type { DnssecKey, ZoneDnssec } from './config.js';
import type { SigningKey } from './rrsig.js';

/** TTL of DNSKEY, CDS, CDNSKEY and NSEC3PARAM (production's 3600). */
export const KEY_TTL = 3600;

/** A signing zone's key material and apex records. */
export interface ZoneKeys {
  signer: SigningKey;
  nsec3: boolean;
  multiSigner: boolean;
  /** Our DNSKEY record. */
  dnskey: WireRecord;
  cds: WireRecord[];
  cdnskey: WireRecord[];
  nsec3param: WireRecord[];
}

/** Builds the apex records of a signing zone. */
export function zoneKeys(origin: string, state: ZoneDnssec, key: DnssecKey, signer: SigningKey): ZoneKeys {
  const pub = Buffer.from(key.publicKey, 'base64');
  const rdata = dnskeyRdata(key.flags, key.algorithm, pub);
  const deleting = state.status === 'pending-disabled';
  const rec = (type: number, data: Uint8Array): WireRecord => ({ name: origin, type, ttl: KEY_TTL, rdata: [data] });
  return {
    signer,
    nsec3: state.useNsec3,
    multiSigner: state.multiSigner,
    dnskey: rec(TYPE.DNSKEY, rdata),
    cds: [rec(DNSSEC_TYPE.CDS, deleting ? Buffer.from([0, 0, 0, 0, 0]) : dsRdata(origin, key.tag, key.algorithm, rdata, DIGEST_SHA256))],
    cdnskey: [rec(DNSSEC_TYPE.CDNSKEY, deleting ? Buffer.from([0, 0, 3, 0, 0]) : rdata)],
    nsec3param: state.useNsec3 ? [rec(DNSSEC_TYPE.NSEC3PARAM, NSEC3PARAM_RDATA)] : [],
  };
}

/** The served DNSKEY rrset: ours, and in multi-signer mode the zone's own DNSKEY records at the apex. */
export function dnskeySet(s: ZoneSnapshot, keys: ZoneKeys): WireRecord[] {
  const own = keys.multiSigner ? s.nodes.get(s.origin)?.rrsets.get(TYPE.DNSKEY)?.records ?? [] : [];
  return [keys.dnskey, ...own.map((r) => ({ ...r, ttl: KEY_TTL }))];
}

/** The apex rrsets a signing zone adds, by type. */
export function apexRrsets(s: ZoneSnapshot, keys: ZoneKeys): Map<number, WireRecord[]> {
  const m = new Map<number, WireRecord[]>([[TYPE.DNSKEY, dnskeySet(s, keys)], [DNSSEC_TYPE.CDS, keys.cds], [DNSSEC_TYPE.CDNSKEY, keys.cdnskey]]);
  if (keys.nsec3) m.set(DNSSEC_TYPE.NSEC3PARAM, keys.nsec3param);
  return m;
}
