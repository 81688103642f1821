#!/usr/bin/env node
/**
 * DNS API benchmark (prints, never asserts). Run after `npm run build`:
 *
 *   node bench/dns-api.mjs [--creates 5000] [--concurrency 8] [--records 100000] [--lists 2000] [--mode full|api|both]
 *
 * The server runs in a child process (bench/dns-api-server.mjs): `full` is the whole service (v4 API and the
 * DNS server listening on the change feed), `api` the v4 API alone; `both` (default) measures each.
 * 1. Single-record creates per second over HTTP: POST /zones/:id/dns_records, `concurrency` requests in
 *    flight on keep-alive connections, each its own transaction.
 * 2. List latency by exact name on a zone of `records` records: GET /zones/:id/dns_records?name=<full name>,
 *    one request at a time on a keep-alive connection; p50/p99 of the whole HTTP round trip. The zone is
 *    bulk-loaded through the records service (one transaction per 10,000 records), not raw SQL.
 *
 * Targets from issue 2 (2-core machine): at least 2,000 creates/s; p99 list by name under 5 ms.
 */
import http from 'node:http';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { loadConfig } from '../dist/config/config.js';
import { spawn } from 'node:child_process';
import dgram from 'node:dgram';
import dnsPacket from 'dns-packet';
import { openDatabase } from '../dist/db/database.js';
import { RecordsService } from '../dist/zones/records-service.js';
import { ZoneChangeFeed } from '../dist/zones/change-feed.js';
import { systemClock } from '../dist/shared/clock.js';

const args = Object.fromEntries(process.argv.slice(2).reduce((acc, a, i, all) => (a.startsWith('--') ? [...acc, [a.slice(2), all[i + 1]]] : acc), []));
const CREATES = Number(args.creates ?? 5000);
const CONCURRENCY = Number(args.concurrency ?? 8);
const RECORDS = Number(args.records ?? 100_000);
const LISTS = Number(args.lists ?? 2000);
const EMAIL = 'bench@example.com';
const KEY = 'benchkey0123456789abcdef0123456789abc';

const MODES = (args.mode ?? 'both') === 'both' ? ['api', 'full'] : [args.mode];

/** Starts the server child; resolves to {url, stop()}. */
function startServer(mode, dataDir) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [...(process.env.BENCH_SERVER_NODE_ARGS ?? '').split(' ').filter(Boolean), path.join(import.meta.dirname, 'dns-api-server.mjs'), mode, dataDir, EMAIL, KEY], { stdio: ['ignore', 'pipe', 'inherit'] });
    child.once('error', reject);
    child.stdout.once('data', (d) => resolve({
      ...JSON.parse(String(d)),
      stop: () => new Promise((r) => { child.once('exit', r); child.kill('SIGTERM'); }),
    }));
  });
}

/** A v4 client on keep-alive connections. */
function client(url) {
  const { hostname, port } = new URL(url);
  const agent = new http.Agent({ keepAlive: true, maxSockets: CONCURRENCY });
  const request = (method, p, body) => new Promise((resolve, reject) => {
    const payload = body === undefined ? undefined : JSON.stringify(body);
    const req = http.request({ host: hostname, port, method, path: `/client/v4${p}`, agent, headers: {
      'x-auth-email': EMAIL, 'x-auth-key': KEY, ...(payload ? { 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload) } : {}),
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

console.log(`DNS API benchmark (node ${process.version}, ${os.cpus().length} cpus, load average ${os.loadavg()[0].toFixed(1)}; server in a child process)`);
for (const mode of MODES) {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'stratus-bench-'));
  const server = await startServer(mode, dataDir);
  try {
    await runOne(mode, dataDir, server.url, server.dnsPort);
  } finally {
    await server.stop();
    fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

/** The SOA serial the DNS server answers for a zone (undefined when it has no answer yet). */
function soaSerial(dnsPort, zone) {
  return new Promise((resolve) => {
    const socket = dgram.createSocket('udp4');
    const timer = setTimeout(() => { socket.close(); resolve(undefined); }, 1000);
    socket.on('message', (msg) => {
      clearTimeout(timer);
      socket.close();
      const soa = dnsPacket.decode(msg).answers.find((a) => a.type === 'SOA');
      resolve(soa ? soa.data.serial : undefined);
    });
    socket.send(dnsPacket.encode({ type: 'query', id: 1, questions: [{ type: 'SOA', name: zone }] }), dnsPort, '127.0.0.1');
  });
}

async function runOne(mode, dataDir, url, dnsPort) {
  let { request, close } = client(url);
  const account = (await request('GET', '/accounts')).body.result[0].id;
  const zoneOf = async (name) => (await request('POST', '/zones', { name, account: { id: account } })).body.result;

  // 1. creates/s
  const createZone = await zoneOf('creates.bench.example');
  let next = 0;
  let failures = 0;
  const worker = async () => {
    while (next < CREATES) {
      const i = next++;
      const res = await request('POST', `/zones/${createZone.id}/dns_records`, { type: 'A', name: `h${i}`, content: `192.0.2.${i % 250 + 1}`, ttl: 1 });
      if (res.status !== 200) failures++;
    }
  };
  for (let i = 0; i < 200; i++) await request('GET', `/zones/${createZone.id}`); // warm up
  const t0 = performance.now();
  await Promise.all(Array.from({ length: CONCURRENCY }, worker));
  const seconds = (performance.now() - t0) / 1000;
  const rate = CREATES / seconds;
  console.log(`[${mode}] creates over HTTP: ${CREATES} in ${seconds.toFixed(2)} s = ${rate.toFixed(0)} creates/s (concurrency ${CONCURRENCY}, keep-alive, ${failures} failures)  target >= 2000/s  ratio ${(rate / 2000).toFixed(2)}`);

  // 2. list by exact name on a big zone
  const big = await zoneOf('big.bench.example');
  const database = await openDatabase({ dataDir });
  const records = new RecordsService(database.db, systemClock, new ZoneChangeFeed(), { ...loadConfig({}, {}).plan, recordsPerZone: 10_000_000 }, []);
  const tLoad = performance.now();
  for (let start = 0; start < RECORDS; start += 10_000) {
    await records.transaction(big, async (tx) => {
      for (let i = start; i < Math.min(RECORDS, start + 10_000); i++) {
        await tx.create({ type: i % 3 === 0 ? 'TXT' : 'A', name: `host${i}`, content: i % 3 === 0 ? `v=${i}` : `198.51.100.${i % 250 + 1}`, ttl: 1 }, { apiDate: '2025-06-01', warnings: [] });
      }
    });
  }
  const loadSeconds = (performance.now() - tLoad) / 1000;
  const { serial } = await database.db.selectFrom('zones').select('serial').where('id', '=', big.id).executeTakeFirstOrThrow();
  await database.close();
  // The full service's DNS server picks the bulk load up by polling serials (the load ran in this process):
  // measure the list once it has caught up, so that its snapshot rebuild does not overlap the measurement.
  let catchUp = '';
  if (dnsPort !== undefined) {
    const tWait = performance.now();
    while (performance.now() - tWait < 300_000 && ((await soaSerial(dnsPort, 'big.bench.example')) ?? 0) < Number(serial)) await new Promise((r) => setTimeout(r, 200));
    catchUp = `; DNS server caught up ${((performance.now() - tWait) / 1000).toFixed(1)} s later`;
  }
  // Connections idle during the load may have been closed by the server's keep-alive timeout: start afresh.
  close();
  ({ request, close } = client(url));

  const latencies = [];
  for (let i = 0; i < LISTS + 200; i++) {
    const n = Math.floor(Math.random() * RECORDS);
    const t = performance.now();
    const res = await request('GET', `/zones/${big.id}/dns_records?name=host${n}.big.bench.example`);
    const ms = performance.now() - t;
    if (res.status !== 200 || res.body.result.length !== 1) throw new Error(`list by name failed: ${JSON.stringify(res.body).slice(0, 300)}`);
    if (i >= 200) latencies.push(ms);
  }
  latencies.sort((a, b) => a - b);
  const full = await request('GET', `/zones/${big.id}/dns_records?per_page=1`);
  console.log(`[${mode}] bulk load through the records service: ${RECORDS} records in ${loadSeconds.toFixed(1)} s (zone total ${full.body.result_info.total_count}${catchUp})`);
  close();
  console.log(`[${mode}] list by exact name, ${RECORDS}-record zone, ${LISTS} requests: p50 ${pct(latencies, 50).toFixed(3)} ms  p99 ${pct(latencies, 99).toFixed(3)} ms  max ${latencies.at(-1).toFixed(3)} ms  target p99 < 5 ms  ratio ${(pct(latencies, 99) / 5).toFixed(2)}`);
}
