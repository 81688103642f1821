/**
 * Window counters shared by the nodes of one PostgreSQL database (table `rate_counters`, migration 0008),
 * without a database round trip per request:
 *
 * - `add` only counts in memory; every `flushMs` (1 s) one statement per 500 keys upserts what this node added
 *   (`count = count + excluded.count`) and returns the totals, which then include every node's flushed counts;
 *   the other keys it holds are re-read in one SELECT per 500.
 * - `count` answers from memory: the total as last read plus what this node added since. The first time a node
 *   meets a key in a window it reads the key's total once (waiting at most `readTimeoutMs`); the key's total is
 *   then read again at every flush until it has been unused for {@link IDLE_FLUSHES} flushes.
 * - Rows of windows that no limit looks at any more are deleted once a minute.
 *
 * Accuracy: a count misses what other nodes added since their last flush and since this node's last read, so
 * at most about two flush intervals of the other nodes' traffic; never more than was really added (the limit
 * errs towards letting requests through). Counts of one window only grow, so a late answer never lowers one.
 *
 * Failing open: when the database cannot be reached (a fault, shared/faults.ts) or a statement fails, nothing
 * is thrown to the request: counts stay in memory (this node's own counts keep limiting) and are written by
 * the next successful flush; first reads are skipped until a flush succeeds. The failure is logged once per
 * incident and counted (`stratus_limit_store_failures_total`).
 */
import { sql, type Kysely } from 'kysely';
import type { Database } from '../db/schema.js';
import type { Clock } from '../shared/clock.js';
import type { Logger } from '../shared/logger.js';
import { asFault } from '../shared/faults.js';
import { IncidentLog } from '../shared/incident-log.js';
import { recordRateCounterFailure } from '../shared/probes.js';
import { MAX_TRACKED_KEYS, entryKey, expiresAt, type Window, type WindowCounters } from './window-counters.js';

/** Options of {@link SharedCounters}. */
export interface SharedCountersOptions {
  db: Kysely<Database>;
  clock: Clock;
  logger: Logger;
  /** How often counts are written and totals read (ms; default 1000). */
  flushMs?: number;
  /** Longest wait for the first read of a key (ms; default 500): past it the count is this node's own. */
  readTimeoutMs?: number;
}

interface Entry {
  key: string;
  window: Window;
  /** The total as last read from the database (includes this node's flushed counts). */
  shared: number;
  /** Added here, not yet sent. */
  pending: number;
  /** Added here, being sent now. */
  sending: number;
  /** Whether `shared` has been read at least once. */
  known: boolean;
  /** Used since the last flush. */
  touched: boolean;
  /** Flushes since it was last used. */
  idle: number;
  reading?: Promise<void>;
}

/** Rows per statement. */
const CHUNK = 500;
/** Flushes a key is kept (and its total read at each) after its last use. */
const IDLE_FLUSHES = 10;
/** How often expired rows are deleted (ms). */
const CLEANUP_MS = 60_000;
const INCIDENT = 'rate-counters';

/** Counters in PostgreSQL, batched per node. */
export class SharedCounters implements WindowCounters {
  private readonly entries = new Map<string, Entry>();
  private readonly timer: NodeJS.Timeout;
  private readonly incidents: IncidentLog;
  private readonly readTimeoutMs: number;
  private flushing: Promise<void> | undefined;
  private failing = false;
  private cleanedAt = 0;

  constructor(private readonly opts: SharedCountersOptions) {
    this.incidents = new IncidentLog(opts.logger.child({ component: 'limits' }));
    this.readTimeoutMs = opts.readTimeoutMs ?? 500;
    this.timer = setInterval(() => void this.flush(), opts.flushMs ?? 1000);
    this.timer.unref();
  }

  async count(key: string, window: Window): Promise<number> {
    const e = this.entry(key, window);
    if (!e) return 0;
    e.touched = true;
    if (!e.known && !this.failing) await this.firstRead(e);
    return e.shared + e.pending + e.sending;
  }

  add(key: string, window: Window, n = 1): void {
    const e = this.entry(key, window);
    if (!e) return;
    e.pending += n;
    e.touched = true;
  }

  /** Writes pending counts and reads the totals of keys in use (one flush at a time); never throws. */
  flush(): Promise<void> {
    this.flushing ??= this.flushOnce().finally(() => { this.flushing = undefined; });
    return this.flushing;
  }

  async close(): Promise<void> {
    clearInterval(this.timer);
    await this.flushing;
    await this.flush();
  }

  private entry(key: string, window: Window): Entry | undefined {
    const k = entryKey(key, window);
    let e = this.entries.get(k);
    if (!e && this.entries.size < MAX_TRACKED_KEYS) {
      e = { key, window, shared: 0, pending: 0, sending: 0, known: false, touched: false, idle: 0 };
      this.entries.set(k, e);
    }
    return e;
  }

  private firstRead(e: Entry): Promise<void> {
    e.reading ??= this.read([e]).then(
      () => { e.known = true; },
      (err: unknown) => { this.failed(err); },
    ).finally(() => { delete e.reading; });
    let timer: NodeJS.Timeout | undefined;
    // A database slower than this: stop waiting on first reads until the next flush answers.
    const timeout = new Promise<void>((resolve) => { timer = setTimeout(() => { this.failing = true; resolve(); }, this.readTimeoutMs); });
    return Promise.race([e.reading, timeout]).finally(() => clearTimeout(timer));
  }

  private async flushOnce(): Promise<void> {
    const now = this.opts.clock.now().getTime() / 1000;
    const sending: Entry[] = [];
    const reading: Entry[] = [];
    for (const [k, e] of this.entries) {
      e.idle = e.touched ? 0 : e.idle + 1;
      e.touched = false;
      if (e.pending > 0) {
        e.sending += e.pending;
        e.pending = 0;
        sending.push(e);
      } else if (e.sending === 0 && !e.reading && (e.idle >= IDLE_FLUSHES || expiresAt(e.window) <= now)) {
        this.entries.delete(k); // unused for a while, or expired: read afresh when met again
      } else if (!e.reading) {
        reading.push(e);
      }
    }
    try {
      for (let i = 0; i < sending.length; i += CHUNK) await this.write(sending.slice(i, i + CHUNK));
      for (let i = 0; i < reading.length; i += CHUNK) await this.read(reading.slice(i, i + CHUNK));
      if (Date.now() - this.cleanedAt >= CLEANUP_MS) {
        this.cleanedAt = Date.now();
        await this.opts.db.deleteFrom('rate_counters').where('expires_at', '<=', Math.floor(now)).execute();
      }
      if (this.failing) this.incidents.recovered(INCIDENT);
      this.failing = false;
    } catch (err) {
      for (const e of sending) {
        e.pending += e.sending; // kept for the next flush
        e.sending = 0;
      }
      this.failed(err);
    }
  }

  /** Adds the entries' `sending` counts and takes the totals. */
  private async write(entries: Entry[]): Promise<void> {
    const rows = entries.map((e) => ({ key: dbKey(e), window_start: e.window.start, count: e.sending, expires_at: expiresAt(e.window) }));
    const totals = await this.opts.db.insertInto('rate_counters').values(rows)
      .onConflict((oc) => oc.columns(['key', 'window_start']).doUpdateSet({ count: sql<number>`rate_counters.count + excluded.count` }))
      .returning(['key', 'window_start', 'count'])
      .execute();
    const byKey = new Map(totals.map((t) => [`${t.key}\n${t.window_start}`, Number(t.count)]));
    for (const e of entries) {
      const total = byKey.get(`${dbKey(e)}\n${e.window.start}`);
      e.sending = 0;
      if (total !== undefined) e.shared = Math.max(e.shared, total);
      e.known = true;
    }
  }

  /** Reads the entries' totals (absent rows: 0). */
  private async read(entries: Entry[]): Promise<void> {
    const rows = await this.opts.db.selectFrom('rate_counters').select(['key', 'window_start', 'count'])
      .where((eb) => eb.or(entries.map((e) => eb.and([eb('key', '=', dbKey(e)), eb('window_start', '=', e.window.start)]))))
      .execute();
    const byKey = new Map(rows.map((t) => [`${t.key}\n${t.window_start}`, Number(t.count)]));
    for (const e of entries) e.shared = Math.max(e.shared, byKey.get(`${dbKey(e)}\n${e.window.start}`) ?? 0);
  }

  private failed(err: unknown): void {
    this.failing = true;
    recordRateCounterFailure();
    const fault = asFault(err, 'database');
    this.incidents.failure(INCIDENT, err, fault
      ? 'shared rate counters: the database cannot be reached; limits count on this node only until it is back'
      : 'shared rate counters: a statement failed; limits count on this node only until one succeeds');
  }
}

/** The stored key: the window length is part of it, so nodes configured differently never add up. */
function dbKey(e: Entry): string {
  return `${e.window.seconds}:${e.key}`;
}
