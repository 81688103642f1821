/**
 * What Stratus reads from PEM certificates and keys, with Node's own X.509 parser (no hand-written ASN.1): the
 * names a certificate covers, its expiry, issuer and signature algorithm, whether a key belongs to it; and new
 * leaf keys (ECDSA P-256, PKCS#8 PEM).
 */
import { X509Certificate, createPrivateKey, generateKeyPairSync, type KeyObject } from 'node:crypto';
import * as x509 from '@peculiar/x509';

/** What the API and the edge need of a certificate chain. */
export interface CertificateFacts {
  /** Names from the leaf's subjectAltName (DNS entries), lower case; the subject CN when there are none. */
  hosts: string[];
  expiresOn: Date;
  notBefore: Date;
  /** The issuer's organization, else its common name. */
  issuer: string;
  /** Production's spelling: `ECDSAWithSHA256`, `SHA256WithRSA`, … */
  signature: string;
  /** Serial number, hex upper case. */
  serialNumber: string;
}

/** The PEM blocks of a chain, in order. */
export function splitPem(pem: string): string[] {
  return pem.match(/-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g) ?? [];
}

/** Reads a chain's leaf; throws a readable Error when the text is not a certificate. */
export function describeCertificate(pem: string): CertificateFacts {
  const blocks = splitPem(pem);
  if (blocks.length === 0) throw new Error('no PEM certificate');
  const leaf = new X509Certificate(blocks[0]!);
  const hosts = (leaf.subjectAltName ?? '').split(',').map((s) => s.trim()).filter((s) => s.startsWith('DNS:')).map((s) => s.slice(4).toLowerCase());
  const cn = /(?:^|\n)CN=([^\n]+)/.exec(leaf.subject)?.[1];
  const org = /(?:^|\n)O=([^\n]+)/.exec(leaf.issuer)?.[1] ?? /(?:^|\n)CN=([^\n]+)/.exec(leaf.issuer)?.[1] ?? 'unknown';
  return {
    hosts: hosts.length > 0 ? hosts : cn ? [cn.toLowerCase()] : [],
    expiresOn: new Date(leaf.validTo),
    notBefore: new Date(leaf.validFrom),
    issuer: org,
    signature: signatureName(blocks[0]!),
    serialNumber: leaf.serialNumber.toUpperCase(),
  };
}

function signatureName(pem: string): string {
  const alg = new x509.X509Certificate(pem).signatureAlgorithm as { name: string; hash?: { name: string } };
  const hash = (alg.hash?.name ?? 'SHA-256').replace('-', '');
  if (alg.name === 'ECDSA') return `ECDSAWith${hash}`;
  if (alg.name.startsWith('RSA')) return `${hash}WithRSA`;
  return alg.name;
}

/** The private key of a PEM text; throws a readable Error when it is not one. */
export function readPrivateKey(pem: string): KeyObject {
  try {
    return createPrivateKey(pem);
  } catch {
    throw new Error('no PEM private key');
  }
}

/** True when `keyPem` is the private key of the chain's leaf. */
export function keyMatches(certificatePem: string, keyPem: string): boolean {
  const leaf = splitPem(certificatePem)[0];
  return leaf !== undefined && new X509Certificate(leaf).checkPrivateKey(readPrivateKey(keyPem));
}

/** A new leaf key: ECDSA P-256, PKCS#8 PEM. */
export function newLeafKey(): string {
  return generateKeyPairSync('ec', { namedCurve: 'P-256' }).privateKey.export({ type: 'pkcs8', format: 'pem' }) as string;
}

/** True when `name` is covered by `pattern` (an exact name, or `*.parent` for one label under parent). */
export function nameCovered(pattern: string, name: string): boolean {
  if (pattern === name) return true;
  if (!pattern.startsWith('*.')) return false;
  const dot = name.indexOf('.');
  return dot > 0 && name.slice(dot + 1) === pattern.slice(2);
}
