/**
 * The local CA: Stratus's own certificate authority, kept in the store (`certificate_authorities`, id
 * `local-ca`), used when no `--acme-directory` is given, as Caddy's internal issuer and mkcert are. Its root (ECDSA
 * P-256, ten years) is made on first use, its key sealed with the secrets key, so every node sharing the
 * database issues under one root; `stratus ca export` prints the root to trust. Leaves are valid 90 days.
 * X.509 is built by `@peculiar/x509` over WebCrypto.
 */
import { webcrypto, createPrivateKey, randomBytes } from 'node:crypto';
import type { Kysely } from 'kysely';
import * as x509 from '@peculiar/x509';
import type { Database } from '../db/schema.js';
import type { SecretBox } from '../shared/secret-box.js';
import type { Clock } from '../shared/clock.js';
import type { IssuedCertificate, Issuer } from './issuer.js';
import { newLeafKey } from './x509.js';

x509.cryptoProvider.set(webcrypto as unknown as Crypto);

const ROOT_ID = 'local-ca';
const CONTEXT = 'certificate-authority/local-ca';
const EC = { name: 'ECDSA', namedCurve: 'P-256', hash: 'SHA-256' } as const;
/** Days a leaf from the local CA is valid. */
export const LOCAL_LEAF_DAYS = 90;
const DAY_MS = 86_400_000;

function serial(): string {
  const b = randomBytes(16);
  b[0] = b[0]! & 0x7f;
  return b.toString('hex');
}

async function importKey(pem: string): Promise<CryptoKey> {
  const der = createPrivateKey(pem).export({ type: 'pkcs8', format: 'der' });
  return webcrypto.subtle.importKey('pkcs8', der, EC, false, ['sign']) as Promise<CryptoKey>;
}

async function publicKey(pem: string): Promise<CryptoKey> {
  const { createPublicKey } = await import('node:crypto');
  const der = createPublicKey(pem).export({ type: 'spki', format: 'der' });
  return webcrypto.subtle.importKey('spki', der, EC, true, ['verify']) as Promise<CryptoKey>;
}

/** The root's PEM, made (and stored) on first use. */
export async function localRoot(db: Kysely<Database>, box: SecretBox, clock: Clock): Promise<{ certificatePem: string; keyPem: string }> {
  const row = await db.selectFrom('certificate_authorities').selectAll().where('id', '=', ROOT_ID).executeTakeFirst();
  if (row?.certificate_pem) return { certificatePem: row.certificate_pem, keyPem: box.open(row.sealed_key, CONTEXT) };
  const keys = await webcrypto.subtle.generateKey(EC, true, ['sign', 'verify']) as CryptoKeyPair;
  const now = clock.now();
  const cert = await x509.X509CertificateGenerator.createSelfSigned({
    serialNumber: serial(), name: 'CN=Stratus Local CA, O=Stratus', notBefore: new Date(now.getTime() - DAY_MS), notAfter: new Date(now.getTime() + 3650 * DAY_MS),
    keys, signingAlgorithm: EC,
    extensions: [
      new x509.BasicConstraintsExtension(true, undefined, true),
      new x509.KeyUsagesExtension(x509.KeyUsageFlags.keyCertSign | x509.KeyUsageFlags.cRLSign, true),
      await x509.SubjectKeyIdentifierExtension.create(keys.publicKey),
    ],
  });
  const pkcs8 = Buffer.from(await webcrypto.subtle.exportKey('pkcs8', keys.privateKey));
  const keyPem = createPrivateKey({ key: pkcs8, format: 'der', type: 'pkcs8' }).export({ type: 'pkcs8', format: 'pem' }) as string;
  const certificatePem = cert.toString('pem');
  await db.insertInto('certificate_authorities').values({ id: ROOT_ID, certificate_pem: certificatePem, sealed_key: box.seal(keyPem, CONTEXT), account_url: null, created_on: now.toISOString() })
    .onConflict((oc) => oc.column('id').doNothing()).execute();
  // another node may have made one at the same time: the stored one wins
  const stored = await db.selectFrom('certificate_authorities').selectAll().where('id', '=', ROOT_ID).executeTakeFirstOrThrow();
  return { certificatePem: stored.certificate_pem!, keyPem: box.open(stored.sealed_key, CONTEXT) };
}

/** Issues leaves from the local CA. */
export class LocalCaIssuer implements Issuer {
  readonly authority = 'stratus_local';

  constructor(private readonly db: Kysely<Database>, private readonly box: SecretBox, private readonly clock: Clock) {}

  /** A 90-day leaf for `hosts`, chained to the local root. */
  async issue(_zone: { id: string; name: string }, hosts: string[]): Promise<IssuedCertificate> {
    const root = await localRoot(this.db, this.box, this.clock);
    const rootCert = new x509.X509Certificate(root.certificatePem);
    const keyPem = newLeafKey();
    const now = this.clock.now();
    const leaf = await x509.X509CertificateGenerator.create({
      serialNumber: serial(), subject: `CN=${hosts[0]}`, issuer: rootCert.subject,
      notBefore: new Date(now.getTime() - 3_600_000), notAfter: new Date(now.getTime() + LOCAL_LEAF_DAYS * DAY_MS),
      signingKey: await importKey(root.keyPem), publicKey: await publicKey(keyPem), signingAlgorithm: EC,
      extensions: [
        new x509.SubjectAlternativeNameExtension(hosts.map((h) => ({ type: 'dns' as const, value: h }))),
        new x509.BasicConstraintsExtension(false, undefined, true),
        new x509.KeyUsagesExtension(x509.KeyUsageFlags.digitalSignature, true),
        new x509.ExtendedKeyUsageExtension([x509.ExtendedKeyUsage.serverAuth]),
        await x509.AuthorityKeyIdentifierExtension.create(rootCert),
      ],
    });
    return { chainPem: `${leaf.toString('pem')}\n`, keyPem };
  }
}
