/**
 * API keys and e-mail addresses: their accepted formats, generation (37 hex characters, the shape of the
 * production service's global API keys) and hashing (only SHA-256 hex of a key is stored).
 */
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

/** Shape of an acceptable `X-Auth-Email` value. */
const EMAIL = /^[^\s@"<>(),;:]{1,64}@[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?)*$/;
/** Shape of an acceptable `X-Auth-Key` value: printable token characters, 1..200 of them. */
const KEY = /^[A-Za-z0-9_.~+/=-]{1,200}$/;

/** True when the value has the shape of an e-mail address (`X-Auth-Email`). */
export function isValidEmail(value: string): boolean {
  return value.length <= 254 && EMAIL.test(value);
}

/** True when the value has the shape of an API key (`X-Auth-Key`). */
export function isValidKey(value: string): boolean {
  return KEY.test(value);
}

/** A new global API key: 37 lowercase hex characters. */
export function generateKey(): string {
  return randomBytes(19).toString('hex').slice(0, 37);
}

/** SHA-256 hex of a key: the only form in which keys are stored. */
export function hashKey(key: string): string {
  return createHash('sha256').update(key, 'utf8').digest('hex');
}

/** Compares a key with a stored hash in constant time. */
export function keyMatches(key: string, storedHash: string): boolean {
  const a = Buffer.from(hashKey(key), 'hex');
  const b = Buffer.from(storedHash, 'hex');
  return a.length === b.length && timingSafeEqual(a, b);
}
