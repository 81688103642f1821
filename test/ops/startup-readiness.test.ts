/**
 * The admin listener comes up before anything else: a spawned `stratus serve` whose start waits on PostgreSQL
 * (the schema migration lock, held here by another session as a second node migrating would) already answers
 * `/healthz` 200 and `/readyz` 503 naming `starting`, and is ready once the lock is released. Needs `npm run
 * build`.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { freshPostgresUrl } from '../helpers/postgres.js';
import { CLI } from '../faults/spawn.js';
import { waitUntil } from '../faults/load.js';
import { freePort } from '../dns-server/ports.js';

/** Kysely's migration lock on PostgreSQL (kysely/dist/esm/dialect/postgres/postgres-adapter.js). */
const KYSELY_MIGRATION_LOCK = '3853314791062309107';

let child: ChildProcess | undefined;
let drop: (() => Promise<void>) | undefined;
let holder: pg.Client | undefined;
const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'stratus-startup-'));


afterAll(async () => {
  if (child && child.exitCode === null) {
    const done = new Promise((r) => child!.once('exit', r));
    child.kill('SIGKILL');
    await done;
  }
  await holder?.end().catch(() => undefined);
  await drop?.();
  fs.rmSync(dataDir, { recursive: true, force: true });
});

describe('readiness while starting', () => {
  it('answers /healthz and a 503 "starting" /readyz before the stores are open, then becomes ready', async () => {
    if (!fs.existsSync(CLI)) throw new Error(`${CLI} is missing: run npm run build`);
    let url: string;
    ({ url, drop } = await freshPostgresUrl('startup'));
    holder = new pg.Client({ connectionString: url });
    await holder.connect();
    await holder.query(`select pg_advisory_lock(${KYSELY_MIGRATION_LOCK})`);
    const port = await freePort();
    const admin = `http://127.0.0.1:${port}`;
    let out = '';
    child = spawn(process.execPath, [CLI, 'serve', '--data-dir', dataDir, '--database-url', url, '--http', '127.0.0.1:0', '--dns', '127.0.0.1:0',
      '--s3', '127.0.0.1:0', '--admin', `127.0.0.1:${port}`, '--edge', '127.0.0.1:0', '--dns-workers', '0', '--log-level', 'warn'], { stdio: ['ignore', 'pipe', 'pipe'] });
    child.stdout!.on('data', (d: Buffer) => { out += d.toString(); });
    child.stderr!.on('data', (d: Buffer) => { out += d.toString(); });

    await waitUntil(async () => child!.exitCode !== null || (await fetch(`${admin}/healthz`).then((r) => r.ok, () => false)), 60_000, 'the admin listener');
    expect(child.exitCode, out).toBeNull();
    const starting = await fetch(`${admin}/readyz`);
    expect(starting.status).toBe(503);
    expect(await starting.json()).toMatchObject({ status: 'not ready', phase: 'starting', failing: ['starting'] });
    expect(out).not.toMatch(/v4 API listening/);

    await holder.query(`select pg_advisory_unlock(${KYSELY_MIGRATION_LOCK})`);
    await waitUntil(async () => (await fetch(`${admin}/readyz`)).status === 200, 60_000, '/readyz to become ready');
    expect(out).toMatch(/v4 API listening on http/);
  }, 120_000);
});
