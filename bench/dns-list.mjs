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
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { apiClient as client, bulkLoad, parseArgs, percentile as pct, startApiServer } from './lib/api-bench.mjs';

const args = parseArgs();
const RECORDS = Number(args.records ?? 100_000);
const LISTS = Number(args.lists ?? 500);
const TARGET_MS = 50;

const rand5 = () => String(10_000 + Math.floor(Math.random() * Math.min(90_000, Math.max(1, RECORDS - 10_000))));

const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'stratus-bench-list-'));
const server = await startApiServer('api', dataDir);
try {
  console.log(`DNS list benchmark (node ${process.version}, ${os.cpus().length} cpus, load average ${os.loadavg()[0].toFixed(1)}; API in a child process)`);
  let { request, close } = client(server.url);
  const account = (await request('GET', '/accounts')).body.result[0].id;
  const zone = (await request('POST', '/zones', { name: 'list.bench.example', account: { id: account } })).body.result;

  const { seconds } = await bulkLoad(dataDir, { id: zone.id, name: zone.name }, RECORDS, 'tagged');
  console.log(`bulk load through the records service: ${RECORDS} records in ${seconds.toFixed(1)} s`);
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
