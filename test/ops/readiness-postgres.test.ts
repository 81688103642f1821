/**
 * `/readyz` of a spawned `stratus serve` on PostgreSQL reached through a TCP proxy the test controls
 * (test/faults/tcp-proxy.ts): ready; 503 naming the database (and the migrations it cannot check) while the
 * database refuses connections and while the network stalls, answered within the probe deadline either way;
 * ready again once the database is back. `/healthz` stays 200 throughout, and the metrics count the faults
 * and the pools' connections. Needs `npm run build`.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freshPostgresUrl } from '../helpers/postgres.js';
import { startTcpProxy, type TcpProxy } from '../faults/tcp-proxy.js';
import { spawnStratus, type SpawnedStratus } from '../faults/spawn.js';
import { waitUntil } from '../faults/load.js';

let drop: () => Promise<void>;
let proxy: TcpProxy;
let node: SpawnedStratus;
let dataDir: string;

interface Report { status: string; phase: string; failing: string[]; checks: Record<string, { ok: boolean; detail?: string }> }

async function readyz(): Promise<{ status: number; body: Report; ms: number }> {
  const started = Date.now();
  const res = await fetch(`${node.adminUrl}/readyz`);
  return { status: res.status, body: await res.json() as Report, ms: Date.now() - started };
}

async function metric(name: string, labels: string): Promise<number> {
  const text = await (await fetch(`${node.adminUrl}/metrics`)).text();
  const line = text.split('\n').find((l) => l.startsWith(`${name}{${labels}}`));
  return line ? Number(line.slice(line.lastIndexOf(' ') + 1)) : 0;
}

beforeAll(async () => {
  let url: string;
  ({ url, drop } = await freshPostgresUrl('readyz'));
  const target = new URL(url);
  proxy = await startTcpProxy({ host: target.hostname, port: Number(target.port || 5432) });
  target.host = `127.0.0.1:${proxy.port}`;
  dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'stratus-readyz-pg-'));
  node = await spawnStratus(dataDir, { 'database-url': target.toString(), 'database-timeout': '3' });
}, 120_000);

afterAll(async () => {
  node?.child.kill('SIGKILL');
  await node?.exited;
  await proxy?.close();
  await drop?.();
  if (dataDir) fs.rmSync(dataDir, { recursive: true, force: true });
});

describe('readiness on PostgreSQL through a controllable proxy', () => {
  it('is ready with every part up, and shows the pools in the metrics', async () => {
    expect(node.adminUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    const r = await readyz();
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ status: 'ready', phase: 'serving', failing: [] });
    expect(r.body.checks.database).toEqual({ ok: true });
    expect(await metric('stratus_database_pool_connections', 'pool="core",state="idle"') + await metric('stratus_database_pool_connections', 'pool="core",state="in_use"')).toBeGreaterThanOrEqual(1);
  });

  it('answers 503 naming the database while it refuses connections, and 200 once it is back', async () => {
    const faultsBefore = await metric('stratus_backend_faults_total', 'component="database"');
    proxy.setMode('refuse');
    let r = await readyz();
    await waitUntil(async () => (r = await readyz()).status === 503, 15_000, '/readyz to fail');
    expect(r.body.status).toBe('not ready');
    expect(r.body.failing).toEqual(expect.arrayContaining(['database', 'migrations']));
    expect(r.body.failing).not.toContain('dns');
    expect(r.body.checks.database!.ok).toBe(false);
    expect(r.body.checks.database!.detail).toBeTruthy();
    expect(r.body.checks.dns!.ok).toBe(true);
    expect((await fetch(`${node.adminUrl}/healthz`)).status).toBe(200);
    expect(await metric('stratus_backend_faults_total', 'component="database"')).toBeGreaterThan(faultsBefore);

    proxy.setMode('pass');
    await waitUntil(async () => (await readyz()).status === 200, 20_000, '/readyz to recover');
    expect((await readyz()).body.failing).toEqual([]);
  }, 60_000);

  it('answers within its deadline while the network stalls (503 naming the database), then recovers', async () => {
    proxy.setMode('stall');
    proxy.cut();
    let r = await readyz();
    await waitUntil(async () => (r = await readyz()).status === 503, 15_000, '/readyz to fail on a stall');
    expect(r.ms).toBeLessThan(5_000);
    expect(r.body.failing).toContain('database');
    expect(r.body.checks.database!.detail).toMatch(/no answer within|still waiting|connect|timeout|terminated/i);
    proxy.setMode('pass');
    await waitUntil(async () => (await readyz()).status === 200, 30_000, '/readyz to recover after the stall');
  }, 60_000);
});
