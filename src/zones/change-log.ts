/**
 * The change log (`zone_changes`): every committed change of a zone's records or settings, keyed by zone and
 * serial, written in the same transaction as the change. DNS servers read it to follow changes made by other
 * nodes on the same database, and to catch up after a gap, by applying changesets instead of reloading zones.
 *
 * Invariants: every serial bump of a zone after a create writes one entry (possibly with no records), so a
 * reader that finds every serial between its own and the zone's can replay them; a change of more than
 * {@link MAX_LOGGED_RECORDS} records (a big import) is logged as "reload" (readers load the zone); an entry
 * of many records is split in parts of {@link PART_RECORDS}. Entries older than the retention are pruned;
 * a reader that finds a serial missing reloads the zone.
 */
import type { Kysely, Transaction } from 'kysely';
import type { Database } from '../db/schema.js';
import type { RecordChange, ZoneColumns } from './change-feed.js';
import type { SnapshotRecord } from '../dns/snapshot.js';

/** Above this many records a change is logged as a reload marker. */
export const MAX_LOGGED_RECORDS = 20_000;
/** Records per row. */
const PART_RECORDS = 1000;

/** One logged change. */
export interface LoggedChange {
  serial: number;
  records?: RecordChange[];
  zone?: ZoneColumns;
  /** Too big to log: readers load the zone again. */
  reload?: boolean;
}

type Body = { records: Array<[string, SnapshotRecord | null, SnapshotRecord | null]> } | { zone: ZoneColumns } | { reload: true };

/** Writes the log entry of a change (call inside the change's transaction). */
export async function logChange(trx: Transaction<Database> | Kysely<Database>, zoneId: string, change: LoggedChange): Promise<void> {
  const bodies: Body[] = [];
  if (change.zone) bodies.push({ zone: change.zone });
  else if (change.reload || (change.records?.length ?? 0) > MAX_LOGGED_RECORDS) bodies.push({ reload: true });
  else {
    const recs = change.records ?? [];
    for (let i = 0; i === 0 || i < recs.length; i += PART_RECORDS) {
      bodies.push({ records: recs.slice(i, i + PART_RECORDS).map((c) => [c.id, c.before, c.after]) });
    }
  }
  const now = Date.now();
  await trx.insertInto('zone_changes').values(bodies.map((b, part) => ({
    zone_id: zoneId, serial: change.serial, part, parts: bodies.length, created_ms: now, body: JSON.stringify(b),
  }))).execute();
}

/**
 * The logged changes of a zone with serials in (after, upto], in order; undefined when any is missing
 * (pruned, or made before the log existed): the reader must then load the zone.
 */
export async function readChanges(db: Kysely<Database>, zoneId: string, after: number, upto: number): Promise<LoggedChange[] | undefined> {
  if (upto <= after) return [];
  const rows = await db.selectFrom('zone_changes').select(['serial', 'part', 'parts', 'body'])
    .where('zone_id', '=', zoneId).where('serial', '>', after).where('serial', '<=', upto)
    .orderBy('serial').orderBy('part').execute();
  const out: LoggedChange[] = [];
  let expected = after + 1;
  for (let i = 0; i < rows.length;) {
    const first = rows[i]!;
    const serial = Number(first.serial);
    if (serial !== expected || first.part !== 0 || i + first.parts > rows.length) return undefined;
    const change: LoggedChange = { serial };
    for (let p = 0; p < first.parts; p++) {
      const row = rows[i + p]!;
      if (Number(row.serial) !== serial || row.part !== p) return undefined;
      const body = JSON.parse(row.body) as Body;
      if ('zone' in body) change.zone = body.zone;
      else if ('reload' in body) change.reload = true;
      else (change.records ??= []).push(...body.records.map(([id, before, after]) => ({ id, before, after })));
    }
    out.push(change);
    i += first.parts;
    expected++;
  }
  return expected === upto + 1 ? out : undefined;
}

/** Deletes entries written before `beforeMs`. */
export async function pruneChanges(db: Kysely<Database>, beforeMs: number): Promise<number> {
  const res = await db.deleteFrom('zone_changes').where('created_ms', '<', beforeMs).executeTakeFirst();
  return Number(res.numDeletedRows ?? 0);
}

/** Deletes a zone's entries (with the zone). */
export async function deleteZoneChanges(trx: Transaction<Database> | Kysely<Database>, zoneId: string): Promise<void> {
  await trx.deleteFrom('zone_changes').where('zone_id', '=', zoneId).execute();
}
