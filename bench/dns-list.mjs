#!/usr/bin/env node
/**
 * Records list language benchmark (prints, never asserts). Run after `npm run build`:
 *
 *   node bench/dns-list.mjs [--records 100000] [--lists 500]
 *
 * A zone of `records` records (names host<i>, A and TXT, every 10th with a comment and tags) is bulk-loaded
 * through the records service in the v4 API's database; the API (bench/dns-api-server.mjs, `api` mode) runs
 * in a child process. Each query shape is sent `lists` times, one at a time on a keep-alive connection, and
 * the p50/p99 of the whole HTTP round trip printed:
 * - `name.contains=<5 digits>` (about one match) — the target: p99 under 50 ms on 100,000 records;
 * - `name.contains=host1` (about 11% of the zone: count plus one page of 100);
 * - `content.contains`, `tag.exact`, `comment.contains`, `search`, and the deprecated `name=contains:` form.
 */
import http from 'node:http';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { spawn } from 'node:child_process';
import { loadConfig } from '../dist/config/config.js';
import { openDatabase } from '../dist/db/database.js';
import { RecordsService } from '../dist/zones/records-service.js';
import { ZoneChangeFeed } from '../dist/zones/change-feed.js';
import { systemClock } from '../dist/shared/clock.js';

const args = Object.fromEntries(process.argv.slice(2).reduce((acc, a, i, all) => (a.startsWith('--') ? [...acc, [a.slice(2), all[i + 1]]] : acc), []));
const RECORDS = Number(args.records ?? 100_000);
const LISTS = Number(args.lists ?? 500);
const EMAIL = 'bench@example.com';
const KEY = 'benchkey0123456789abcdef0123456789abc';
const TARGET_MS = 50;

/** Starts the API child; resolves to {url, stop()}. */
function startServer(dataDir) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [path.join(import.meta.dirname, 'dns-api-server.mjs'), 'api', dataDir, EMAIL, KEY], { stdio: ['ignore', 'pipe', 'inherit'] });
    child.once('error', reject);
    child.stdout.once('data', (d) => resolve({
      url: JSON.parse(String(d)).url,
      stop: () => new Promise((r) => { child.once('exit', r); child.kill('SIGTERM'); }),
    }));
  });
}

/** GET/POST on a keep-alive connection. */
function client(url) {
  const { hostname, port } = new URL(url);
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  const request = (method, p, body, headers = {}) => new Promise((resolve, reject) => {
    const payload = body === undefined ? undefined : JSON.stringify(body);
    const req = http.request({ host: hostname, port, method, path: `/client/v4${p}`, agent, headers: {
      'x-auth-email': EMAIL, 'x-auth-key': KEY, ...headers, ...(payload ? { 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload) } : {}),
    } }, (res) => {
      const chunks = [];
      res.on('data', (c) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode, body: JSON.parse(Buffer.concat(chunks).toString('utf8')) }));
    });
    req.on('error', reject);
    if (payload) req.write(payload);
    req.end();
  });
  return { request, close: () => agent.destroy() };
}

const pct = (sorted, p) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
const rand5 = () => String(10_000 + Math.floor(Math.random() * Math.min(90_000, Math.max(1, RECORDS - 10_000))));

const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'stratus-bench-list-'));
const server = await startServer(dataDir);
try {
  console.log(`DNS list benchmark (node ${process.version}, ${os.cpus().length} cpus, load average ${os.loadavg()[0].toFixed(1)}; API in a child process)`);
  let { request, close } = client(server.url);
  const account = (await request('GET', '/accounts')).body.result[0].id;
  const zone = (await request('POST', '/zones', { name: 'list.bench.example', account: { id: account } })).body.result;

  const database = await openDatabase({ dataDir });
  const records = new RecordsService(database.db, systemClock, new ZoneChangeFeed(), { ...loadConfig({}, {}).plan, recordsPerZone: 10_000_000, tagsPerRecord: 20 }, []);
  const tLoad = performance.now();
  for (let start = 0; start < RECORDS; start += 10_000) {
    await records.transaction(zone, async (tx) => {
      for (let i = start; i < Math.min(RECORDS, start + 10_000); i++) {
        const extra = i % 10 === 0 ? { comment: `bench record ${i}`, tags: [`shard:s${i % 100}`, `owner:team${i % 7}`] } : {};
        await tx.create({ type: i % 3 === 0 ? 'TXT' : 'A', name: `host${i}`, content: i % 3 === 0 ? `v=${i}` : `198.51.100.${i % 250 + 1}`, ttl: 1, ...extra }, { apiDate: '2025-06-01', warnings: [] });
      }
    });
  }
  console.log(`bulk load through the records service: ${RECORDS} records in ${((performance.now() - tLoad) / 1000).toFixed(1)} s`);
  await database.close();
  close();
  ({ request, close } = client(server.url));

  const shapes = [
    ['name.contains=<5 digits> (~1 match)', () => `name.contains=${rand5()}`, TARGET_MS],
    ['name.contains=host1 (~11% of the zone, page of 100)', () => 'name.contains=host1'],
    ['name.endswith=<5 digits>.list.bench.example', () => `name.endswith=${rand5()}.list.bench.example`],
    ['content.contains=v=<5 digits>', () => `content.contains=v%3D${rand5()}`],
    ['tag.exact=shard:s<n>', () => `tag.exact=shard%3As${Math.floor(Math.random() * 100)}`],
    ['comment.contains=record <5 digits>', () => `comment.contains=record%20${rand5()}`],
    ['search=<5 digits>', () => `search=${rand5()}`],
    ['name=contains:<5 digits> (deprecated form, api date 2025-01-01)', () => `name=contains:${rand5()}`, undefined, { 'api-version': '2025-01-01' }],
  ];
  for (const [label, query, target, headers] of shapes) {
    const latencies = [];
    for (let i = 0; i < LISTS + 50; i++) {
      const t = performance.now();
      const res = await request('GET', `/zones/${zone.id}/dns_records?${query()}`, undefined, headers);
      const ms = performance.now() - t;
      if (res.status !== 200) throw new Error(`${label}: ${JSON.stringify(res.body).slice(0, 300)}`);
      if (i >= 50) latencies.push(ms);
    }
    latencies.sort((a, b) => a - b);
    const goal = target ? `  target p99 < ${target} ms  ratio ${(pct(latencies, 99) / target).toFixed(2)}` : '';
    console.log(`${label}, ${RECORDS}-record zone, ${LISTS} requests: p50 ${pct(latencies, 50).toFixed(2)} ms  p99 ${pct(latencies, 99).toFixed(2)} ms  max ${latencies.at(-1).toFixed(2)} ms${goal}`);
  }
  close();
} finally {
  await server.stop();
  fs.rmSync(dataDir, { recursive: true, force: true });
}
