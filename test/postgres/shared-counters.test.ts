/**
 * Shared rate counters (src/limits/shared-counters.ts) on the real PostgreSQL: two counter sets on one database
 * (two nodes) see each other's counts after a flush, and a database that cannot be reached (a TCP proxy set to
 * refuse, or stall) never fails a count or an add: counts stay local, the failure is logged once, and what was
 * counted meanwhile is written once the database is back.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase, type OpenDatabase } from '../../src/db/database.js';
import { SharedCounters } from '../../src/limits/shared-counters.js';
import { windowAt } from '../../src/limits/window-counters.js';
import { freshPostgresUrl } from '../helpers/postgres.js';
import { startTcpProxy, type TcpProxy } from '../faults/tcp-proxy.js';
import { captureLogger } from '../helpers/capture-logger.js';
import { ManualClock } from '../helpers/clock.js';

let drop: () => Promise<void>;
let url: string;
let direct: OpenDatabase;
let proxy: TcpProxy;
let proxied: OpenDatabase;
const clock = new ManualClock(new Date(Date.UTC(2026, 0, 1, 12, 0, 10)));
const w = windowAt(clock.now(), 300);

beforeAll(async () => {
  const fresh = await freshPostgresUrl('counters');
  drop = fresh.drop;
  url = fresh.url;
  direct = await openDatabase({ dataDir: '', url });
  proxy = await startTcpProxy({ host: '127.0.0.1', port: 5432 });
  proxied = await openDatabase({ dataDir: '', url: url.replace('127.0.0.1:5432', `127.0.0.1:${proxy.port}`), queryTimeoutMs: 2000 });
});

afterAll(async () => {
  await proxied?.close();
  await proxy?.close();
  await direct?.close();
  await drop?.();
});

/** The stored count of `key` (as shared-counters stores it: prefixed with the window length). */
async function stored(key: string): Promise<number | undefined> {
  const row = await direct.db.selectFrom('rate_counters').select('count').where('key', '=', `300:${key}`).where('window_start', '=', w.start).executeTakeFirst();
  return row === undefined ? undefined : Number(row.count);
}

describe('shared counters', () => {
  it('add up across nodes: a node that meets a key reads its total once, then every flush', async () => {
    const a = new SharedCounters({ db: direct.db, clock, logger: captureLogger().logger, flushMs: 60_000 });
    const b = new SharedCounters({ db: direct.db, clock, logger: captureLogger().logger, flushMs: 60_000 });
    for (let i = 0; i < 3; i++) a.add('k1', w);
    expect(await a.count('k1', w)).toBe(3);
    expect(await b.count('k1', w)).toBe(0); // nothing flushed yet
    await a.flush();
    expect(await stored('k1')).toBe(3);
    b.add('k1', w, 2);
    expect(await b.count('k1', w)).toBe(2); // B read 0 before; it learns A's counts at its next flush
    await b.flush();
    expect(await b.count('k1', w)).toBe(5);
    const c = new SharedCounters({ db: direct.db, clock, logger: captureLogger().logger, flushMs: 60_000 });
    expect(await c.count('k1', w)).toBe(5); // a node meeting the key reads its total at once
    a.add('k1', w);
    await a.flush();
    await c.flush(); // C only read the key: its flush reads it again
    expect(await c.count('k1', w)).toBe(6);
    await Promise.all([a.close(), b.close(), c.close()]);
  });

  it('fail open while the database cannot be reached, and write the counts kept meanwhile when it is back', async () => {
    const { logger, lines } = captureLogger();
    const counters = new SharedCounters({ db: proxied.db, clock, logger, flushMs: 60_000, readTimeoutMs: 200 });
    counters.add('k2', w);
    await counters.flush();
    expect(await stored('k2')).toBe(1);
    proxy.setMode('refuse');
    for (let i = 0; i < 4; i++) counters.add('k2', w);
    expect(await counters.count('k2', w)).toBe(5);
    expect(await counters.count('k3', w)).toBe(0); // a key met during the outage: no wait, no error
    await counters.flush();
    await counters.flush();
    const incident = lines.filter((l) => l.includes('shared rate counters'));
    expect(incident).toHaveLength(1);
    expect(incident[0]).toContain('database cannot be reached');
    expect(await stored('k2')).toBe(1);
    expect(await counters.count('k2', w)).toBe(5);
    proxy.setMode('pass');
    await counters.flush();
    expect(await stored('k2')).toBe(5);
    expect(lines.some((l) => l.includes('rate-counters: recovered'))).toBe(true);
    await counters.close();
  });

  it('stop waiting on first reads once one outlasts its bound (a stalled network), until a flush answers', async () => {
    const counters = new SharedCounters({ db: proxied.db, clock, logger: captureLogger().logger, flushMs: 60_000, readTimeoutMs: 200 });
    proxy.setMode('stall');
    counters.add('k4', w);
    expect(await counters.count('k4', w)).toBe(1); // answered from memory after the bound, without an error
    counters.add('k5', w);
    expect(await counters.count('k5', w)).toBe(1); // no further wait: first reads are skipped meanwhile
    proxy.setMode('pass');
    await counters.flush();
    expect(await stored('k4')).toBe(1);
    expect(await stored('k5')).toBe(1);
    await counters.close();
  });
});
