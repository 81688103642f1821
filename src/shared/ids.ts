import { randomFillSync } from 'node:crypto';

/** Random bytes drawn per refill: one call to the system's generator serves many identifiers. */
const POOL_BYTES = 16 * 256;
const pool = Buffer.allocUnsafe(POOL_BYTES);
let offset = POOL_BYTES;

/** A new 32-character lowercase hex identifier (128 random bits), the shape the v4 API uses for zones, records and accounts. */
export function newId(): string {
  if (offset + 16 > POOL_BYTES) {
    randomFillSync(pool);
    offset = 0;
  }
  const id = pool.toString('hex', offset, offset + 16);
  offset += 16;
  return id;
}

/** True when the string has the shape of a v4 identifier (1 to 32 lowercase hex characters). */
export function isId(value: string): boolean {
  return /^[0-9a-f]{1,32}$/.test(value);
}
