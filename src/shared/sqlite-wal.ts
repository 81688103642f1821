/**
 * WAL mode for a better-sqlite3 connection, safe when several processes open a new file at once.
 *
 * `PRAGMA journal_mode = WAL` on a file still in rollback mode reads the schema (a shared lock) and then needs
 * the exclusive lock; when another connection holds a shared lock at that moment, SQLite answers SQLITE_BUSY at
 * once instead of calling the busy handler, because waiting could deadlock
 * (https://www.sqlite.org/lockingv3.html, "deadlock"). Four processes opening one new data folder together hit
 * it. The switch is retried here until it succeeds or `timeoutMs` passes; once a file is in WAL mode the
 * pragma takes no lock and never waits.
 */
import type { Database } from 'better-sqlite3';

const RETRY_MS = 10;

/** Sets `journal_mode = WAL`, retrying SQLITE_BUSY (another connection switching the same new file) for up to `timeoutMs`. */
export function enableWal(db: Database, timeoutMs = 30_000): void {
  const deadline = Date.now() + timeoutMs;
  const pause = new Int32Array(new SharedArrayBuffer(4));
  for (;;) {
    try {
      db.pragma('journal_mode = WAL');
      return;
    } catch (err) {
      if ((err as { code?: string }).code !== 'SQLITE_BUSY' || Date.now() >= deadline) throw err;
      Atomics.wait(pause, 0, 0, RETRY_MS);
    }
  }
}
