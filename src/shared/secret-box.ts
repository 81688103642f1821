/**
 * Encryption at rest of script secrets (`secret_text` bindings): AES-256-GCM with a random 96-bit nonce per
 * value and the binding's identity (script id and binding name) as additional data, so a ciphertext copied to
 * another binding does not decrypt. The key is configured (`--secrets-key`, 32 bytes in base64 or hex; nodes
 * sharing one PostgreSQL database must be given the same key) or generated on the first start into
 * `<dataDir>/edge-secrets-key.json` (mode 0600) and read back later, like the other generated secrets.
 * Values and keys are never logged.
 */
import fs from 'node:fs';
import path from 'node:path';
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { writeSecretJson } from './secret-file.js';
import { SECRETS_KEY_FILE } from './data-dir.js';

const VERSION = 'v1';

/** Parses a 32-byte key written as base64 or hex; throws a readable error otherwise. */
export function parseSecretsKey(text: string): Buffer {
  const trimmed = text.trim();
  const key = /^[0-9a-fA-F]{64}$/.test(trimmed) ? Buffer.from(trimmed, 'hex') : Buffer.from(trimmed, 'base64');
  if (key.length !== 32) throw new Error('the secrets key must be 32 bytes, written as 64 hex digits or base64');
  return key;
}

/** The key to use: the configured one, else the data folder's (generated on first use). */
export function resolveSecretsKey(opts: { dataDir: string; configured: string | undefined }): { key: Buffer; generatedFile?: string } {
  if (opts.configured !== undefined) return { key: parseSecretsKey(opts.configured) };
  const file = path.join(opts.dataDir, SECRETS_KEY_FILE);
  try {
    const saved = JSON.parse(fs.readFileSync(file, 'utf8')) as { key?: unknown };
    if (typeof saved.key === 'string') return { key: parseSecretsKey(saved.key) };
    throw new Error(`${file} has no "key"`);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw new Error(`cannot read ${file}: ${(err as Error).message}`);
  }
  const key = randomBytes(32);
  writeSecretJson(file, { key: key.toString('base64') });
  return { key, generatedFile: file };
}

/** Encrypts and decrypts secret values with one key. */
export class SecretBox {
  constructor(private readonly key: Buffer) {
    if (key.length !== 32) throw new Error('SecretBox needs a 32-byte key');
  }

  /** `v1.<nonce>.<ciphertext+tag>` (base64url parts) of `plain`, bound to `context`. */
  seal(plain: string, context: string): string {
    const nonce = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.key, nonce);
    cipher.setAAD(Buffer.from(context, 'utf8'));
    const body = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final(), cipher.getAuthTag()]);
    return `${VERSION}.${nonce.toString('base64url')}.${body.toString('base64url')}`;
  }

  /** The plain value of a sealed one; throws when the key or the context is not the one it was sealed with. */
  open(sealed: string, context: string): string {
    const [version, nonceText, bodyText] = sealed.split('.');
    if (version !== VERSION || nonceText === undefined || bodyText === undefined) throw new Error('not a sealed secret');
    const body = Buffer.from(bodyText, 'base64url');
    const decipher = createDecipheriv('aes-256-gcm', this.key, Buffer.from(nonceText, 'base64url'));
    decipher.setAAD(Buffer.from(context, 'utf8'));
    decipher.setAuthTag(body.subarray(body.length - 16));
    return Buffer.concat([decipher.update(body.subarray(0, body.length - 16)), decipher.final()]).toString('utf8');
  }
}
