/**
 * Online copies of the SQLite databases of a data folder. `VACUUM INTO` reads the source in one read
 * transaction, so the copy is the database as one commit left it, while other processes keep writing (WAL:
 * readers and the writer do not block each other). SQLite's backup API would restart on every write by another
 * process and might never finish under a steady write load.
 */
import fs from 'node:fs';
import SQLite from 'better-sqlite3';

/** Copies the database `source` to `dest` (which must not exist) as of one moment; returns the copy's size. */
export function copyDatabase(source: string, dest: string, adjust?: (copy: SQLite.Database) => void): number {
  const db = new SQLite(source, { fileMustExist: true });
  try {
    db.pragma('busy_timeout = 30000');
    db.prepare('VACUUM INTO ?').run(dest);
  } finally {
    db.close();
  }
  const copy = new SQLite(dest, { fileMustExist: true });
  try {
    // One self-contained file, whatever journal the source used.
    copy.pragma('journal_mode = DELETE');
    adjust?.(copy);
    const check = copy.pragma('quick_check', { simple: true });
    if (check !== 'ok') throw new Error(`the copy of ${source} fails SQLite's quick_check: ${String(check)}`);
  } finally {
    copy.close();
  }
  return fs.statSync(dest).size;
}

/** The blob ids that rows of a bucket store database reference (object bodies and parts of uploads). */
export function referencedBlobIds(file: string): string[] {
  const db = new SQLite(file, { readonly: true, fileMustExist: true });
  try {
    const rows = db.prepare(
      'SELECT blob_id FROM store_objects WHERE blob_id IS NOT NULL UNION SELECT blob_id FROM store_parts ORDER BY 1',
    ).all() as { blob_id: string }[];
    return rows.map((r) => r.blob_id);
  } finally {
    db.close();
  }
}
