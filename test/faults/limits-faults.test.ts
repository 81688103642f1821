/**
 * The limits on abuse fail open when PostgreSQL goes away: with the database refused (a TCP proxy the test
 * controls), requests get the answers they would get without limits (the routes' own 503 + 1280 with
 * Retry-After, never a 500 or a 429 of the limits) and keep their `Ratelimit` count on the node; the failure is
 * counted in the metrics; once the database is back, what the node counted meanwhile reaches the shared table.
 * The server runs on a clock the test holds (its remembered authentication does not expire meanwhile).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { freshPostgresUrl } from '../helpers/postgres.js';
import { ManualClock } from '../helpers/clock.js';
import { startTcpProxy, type TcpProxy } from './tcp-proxy.js';
import { metricSample } from '../helpers/metrics.js';

const WINDOW = 300;
const clock = new ManualClock(new Date((Math.floor(Date.now() / 1000 / WINDOW) * WINDOW + 10) * 1000));
let server: TestServer;
let proxy: TcpProxy;
let url: string;
let drop: () => Promise<void>;
let blobsDir: string;

beforeAll(async () => {
  ({ url, drop } = await freshPostgresUrl('limitfaults'));
  proxy = await startTcpProxy({ host: '127.0.0.1', port: 5432 });
  blobsDir = fs.mkdtempSync(path.join(os.tmpdir(), 'stratus-limitfaults-'));
  server = await startTestServer({ clock, flags: {
    'database-url': url.replace('127.0.0.1:5432', `127.0.0.1:${proxy.port}`), 'blobs-dir': blobsDir, 'database-timeout': '3',
    'rate-limit': '1000', 'auth-failure-limit': '10',
  } });
});

afterAll(async () => {
  await server?.stop();
  await proxy?.close();
  await drop?.();
  fs.rmSync(blobsDir, { recursive: true, force: true });
});

async function get(p: string): Promise<{ status: number; code: number | undefined; ratelimit: string | null; retryAfter: string | null }> {
  const res = await fetch(`${server.apiBase}${p}`, { headers: { 'x-auth-email': server.email, 'x-auth-key': server.key } });
  const body = await res.json() as { errors: { code: number }[] };
  return { status: res.status, code: body.errors[0]?.code, ratelimit: res.headers.get('ratelimit'), retryAfter: res.headers.get('retry-after') };
}

function metric(sample: string): Promise<number> {
  return metricSample(server.running.adminUrl!, sample);
}

async function until(check: () => Promise<boolean>, what: string): Promise<void> {
  const end = Date.now() + 30_000;
  while (!(await check())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

describe('limits while PostgreSQL is away', () => {
  it('answer as without limits, keep counting on the node, and write the counts once the database is back', async () => {
    expect(await get('/zones')).toMatchObject({ status: 200, ratelimit: '"default";r=999;t=290' });
    const failuresBefore = await metric('stratus_limit_store_failures_total');
    proxy.setMode('refuse');
    for (let i = 0; i < 3; i++) {
      const res = await get('/zones');
      expect(res).toMatchObject({ status: 503, code: 1280, retryAfter: '5' });
      expect(res.ratelimit).toBe(`"default";r=${998 - i};t=290`);
    }
    await until(async () => (await metric('stratus_limit_store_failures_total')) > failuresBefore, 'a failed flush to be counted');
    proxy.setMode('pass');
    await until(async () => (await get('/zones')).status === 200, 'the database to answer again');
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      const userId = (await client.query<{ id: string }>('SELECT id FROM users WHERE email = $1', [server.email])).rows[0]!.id;
      await until(async () => {
        const { rows } = await client.query<{ count: string }>('SELECT count FROM rate_counters WHERE key = $1', [`${WINDOW}:v4:user:${userId}`]);
        return Number(rows[0]?.count ?? 0) >= 5; // the first request, the three during the outage and the one after
      }, 'the counts of the outage in the shared table');
    } finally {
      await client.end();
    }
  });
});
