/**
 * Zone keys: generation (ECDSA P-256, algorithm 13, RFC 6605), the DNSKEY RDATA, the key tag (RFC 4034
 * Appendix B) and the DS digest (SHA-256, digest type 2, RFC 4509) with its presentation line.
 */
import { createHash, createPrivateKey, generateKeyPairSync, type KeyObject } from 'node:crypto';
import { encodeName } from '../wire/writer.js';

/** DNSSEC algorithm number of ECDSA P-256 with SHA-256. */
export const ALGORITHM_ECDSAP256SHA256 = 13;
/** Flags of a key-signing (SEP) zone key, as production's CSK carries. */
export const CSK_FLAGS = 257;
/** DS digest type SHA-256. */
export const DIGEST_SHA256 = 2;

/** A generated key pair: the DNSKEY public key (base64) and the PKCS#8 DER private key (base64). */
export interface GeneratedKey {
  publicKey: string;
  privateKeyDer: string;
  tag: number;
}

/** The DNSKEY RDATA of a key. */
export function dnskeyRdata(flags: number, algorithm: number, publicKey: Uint8Array): Buffer {
  const head = Buffer.alloc(4);
  head.writeUInt16BE(flags, 0);
  head[2] = 3;
  head[3] = algorithm;
  return Buffer.concat([head, publicKey]);
}

/** The key tag of a DNSKEY RDATA (RFC 4034 Appendix B). */
export function keyTag(rdata: Uint8Array): number {
  let ac = 0;
  for (let i = 0; i < rdata.length; i++) ac += i & 1 ? rdata[i]! : rdata[i]! << 8;
  ac += (ac >> 16) & 0xffff;
  return ac & 0xffff;
}

/** Generates a P-256 key for `flags`. */
export function generateZoneKey(flags = CSK_FLAGS): GeneratedKey {
  const { publicKey, privateKey } = generateKeyPairSync('ec', { namedCurve: 'prime256v1' });
  const jwk = publicKey.export({ format: 'jwk' });
  const raw = Buffer.concat([Buffer.from(jwk.x!, 'base64url'), Buffer.from(jwk.y!, 'base64url')]);
  return {
    publicKey: raw.toString('base64'),
    privateKeyDer: (privateKey.export({ format: 'der', type: 'pkcs8' }) as Buffer).toString('base64'),
    tag: keyTag(dnskeyRdata(flags, ALGORITHM_ECDSAP256SHA256, raw)),
  };
}

/** The private key object of a PKCS#8 DER (base64). */
export function privateKeyObject(der: string): KeyObject {
  return createPrivateKey({ key: Buffer.from(der, 'base64'), format: 'der', type: 'pkcs8' });
}

/** The DS digest (uppercase hex) of a zone's DNSKEY: SHA-256 over the owner's wire form and the RDATA. */
export function dsDigest(zone: string, rdata: Uint8Array, digestType = DIGEST_SHA256): string {
  const algo = digestType === 1 ? 'sha1' : digestType === 4 ? 'sha384' : 'sha256';
  return createHash(algo).update(encodeName(zone.toLowerCase())).update(rdata).digest('hex').toUpperCase();
}

/** The DS RDATA of a zone's DNSKEY. */
export function dsRdata(zone: string, tag: number, algorithm: number, rdata: Uint8Array, digestType = DIGEST_SHA256): Buffer {
  const head = Buffer.alloc(4);
  head.writeUInt16BE(tag, 0);
  head[2] = algorithm;
  head[3] = digestType;
  return Buffer.concat([head, Buffer.from(dsDigest(zone, rdata, digestType), 'hex')]);
}
