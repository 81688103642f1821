/**
 * A hold on the garbage collection of a running Stratus's embedded bucket store, taken by `stratus backup` from
 * its own process: a `store_leases` row named `gc-hold/<uuid>` in `buckets.sqlite`, valid until a wall-clock
 * time that a timer keeps pushing forward. While it is valid no collector hands out garbage
 * (store/adapters/sqlite-garbage.ts), so every blob that a snapshot taken after {@link GcHold.take} references
 * stays on disk until the hold ends. A hold whose holder dies lapses after its TTL.
 *
 * Invariant: `until` only grows while the row is valid, so a hold found valid by {@link GcHold.check} has been
 * valid without a gap since it was taken, even if this process was blocked (a long `VACUUM INTO`) meanwhile.
 */
import os from 'node:os';
import { randomUUID } from 'node:crypto';
import SQLite from 'better-sqlite3';
import { ConfigError } from '../../config/config.js';
import { GC_HOLD_PREFIX } from '../../store/adapters/sqlite-garbage.js';

/** How long a hold lasts past its last renewal. */
export const GC_HOLD_TTL_MS = 10 * 60 * 1000;
/** How often a live hold is renewed. */
const RENEW_EVERY_MS = 30 * 1000;

/** A taken hold; {@link GcHold.release} ends it. */
export class GcHold {
  private readonly timer: NodeJS.Timeout;
  private lost = false;

  private constructor(private readonly db: SQLite.Database, readonly name: string, private readonly ttlMs: number) {
    this.timer = setInterval(() => this.renew(), Math.min(RENEW_EVERY_MS, ttlMs / 4));
    this.timer.unref();
  }

  /** Takes a hold in the store file `file` (committed when this returns). */
  static take(file: string, ttlMs = GC_HOLD_TTL_MS): GcHold {
    const db = new SQLite(file);
    db.pragma('busy_timeout = 30000');
    // Same statement as the store's schema step 3: a folder whose store predates it gets the table here.
    db.exec('CREATE TABLE IF NOT EXISTS store_leases (name TEXT PRIMARY KEY, holder TEXT NOT NULL, until INTEGER NOT NULL) WITHOUT ROWID');
    const name = `${GC_HOLD_PREFIX}${randomUUID()}`;
    db.prepare('INSERT INTO store_leases (name, holder, until) VALUES (?, ?, ?)').run(name, `stratus backup ${process.pid}@${os.hostname()}`, Date.now() + ttlMs);
    return new GcHold(db, name, ttlMs);
  }

  /** Pushes the end forward, unless the hold already lapsed (then it stays lapsed). */
  private renew(): boolean {
    if (this.lost) return false;
    const now = Date.now();
    const changed = this.db.prepare('UPDATE store_leases SET until = ? WHERE name = ? AND until > ?').run(now + this.ttlMs, this.name, now).changes;
    if (changed === 0) this.lost = true;
    return !this.lost;
  }

  /** Throws when the hold lapsed at any time since it was taken (then blobs may have been collected). */
  check(): void {
    if (!this.renew()) {
      throw new ConfigError(`the backup's hold on garbage collection lapsed (this process was stopped or blocked for over ${Math.round(this.ttlMs / 60_000)} minutes); nothing usable was written, run stratus backup again`);
    }
  }

  /** Ends the hold (the collector resumes at its next pass) and closes the connection. */
  release(): void {
    clearInterval(this.timer);
    try {
      this.db.prepare('DELETE FROM store_leases WHERE name = ?').run(this.name);
    } finally {
      this.db.close();
    }
  }
}
