import { randomBytes } from 'node:crypto';

/** A new 32-character lowercase hex identifier, the shape the v4 API uses for zones, records and accounts. */
export function newId(): string {
  return randomBytes(16).toString('hex');
}

/** True when the string has the shape of a v4 identifier (1 to 32 lowercase hex characters). */
export function isId(value: string): boolean {
  return /^[0-9a-f]{1,32}$/.test(value);
}
