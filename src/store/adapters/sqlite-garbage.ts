/**
 * The garbage list of the SQLite metadata store: blob ids no committed row references any more, waiting for the
 * collector (store/gc.ts) to delete their blobs. `q` prepares (and caches) a statement of the store's connection.
 */
import type { Database, Statement } from 'better-sqlite3';

/** Blob ids waiting for deletion since before `before`. */
export function takeGarbageRows(q: (sql: string) => Statement, before: number, limit: number): string[] {
  return (q('SELECT blob_id FROM store_garbage WHERE since <= ? LIMIT ?').all(before, limit) as { blob_id: string }[]).map((r) => r.blob_id);
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
