/**
 * `stratus serve` on a PostgreSQL database that refuses new connections (`ALTER DATABASE … ALLOW_CONNECTIONS
 * false`: maintenance, a failover): a record create answers 503 + 1280 with `Retry-After` (it answered 500, or
 * never), and SIGTERM ends the process within `--shutdown-timeout` with writers still sending (the record write
 * queue used to retry the refused transaction forever and starve the event loop, so no signal was handled).
 * Each test has a database of its own, dropped at the end. Needs `npm run build`.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { freshPostgresUrl, withPostgresAdmin } from '../helpers/postgres.js';
import { spawnStratus, type SpawnedStratus } from './spawn.js';
import { recordWriters, summary } from './load.js';

const cleanups: Array<() => Promise<void>> = [];

afterEach(async () => {
  for (const clean of cleanups.splice(0).reverse()) await clean();
}, 60_000);

/** A served database of its own, with one zone; `refuse()` makes PostgreSQL refuse its new connections and ends its open ones. */
async function start(flags: Record<string, string> = {}): Promise<{ node: SpawnedStratus; zoneId: string; refuse(): Promise<void> }> {
  const { url, drop } = await freshPostgresUrl('refusing');
  cleanups.push(drop);
  const dbName = new URL(url).pathname.slice(1);
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'stratus-faults-refusing-'));
  cleanups.push(async () => fs.rmSync(dataDir, { recursive: true, force: true }));
  const node = await spawnStratus(dataDir, { 'database-url': url, ...flags });
  cleanups.push(async () => { if (node.child.exitCode === null) { node.child.kill('SIGKILL'); await node.exited; } });
  const headers = { 'x-auth-email': node.email, 'x-auth-key': node.key, 'content-type': 'application/json' };
  const account = ((await (await fetch(`${node.apiBase}/accounts`, { headers })).json()) as any).result[0].id;
  const zoneId = ((await (await fetch(`${node.apiBase}/zones`, { method: 'POST', headers, body: JSON.stringify({ name: 'refusing.example', account: { id: account } }) })).json()) as any).result.id;
  const refuse = () => withPostgresAdmin(async (c) => {
    await c.query(`ALTER DATABASE ${dbName} ALLOW_CONNECTIONS false`);
    await c.query('SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()', [dbName]);
  });
  return { node, zoneId, refuse };
}

it('a record create while PostgreSQL refuses connections answers 503 + 1280 with Retry-After', async () => {
  const { node, zoneId, refuse } = await start();
  await refuse();
  const res = await fetch(`${node.apiBase}/zones/${zoneId}/dns_records`, {
    method: 'POST',
    headers: { 'x-auth-email': node.email, 'x-auth-key': node.key, 'content-type': 'application/json' },
    body: JSON.stringify({ type: 'A', name: 'www', content: '192.0.2.1', ttl: 300 }),
  });
  const body = (await res.json()) as { success: boolean; errors: Array<{ code: number; message: string }> };
  expect(res.status, JSON.stringify(body)).toBe(503);
  expect(body.success).toBe(false);
  expect(body.errors[0]!.code).toBe(1280);
  expect(res.headers.get('retry-after')).toBe('5');
  // And the same for every write after it, not only the first.
  const writers = recordWriters(node, zoneId, 4, 'refused');
  await writers.waitForStatus(503);
  const report = await writers.stop();
  expect(report.malformed, summary(report)).toEqual([]);
  expect([...report.byStatus.keys()], summary(report)).toEqual(['503:1280']);
  expect(node.child.exitCode, node.output()).toBeNull();
}, 120_000);

it('SIGTERM ends the process (exit 0) within --shutdown-timeout while PostgreSQL refuses connections and writers keep sending', async () => {
  const shutdownSeconds = 10;
  const { node, zoneId, refuse } = await start({ 'shutdown-timeout': String(shutdownSeconds), 'log-level': 'info' });
  const writers = recordWriters(node, zoneId, 8, 'stop');
  await writers.waitForSuccesses(20);
  await refuse();
  await writers.waitForStatus(503);
  const signalledAt = Date.now();
  node.child.kill('SIGTERM');
  const code = await node.exited;
  const tookMs = Date.now() - signalledAt;
  const report = await writers.stop();
  expect(code, node.output()).toBe(0);
  expect(tookMs, node.output().slice(-4000)).toBeLessThan(shutdownSeconds * 1000);
  expect(report.malformed, summary(report)).toEqual([]);
}, 120_000);
