/**
 * `GET /zones/:zone_id/dnssec/zsk` (the official SDK's `dns.dnssec.zsk.list`): the zone signing keys a
 * multi-signer partner adds to its DNSKEY set. Stratus signs each zone with one combined key (flags 257),
 * so the list holds that key while the zone signs, and nothing otherwise. The private key never leaves the
 * database: `SigningKey` carries the public key only (`privkey` and `kek` are null).
 */
import { dnskeyRdata } from '../../dns/dnssec/keys.js';
import { isSigning, type ZoneDnssec } from '../../dns/dnssec/config.js';
import { KEY_TTL } from '../../dns/dnssec/zone-keys.js';

/** One entry of the list, in the SDK's `ZskListResponse` shape. */
export interface ZskView {
  DNSKEY: {
    Algorithm: number;
    Flags: number;
    Hdr: { Class: number; Name: string; Rdlength: number; Rrtype: number; Ttl: number };
    Protocol: number;
    PublicKey: string;
  };
  Location: 'database';
  Name: string;
  SigningKey: { kek: null; privkey: null; pubkey: string };
  Tag: 'active';
}

/** The zone signing keys of a zone in this state (empty while it does not sign). */
export function zskList(zoneName: string, d: ZoneDnssec): ZskView[] {
  if (!isSigning(d)) return [];
  const k = d.key;
  const rdata = dnskeyRdata(k.flags, k.algorithm, Buffer.from(k.publicKey, 'base64'));
  return [{
    DNSKEY: {
      Algorithm: k.algorithm, Flags: k.flags, Protocol: 3, PublicKey: k.publicKey,
      Hdr: { Class: 1, Name: `${zoneName}.`, Rdlength: rdata.length, Rrtype: 48, Ttl: KEY_TTL },
    },
    Location: 'database',
    Name: `K${zoneName}.+${String(k.algorithm).padStart(3, '0')}+${String(k.tag).padStart(5, '0')}`,
    SigningKey: { kek: null, privkey: null, pubkey: k.publicKey },
    Tag: 'active',
  }];
}
