import { randomFillSync } from 'node:crypto';

/** Random bytes drawn per refill: one call to the system's generator serves many identifiers. */
const POOL_BYTES = 16 * 256;
const pool = Buffer.allocUnsafe(POOL_BYTES);
let offset = POOL_BYTES;

/** `bytes` random bytes from the pool, as lowercase hex. */
function randomHex(bytes: number): string {
  if (offset + bytes > POOL_BYTES) {
    randomFillSync(pool);
    offset = 0;
  }
  const hex = pool.toString('hex', offset, offset + bytes);
  offset += bytes;
  return hex;
}

/** A new 32-character lowercase hex identifier (128 random bits), the shape the v4 API uses for zones, records and accounts. */
export function newId(): string {
  return randomHex(16);
}

let lastMs = 0;
let sequence = 0;

/**
 * A new identifier of the same shape whose first 12 hex digits are the creation time in milliseconds and the
 * next 4 a counter within that millisecond (the rest, 64 bits, random), so that identifiers made one after
 * the other sort one after the other. Records use it: a million-record zone's indexes on the id then grow at
 * their right edge instead of at random pages all over the file (B-tree inserts stay in SQLite's page cache,
 * and a commit writes a few pages instead of one per record). Like UUIDv7 (RFC 9562 §5.7); identifiers are
 * names, not secrets.
 */
export function newOrderedId(now = Date.now()): string {
  if (now > lastMs) { lastMs = now; sequence = 0; }
  else if (++sequence > 0xffff) { lastMs++; sequence = 0; }
  return lastMs.toString(16).padStart(12, '0').slice(-12) + sequence.toString(16).padStart(4, '0') + randomHex(8);
}

/** True when the string has the shape of a v4 identifier (1 to 32 lowercase hex characters). */
export function isId(value: string): boolean {
  return /^[0-9a-f]{1,32}$/.test(value);
}
