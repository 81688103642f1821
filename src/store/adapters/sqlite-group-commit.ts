/**
 * Group commit for SQLite writes of better-sqlite3 (synchronous; the zones' `WriteQueue` is the same idea over
 * Kysely's asynchronous transactions): the writes asked for within one turn of the event loop (up to
 * {@link MAX_GROUP}) run in one `BEGIN IMMEDIATE` transaction, each inside its own savepoint, and each caller's promise settles once that
 * transaction has committed. A commit (and the WAL frames it appends) is the largest cost of a small write;
 * with several writes in flight (a script's bucket puts, S3 clients) one commit then serves them all.
 *
 * Invariants:
 * - Each write sees the ones queued before it (they run in order in one transaction), exactly as if they had
 *   run one after another; a write that throws rolls back to its own savepoint and rejects alone.
 * - Nothing resolves before the commit: a commit that fails rejects every write of the batch, none of which
 *   is stored. When SQLite has already rolled the whole transaction back (a full disk, an I/O error), the
 *   batch stops there and every write of it is rejected, rather than letting later writes run outside it.
 */
import type { Database, Transaction } from 'better-sqlite3';

/** Most writes committed together (the zones' write queue takes the same: `zones/write-queue.ts`). */
export const MAX_GROUP = 256;

interface Queued<A extends unknown[], R> {
  args: A;
  resolve: (value: R) => void;
  reject: (err: unknown) => void;
}

/** Queues calls of `write` (a synchronous function of the database) and runs each turn's calls in one transaction. */
export class GroupCommit<A extends unknown[], R> {
  private queue: Queued<A, R>[] = [];
  private readonly single: Transaction<(...args: A) => R>;
  private readonly batch: Transaction<(items: Queued<A, R>[]) => Array<{ ok: true; value: R } | { ok: false; error: unknown }>>;

  constructor(db: Database, write: (...args: A) => R) {
    const single = db.transaction(write);
    this.single = single;
    this.batch = db.transaction((items) =>
      items.map((item) => {
        try {
          // Called inside `batch`, a better-sqlite3 transaction function runs as a savepoint.
          return { ok: true as const, value: single(...item.args) };
        } catch (error) {
          if (!db.inTransaction) throw error; // SQLite rolled the whole transaction back: nothing of it stays
          return { ok: false as const, error };
        }
      }),
    );
  }

  /** Runs `write(...args)` in the next group's transaction; settles after that transaction commits. */
  run(...args: A): Promise<R> {
    return new Promise<R>((resolve, reject) => {
      this.queue.push({ args, resolve, reject });
      if (this.queue.length === 1) setImmediate(() => this.flush());
    });
  }

  private flush(): void {
    const items = this.queue.splice(0, MAX_GROUP);
    if (this.queue.length > 0) setImmediate(() => this.flush());
    if (items.length === 1) {
      const only = items[0]!;
      try {
        only.resolve(this.single.immediate(...only.args));
      } catch (err) {
        only.reject(err);
      }
      return;
    }
    let results: ReturnType<typeof this.batch>;
    try {
      results = this.batch.immediate(items);
    } catch (err) {
      for (const item of items) item.reject(err);
      return;
    }
    results.forEach((r, i) => (r.ok ? items[i]!.resolve(r.value) : items[i]!.reject(r.error)));
  }
}
