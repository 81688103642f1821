/**
 * The record write queue (src/zones/write-queue.ts) on a real PostgreSQL whose transactions cannot start: a
 * database of the test's own that refuses new connections (`ALTER DATABASE … ALLOW_CONNECTIONS false`, as in
 * maintenance or a failover), then a destroyed Kysely instance. Jobs are rejected with the fault (503 + 1280),
 * the queue waits between attempts instead of retrying at once, the event loop keeps running, and once the
 * database is closed every job is rejected at once.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { sql } from 'kysely';
import { openDatabase, type OpenDatabase } from '../../src/db/database.js';
import { WriteQueue } from '../../src/zones/write-queue.js';
import { UnavailableError, type FaultComponent } from '../../src/shared/faults.js';
import { FIRST_RETRY_DELAY_MS, MAX_RETRY_DELAY_MS } from '../../src/shared/retry-delay.js';
import { freshPostgresUrl, withPostgresAdmin } from '../helpers/postgres.js';
import { waitUntil } from '../faults/load.js';

let database: OpenDatabase;
let drop: () => Promise<void>;
let name: string;
/** Connection attempts and queries that failed with a fault (the fault dialect reports each one). */
const downs: unknown[] = [];

beforeAll(async () => {
  let url: string;
  ({ url, drop } = await freshPostgresUrl('wq'));
  name = new URL(url).pathname.slice(1);
  database = await openDatabase({
    dataDir: '', url,
    health: { down: (_c: FaultComponent, err: unknown) => { downs.push(err); }, up: () => {} },
  });
}, 60_000);

afterAll(async () => {
  await database?.close();
  await drop?.();
}, 60_000);

/** A job that inserts one account (a real write). */
const insert = (id: string) => (trx: Parameters<Parameters<WriteQueue['run']>[0]>[0]) =>
  trx.insertInto('accounts').values({ id, name: id, settings: '{}', created_on: 'now' }).execute();

/** The SQLSTATE of the driver error under a fault. */
const sqlState = (err: unknown): unknown => ((err as { cause?: { code?: unknown } }).cause)?.code;

it('a database refusing connections: every waiting job gets 503 + 1280, the next attempt waits, the event loop runs; writes resume when it accepts again', async () => {
  const q = new WriteQueue(database.db);
  await q.run(insert('before'));
  await withPostgresAdmin(async (c) => {
    await c.query(`ALTER DATABASE ${name} ALLOW_CONNECTIONS false`);
    await c.query('SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()', [name]);
  });
  // The pool drops its terminated connections as their notices arrive; from then on every query needs a new one.
  await waitUntil(() => sql`SELECT 1`.execute(database.db).then(() => false, (err: unknown) => sqlState(err) === '55000'), 30_000, 'new connections to be refused');

  let ticks = 0;
  const ticker = setInterval(() => { ticks++; }, 1);
  try {
    const downsBefore = downs.length;
    const first = await Promise.allSettled(['a', 'b', 'c'].map((id) => q.run(insert(id))));
    for (const r of first) {
      expect(r.status).toBe('rejected');
      const reason = (r as PromiseRejectedResult).reason;
      expect(reason).toBeInstanceOf(UnavailableError);
      expect(reason).toMatchObject({ code: 1280, status: 503, retryAfterSeconds: 5 });
      expect(sqlState(reason)).toBe('55000');
    }
    // One attempt for the three jobs that waited together.
    expect(downs.length - downsBefore).toBe(1);

    // Jobs one after another, each sent as soon as the previous one failed: each attempt waits longer than the
    // one before (never a retry at once), and timers keep firing in between.
    const attempts = 5;
    const startedAt = Date.now();
    const ticksBefore = ticks;
    for (let i = 0; i < attempts; i++) await expect(q.run(insert(`retry${i}`))).rejects.toBeInstanceOf(UnavailableError);
    const elapsed = Date.now() - startedAt;
    let waited = 0;
    for (let i = 0; i < attempts; i++) waited += Math.min(MAX_RETRY_DELAY_MS, FIRST_RETRY_DELAY_MS * 2 ** i);
    expect(elapsed).toBeGreaterThanOrEqual(waited - 5);
    expect(downs.length - downsBefore).toBe(1 + attempts);
    expect(ticks).toBeGreaterThan(ticksBefore);
  } finally {
    clearInterval(ticker);
    await withPostgresAdmin((c) => c.query(`ALTER DATABASE ${name} ALLOW_CONNECTIONS true`));
  }
  await q.run(insert('after'));
  const ids = (await database.db.selectFrom('accounts').select('id').orderBy('id').execute()).map((r) => r.id);
  expect(ids).toEqual(['after', 'before']);
}, 60_000);

it('closing the database: a job waiting for a connection is rejected at once with the fault, and so is every later job', async () => {
  const q = new WriteQueue(database.db);
  await q.run(insert('last'));
  // Every connection of the pool (10) busy, so the next group waits for one inside the pool.
  let release!: () => void;
  const gate = new Promise<void>((resolve) => { release = resolve; });
  let held = 0;
  const holders = Array.from({ length: 10 }, () => database.db.connection().execute(async () => { held++; await gate; }));
  await waitUntil(() => held === 10, 30_000, 'the pool to be busy');
  let closing: Promise<void> | undefined;
  try {
    const waiting = [q.run(insert('w1')), q.run(insert('w2'))];
    // The group asks the pool for a connection in the turn after the jobs arrived.
    await new Promise((resolve) => setImmediate(resolve));
    await new Promise((resolve) => setImmediate(resolve));
    closing = database.db.destroy();
    // Rejected while the pool's connections are still held: not after pg-pool's connection timeout.
    for (const r of await Promise.allSettled(waiting)) {
      expect(r.status).toBe('rejected');
      const reason = (r as PromiseRejectedResult).reason;
      expect(reason).toBeInstanceOf(UnavailableError);
      expect(reason).toMatchObject({ code: 1280, status: 503 });
      expect(String(reason.cause?.message)).toMatch(/after calling end|destroyed/);
    }
    expect(held).toBe(10);
    // A later job is rejected before the event loop turns once more (no attempt, no timer).
    const order: string[] = [];
    const later = q.run(insert('late')).catch((err: unknown) => { order.push('rejected'); return err; });
    setImmediate(() => order.push('next turn'));
    expect(await later).toBeInstanceOf(UnavailableError);
    await new Promise((resolve) => setImmediate(resolve));
    expect(order).toEqual(['rejected', 'next turn']);
  } finally {
    release();
  }
  await Promise.all(holders);
  await closing;
});
