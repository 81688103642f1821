/**
 * The garbage list of the SQLite metadata store: blob ids no committed row references any more, waiting for the
 * collector (store/gc.ts) to delete their blobs. `q` prepares (and caches) a statement of the store's connection.
 *
 * Holds: while a `store_leases` row named `gc-hold/…` is unexpired (wall-clock ms), no garbage is handed out,
 * so a blob that a snapshot of the database taken after the hold still references stays on disk
 * (`stratus backup`, src/ops/backup/gc-hold.ts). The check and the take are one statement: a pass that
 * started before the hold only takes blobs that were garbage already before it, which no later snapshot references.
 */
import type { Database, Statement } from 'better-sqlite3';

/** Prefix of the lease names that hold garbage collection (see above). */
export const GC_HOLD_PREFIX = 'gc-hold/';

/** Blob ids waiting for deletion since before `before`; none while a hold is unexpired at `now`. */
export function takeGarbageRows(q: (sql: string) => Statement, before: number, limit: number, now = Date.now()): string[] {
  const rows = q(
    `SELECT blob_id FROM store_garbage WHERE since <= ?
       AND NOT EXISTS (SELECT 1 FROM store_leases WHERE name >= 'gc-hold/' AND name < 'gc-hold0' AND until > ?)
     LIMIT ?`,
  ).all(before, now, limit) as { blob_id: string }[];
  return rows.map((r) => r.blob_id);
}

/** Forgets garbage entries once their blobs are deleted (one transaction). */
export function dropGarbageRows(db: Database, q: (sql: string) => Statement, blobIds: string[]): void {
  const del = q('DELETE FROM store_garbage WHERE blob_id = ?');
  db.transaction(() => {
    for (const id of blobIds) del.run(id);
  })();
}

/** The subset of `blobIds` still referenced by an object, a part or the garbage list. */
export function referencedBlobRows(q: (sql: string) => Statement, blobIds: string[]): Set<string> {
  const out = new Set<string>();
  const inObjects = q('SELECT 1 FROM store_objects WHERE blob_id = ? LIMIT 1');
  const inParts = q('SELECT 1 FROM store_parts WHERE blob_id = ? LIMIT 1');
  const inGarbage = q('SELECT 1 FROM store_garbage WHERE blob_id = ?');
  for (const id of blobIds) {
    if (inObjects.get(id) || inParts.get(id) || inGarbage.get(id)) out.add(id);
  }
  return out;
}
