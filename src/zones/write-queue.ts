/**
 * Group commit for record writes. Every write job runs inside a database transaction; jobs that arrive while
 * a transaction is running wait, and the next transaction runs all of them (up to {@link MAX_GROUP}), each
 * inside its own SAVEPOINT: a job that fails is rolled back to its savepoint alone and gets its own error,
 * the others commit together. A lone job runs in a plain transaction. One commit per group instead of one per
 * write is what lets concurrent single-record creates reach thousands per second on SQLite, where the commit
 * dominates the cost of a small write. A group starts one event-loop turn after its first job arrives
 * (`setImmediate`): the requests read in the same turn (SQLite's work is synchronous, so nothing else can
 * arrive while a transaction runs) then join it instead of each paying for a commit.
 *
 * Invariants: jobs run one after another in arrival order, each sees the effects of the jobs before it; a
 * job's promise settles only after its group's commit (or rollback), so callers announce changes after commit.
 * A fault of the store (connection lost, disk full: shared/faults.ts) fails the whole group with that fault:
 * the transaction may already be gone (SQLite rolls back by itself on a full disk, a broken PostgreSQL
 * connection takes its transaction with it), so no job of the group is acknowledged and none is applied.
 *
 * A group whose transaction cannot start (no connection: PostgreSQL refusing or away; the database closed)
 * rejects every job waiting, with the fault, and the next group waits ({@link RetryDelay}: never a retry at
 * once, which would spin on the microtask queue while the store fails without I/O and starve the event
 * loop). Once the database is closed (`db.destroy()`), every waiting and later job is rejected at once.
 */
import { CompiledQuery, type Kysely, type Transaction } from 'kysely';
import type { Database } from '../db/schema.js';
import { asFault, faultOf, isClosedDatabase } from '../shared/faults.js';
import { RetryDelay } from '../shared/retry-delay.js';
import { recordGroupCommit } from '../shared/probes.js';

/** Most jobs committed together. */
export const MAX_GROUP = 256;

/** Savepoint statements, compiled once (the same text on SQLite and PostgreSQL). */
const SAVEPOINT = CompiledQuery.raw('savepoint stratus_write');
const RELEASE = CompiledQuery.raw('release savepoint stratus_write');
const ROLLBACK_TO = CompiledQuery.raw('rollback to savepoint stratus_write');

interface Job {
  fn: (trx: Transaction<Database>) => Promise<unknown>;
  resolve: (value: unknown) => void;
  reject: (err: unknown) => void;
}

type Outcome = { ok: true; value: unknown } | { ok: false; error: unknown };

/** Serializes write transactions of one process and commits concurrent ones together. */
export class WriteQueue {
  private readonly pending: Job[] = [];
  private draining = false;
  /** Waits between groups that could not start. */
  private readonly delay = new RetryDelay();
  /** Set once the database is found closed: the fault every job gets from then on. */
  private closed: unknown;

  constructor(private readonly db: Kysely<Database>) {}

  /** Runs `fn` in a transaction (shared with concurrent jobs); settles after the commit. */
  run<T>(fn: (trx: Transaction<Database>) => Promise<T>): Promise<T> {
    if (this.closed !== undefined) return Promise.reject(this.closed);
    return new Promise<T>((resolve, reject) => {
      this.pending.push({ fn, resolve: resolve as (v: unknown) => void, reject });
      if (!this.draining) {
        this.draining = true;
        setImmediate(() => void this.drain());
      }
    });
  }

  private async drain(): Promise<void> {
    try {
      while (this.pending.length > 0) {
        const wait = this.delay.waitMs();
        if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
        await this.runGroup();
      }
    } finally {
      this.draining = false;
    }
  }

  /**
   * One transaction for the jobs pending once the connection is ours (taken inside the transaction, so that
   * jobs queued while it waited for the connection join this group). A lone job needs no savepoint.
   */
  private async runGroup(): Promise<void> {
    let jobs: Job[] | undefined;
    const outcomes: Outcome[] = [];
    let fault: unknown;
    const started = performance.now();
    try {
      await this.db.transaction().execute(async (trx) => {
        jobs = this.pending.splice(0, MAX_GROUP);
        if (jobs.length === 1) {
          outcomes.push({ ok: true, value: await jobs[0]!.fn(trx) });
          return;
        }
        for (const job of jobs) {
          await trx.executeQuery(SAVEPOINT);
          try {
            const value = await job.fn(trx);
            await trx.executeQuery(RELEASE);
            outcomes.push({ ok: true, value });
          } catch (error) {
            if (faultOf(error)) throw (fault = error);
            await trx.executeQuery(ROLLBACK_TO);
            await trx.executeQuery(RELEASE);
            outcomes.push({ ok: false, error });
          }
        }
      });
    } catch (err) {
      if (jobs === undefined) {
        this.cannotStart(err, started);
        return;
      }
      recordGroupCommit(jobs.length, (performance.now() - started) / 1000, false);
      // The fault that broke the group, not what the rollback after it said.
      for (const job of jobs) job.reject(fault ?? err);
      return;
    }
    this.delay.succeeded();
    const done = jobs ?? [];
    recordGroupCommit(done.length, (performance.now() - started) / 1000, true);
    done.forEach((job, i) => {
      const o = outcomes[i]!;
      if (o.ok) job.resolve(o.value);
      else job.reject(o.error);
    });
  }

  /**
   * The transaction did not start (its callback never ran): every waiting job gets the fault (or, when the
   * failure is none, the error itself) and the next group waits. A closed database closes the queue.
   */
  private cannotStart(err: unknown, started: number): void {
    const reason = asFault(err, 'database') ?? err;
    if (isClosedDatabase(err)) this.closed = reason;
    else this.delay.failed();
    const jobs = this.pending.splice(0);
    recordGroupCommit(jobs.length, (performance.now() - started) / 1000, false);
    for (const job of jobs) job.reject(reason);
  }
}
