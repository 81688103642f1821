/**
 * What the limits on abuse cost on the v4 API's hot path: the same authenticated GET (`/zones?per_page=1`) with
 * the limits off and on (request rate and failed-authentication throttle, limits high enough never to refuse),
 * on the embedded SQLite store (counts in memory) and on PostgreSQL (counts shared through the database),
 * rounds interleaved. Prints requests per second and the ratio on/off of each store, measured in the same run;
 * asserts nothing. Needs `npm run build` (it runs dist/cli.js) and, for PostgreSQL, the machine's server
 * (STRATUS_TEST_POSTGRES, default postgres://postgres@127.0.0.1:5432/postgres; a database of its own, dropped after).
 *
 *   node bench/limits.mjs [--seconds 5] [--concurrency 8] [--rounds 3] [--stores sqlite,postgres]
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { EMAIL, KEY, apiClient, parseArgs } from './lib/api-bench.mjs';

const args = parseArgs();
const SECONDS = Number(args.seconds ?? 5);
const CONCURRENCY = Number(args.concurrency ?? 8);
const ROUNDS = Number(args.rounds ?? 3);
const STORES = (args.stores ?? 'sqlite,postgres').split(',');
const CLI = path.resolve(import.meta.dirname, '..', 'dist', 'cli.js');
const ADMIN_URL = process.env.STRATUS_TEST_POSTGRES ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'stratus-bench-limits-'));

const OFF = { 'rate-limit': '0', 'auth-failure-limit': '0' };
const ON = { 'rate-limit': '100000000', 'auth-failure-limit': '20' };

/** `stratus serve` with `flags`; resolves to {url, stop()} once it prints its v4 URL. */
function serve(dataDir, flags) {
  const all = { 'data-dir': dataDir, http: '127.0.0.1:0', dns: '127.0.0.1:0', s3: 'off', edge: 'off', admin: 'off', 'dns-workers': '0',
    'auth-email': EMAIL, 'auth-key': KEY, 'log-level': 'warn', 'log-format': 'json', ...flags };
  const child = spawn(process.execPath, [CLI, 'serve', ...Object.entries(all).flatMap(([k, v]) => [`--${k}`, v])], { stdio: ['ignore', 'pipe', 'inherit'] });
  return new Promise((resolve, reject) => {
    let out = '';
    child.stdout.on('data', (d) => {
      out += d;
      const m = /v4 API listening on (http:\/\/[^\s"]+)\/client\/v4/.exec(out);
      if (m) resolve({ url: m[1], stop: () => new Promise((r) => { child.once('exit', r); child.kill('SIGTERM'); }) });
    });
    child.once('exit', (code) => reject(new Error(`stratus serve exited with ${code}: ${out.slice(-2000)}`)));
  });
}

/** Requests per second of `CONCURRENCY` clients sending the GET for `SECONDS`. */
async function measure(url) {
  const client = apiClient(url, CONCURRENCY);
  for (let i = 0; i < 50; i++) await client.request('GET', '/zones?per_page=1'); // warm-up
  let done = 0;
  const end = performance.now() + SECONDS * 1000;
  await Promise.all(Array.from({ length: CONCURRENCY }, async () => {
    while (performance.now() < end) {
      const res = await client.request('GET', '/zones?per_page=1');
      if (res.status !== 200) throw new Error(`status ${res.status}: ${JSON.stringify(res.body)}`);
      done++;
    }
  }));
  client.close();
  return done / SECONDS;
}

async function main() {
  for (const store of STORES) {
    let database;
    const extra = {};
    if (store === 'postgres') {
      database = `stratus_bench_limits_${randomBytes(4).toString('hex')}`;
      const admin = new pg.Client({ connectionString: ADMIN_URL });
      await admin.connect();
      await admin.query(`CREATE DATABASE ${database}`);
      await admin.end();
      extra['database-url'] = ADMIN_URL.replace(/\/[^/]*$/, `/${database}`);
      extra['blobs-dir'] = path.join(tmp, 'blobs');
    }
    const rates = { off: [], on: [] };
    try {
      for (let round = 0; round < ROUNDS; round++) {
        for (const mode of round % 2 === 0 ? ['off', 'on'] : ['on', 'off']) {
          const server = await serve(path.join(tmp, `${store}-${mode}`), { ...extra, ...(mode === 'on' ? ON : OFF) });
          try { rates[mode].push(await measure(server.url)); } finally { await server.stop(); }
        }
      }
    } finally {
      if (database) {
        const admin = new pg.Client({ connectionString: ADMIN_URL });
        await admin.connect();
        await admin.query(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`);
        await admin.end();
      }
    }
    const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
    console.log(JSON.stringify({ store, concurrency: CONCURRENCY, seconds: SECONDS, offPerSecond: rates.off.map(Math.round), onPerSecond: rates.on.map(Math.round), ratioOnOff: Number((median(rates.on) / median(rates.off)).toFixed(2)) }));
  }
}

main().catch((err) => { console.error(err); process.exitCode = 1; }).finally(() => fs.rmSync(tmp, { recursive: true, force: true }));
