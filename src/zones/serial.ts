/**
 * Zone serials. A new zone starts at `YYYYMMDD00` of its creation day (RFC 1912 §2.2 style); every committed
 * change of the zone's records or settings adds one, inside the same transaction as the change, so the serial
 * strictly grows and the DNS server can tell snapshots apart.
 */
import { sql, type Kysely, type Transaction } from 'kysely';
import type { Database } from '../db/schema.js';
import { QueryTemplate } from '../db/query-template.js';

/** The first serial of a zone created at the given instant. */
export function initialSerial(at: Date): number {
  const day = at.toISOString().slice(0, 10).replace(/-/g, '');
  return Number(day) * 100;
}

/**
 * Adds one to the zone's serial and `recordDelta` to its record count; returns the new record count and serial. Run it
 * as the FIRST statement of a write transaction: on SQLite that takes the write lock at once (so checks and
 * the write that follows see a stable zone), on PostgreSQL it locks the zone row, serializing writers of one
 * zone.
 */
export async function bumpSerial(trx: Transaction<Database> | Kysely<Database>, zoneId: string, recordDelta = 0): Promise<{ recordCount: number; serial: number; type: string }> {
  const row = await BUMP_SERIAL.executeTakeFirst(trx, { zoneId, recordDelta });
  return { recordCount: row?.record_count ?? 0, serial: Number(row?.serial ?? 0), type: row?.type ?? 'full' };
}

const BUMP_SERIAL = new QueryTemplate<{ zoneId: string; recordDelta: number }, { record_count: number; serial: number; type: string }>((db, p) => db.updateTable('zones')
  .set({ serial: sql<number>`serial + 1`, record_count: sql<number>`record_count + ${p('recordDelta')}` })
  .where('id', '=', p('zoneId'))
  .returning(['record_count', 'serial', 'type']));
