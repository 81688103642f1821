/**
 * A real PostgreSQL restart (`pg_ctlcluster … restart`, fast mode: backends terminated, the server down for a
 * moment, then back) under load: `stratus serve` never exits, DNS answers throughout, writes fail with 503 +
 * 1280 at most while the server is away and succeed again within 5 s of its return; nothing acknowledged is
 * lost. The restart is short but touches every database of the machine's cluster, so this is the only test
 * that does it (the proxy tests in postgres-faults.test.ts cover the longer outages). Needs `npm run build`.
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { freshPostgresUrl, withPostgresAdmin } from '../helpers/postgres.js';
import { dig } from '../dns-server/dig.js';
import { spawnStratus, type SpawnedStratus } from './spawn.js';
import { missingRecords, recordWriters, summary, waitUntil } from './load.js';

const run = promisify(execFile);
let drop: () => Promise<void>;
let node: SpawnedStratus;
let dataDir: string;
let zoneId: string;
const ZONE = 'faults-restart.example';

/** The cluster behind 127.0.0.1:5432 (`pg_lsclusters`), or undefined when it cannot be restarted from here. */
async function localCluster(): Promise<{ version: string; name: string } | undefined> {
  try {
    const { stdout } = await run('pg_lsclusters', ['--no-header']);
    const line = stdout.split('\n').map((l) => l.trim().split(/\s+/)).find((f) => f[2] === '5432' && f[3] === 'online');
    return line ? { version: line[0]!, name: line[1]! } : undefined;
  } catch {
    return undefined;
  }
}

beforeAll(async () => {
  let url: string;
  ({ url, drop } = await freshPostgresUrl('restart'));
  dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'stratus-faults-restart-'));
  node = await spawnStratus(dataDir, { 'database-url': url });
  const headers = { 'x-auth-email': node.email, 'x-auth-key': node.key, 'content-type': 'application/json' };
  const account = ((await (await fetch(`${node.apiBase}/accounts`, { headers })).json()) as any).result[0].id;
  zoneId = ((await (await fetch(`${node.apiBase}/zones`, { method: 'POST', headers, body: JSON.stringify({ name: ZONE, account: { id: account } }) })).json()) as any).result.id;
  await fetch(`${node.apiBase}/zones/${zoneId}/dns_records`, { method: 'POST', headers, body: JSON.stringify({ type: 'A', name: 'www', content: '192.0.2.81', ttl: 300 }) });
}, 120_000);

afterAll(async () => {
  if (node && node.child.exitCode === null) {
    node.child.kill('SIGTERM');
    expect(await node.exited).toBe(0);
  }
  await drop?.();
  if (dataDir) fs.rmSync(dataDir, { recursive: true, force: true });
}, 60_000);

it('keeps serving through a PostgreSQL restart and writes again within 5 s of its return', async (ctx) => {
  const cluster = await localCluster();
  if (!cluster) ctx.skip(); // no pg_ctlcluster-managed cluster on 5432 here
  const writers = recordWriters(node, zoneId, 6, 'restart');
  await writers.waitForSuccesses(50);
  await run('pg_ctlcluster', ['--skip-systemctl-redirect', cluster!.version, cluster!.name, 'restart', '-m', 'fast'], { timeout: 60_000 });
  await waitUntil(() => withPostgresAdmin(async () => true).catch(() => false), 30_000, 'PostgreSQL to accept connections');
  const backAt = Date.now();
  const answer = await dig(node.dnsPort, `www.${ZONE}`, 'A');
  expect(answer.answer.join('\n')).toContain('192.0.2.81');
  await writers.waitForSuccesses(20, 30_000);
  const report = await writers.stop();
  const firstAfter = report.successes.find((t) => t >= backAt)!;
  expect(firstAfter - backAt, summary(report)).toBeLessThan(5_000);
  expect(report.malformed, summary(report)).toEqual([]);
  for (const key of report.byStatus.keys()) expect(['200', '503:1280'], summary(report)).toContain(key);
  expect(node.child.exitCode, node.output()).toBeNull();
  expect(await missingRecords(node, zoneId, report.acked)).toEqual([]);
}, 180_000);
