/**
 * Two nodes on one PostgreSQL share their limits (limits/shared-counters.ts): requests of a user counted on node
 * A count on node B once A has flushed them (within about a second), so B serves only what is left of the
 * user's limit; failed authentications from an address on A make B refuse that address too, even with the
 * right key; another user and another address are served on B meanwhile. Both nodes run on one clock the test
 * holds inside a window, so no window ends during the test.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import Cloudflare from 'cloudflare';
import { Agent, fetch as undiciFetch } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { freshPostgresUrl } from '../helpers/postgres.js';
import { addUser } from '../helpers/users.js';
import { ManualClock } from '../helpers/clock.js';

const WINDOW = 300;
const clock = new ManualClock(new Date((Math.floor(Date.now() / 1000 / WINDOW) * WINDOW + 10) * 1000));
let a: TestServer;
let b: TestServer;
let url: string;
let drop: () => Promise<void>;
let blobsDir: string;
let client: pg.Client;

beforeAll(async () => {
  const fresh = await freshPostgresUrl('limits');
  url = fresh.url;
  drop = fresh.drop;
  blobsDir = fs.mkdtempSync(path.join(os.tmpdir(), 'stratus-limits-'));
  const flags = { 'database-url': url, 'blobs-dir': blobsDir, 'rate-limit': '6', 'auth-failure-limit': '3', 'rate-limit-window': String(WINDOW), 'auth-failure-window': String(WINDOW) };
  a = await startTestServer({ flags, clock });
  b = await startTestServer({ flags, clock });
  client = new pg.Client({ connectionString: url });
  await client.connect();
});

afterAll(async () => {
  await client?.end();
  await b?.stop();
  await a?.stop();
  await drop?.();
  fs.rmSync(blobsDir, { recursive: true, force: true });
});

/** `check()`'s value once it stops throwing (every 50 ms, for at most 30 s). */
async function eventually<T>(check: () => Promise<T>): Promise<T> {
  const end = Date.now() + 30_000;
  for (;;) {
    try {
      return await check();
    } catch (err) {
      if (Date.now() > end) throw err;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }
}

/** The shared count of `key` in the current window, once it is at least `atLeast`. */
async function sharedCount(key: string, atLeast: number): Promise<number> {
  const start = Math.floor(clock.now().getTime() / 1000 / WINDOW) * WINDOW;
  return eventually(async () => {
    const { rows } = await client.query<{ count: string }>('SELECT count FROM rate_counters WHERE key = $1 AND window_start = $2', [`${WINDOW}:${key}`, start]);
    const n = Number(rows[0]?.count ?? 0);
    if (n < atLeast) throw new Error(`${key}: ${n} of ${atLeast}`);
    return n;
  });
}

const sdk = (node: TestServer, key: string, from = '127.0.0.1', email = node.email) =>
  new Cloudflare({ apiEmail: email, apiKey: key, baseURL: node.apiBase, maxRetries: 0, fetch: ((u: string, init?: RequestInit) => undiciFetch(u, { ...(init as object), dispatcher: new Agent({ localAddress: from }) })) as unknown as typeof fetch });
const outcome = (p: Promise<unknown>) => p.then(() => 'ok', (e: unknown) => (e instanceof Cloudflare.RateLimitError ? 'limited' : `failed: ${String(e)}`));

describe('limits shared by two nodes on PostgreSQL', () => {
  it("a user's requests on A count on B", async () => {
    const adminId = (await client.query<{ id: string }>('SELECT id FROM users WHERE email = $1', [a.email])).rows[0]!.id;
    for (let i = 0; i < 4; i++) expect(await outcome(sdk(a, a.key).zones.list())).toBe('ok');
    expect(await sharedCount(`v4:user:${adminId}`, 4)).toBe(4);
    const onB: string[] = [];
    for (let i = 0; i < 4; i++) onB.push(await outcome(sdk(b, b.key).zones.list()));
    expect(onB).toEqual(['ok', 'ok', 'limited', 'limited']); // 6 in all
    const other = await addUser(b, 'shared-second@example.com', undefined, { databaseUrl: url });
    expect(await outcome(other.sdk().accounts.list())).toBe('ok');
  });

  it('failed authentications from an address on A make B refuse it, even with the right key', async () => {
    for (let i = 0; i < 3; i++) expect(await outcome(sdk(a, 'e'.repeat(37), '127.0.0.2').zones.list())).toMatch(/^failed: .*9103/);
    expect(await sharedCount('auth:127.0.0.2', 3)).toBe(3);
    const other = await addUser(b, 'shared-third@example.com', undefined, { databaseUrl: url });
    expect(await outcome(sdk(b, other.key, '127.0.0.2', other.email).accounts.list())).toBe('limited');
    expect(await outcome(sdk(b, other.key, '127.0.0.5', other.email).accounts.list())).toBe('ok');
  });
});
