#!/usr/bin/env node
/**
 * The DNS thread's zone structures alone, without a server (issue 19's memory and latency-tail harness): builds
 * a zone of BENCH_RECORDS A records the way the DNS thread does (structured-cloned changesets of 1,000 records
 * into a ZoneTree), then prints the V8 heap and RSS it costs per record, and, while BENCH_WRITES single-record
 * changesets a second are applied, the latency of queries answered as the DNS thread answers them (DnsHandler:
 * packet cache, lookup, encoding; cached answers dropped per changed name) and the GC pauses (perf_hooks).
 * Needs `npm run build` (reads dist/). Prints, never asserts.
 *
 *   npx node --expose-gc bench/zone-memory.mjs   (BENCH_RECORDS=200000 BENCH_SECONDS=5 BENCH_WRITES=100 BENCH_QPS=5000;
 *   BENCH_YOUNG_MB=<n>: run in a worker thread whose young generation is capped at n MiB, as the DNS thread's is;
 *   BENCH_CHURN=1: each write creates a record and deletes the one before (the zone keeps its size), and the
 *   heap and RSS are printed every 10 s, to see that they stay flat)
 */
import path from 'node:path';
import fs from 'node:fs';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { Worker, isMainThread } from 'node:worker_threads';
import { startProbe } from './lib/thread-probe-core.mjs';

if (isMainThread && process.env.BENCH_YOUNG_MB) {
  const w = new Worker(fileURLToPath(import.meta.url), { resourceLimits: { maxYoungGenerationSizeMb: Number(process.env.BENCH_YOUNG_MB) } });
  await new Promise((resolve) => w.once('exit', resolve));
  process.exit();
}
const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const dist = (p) => import(pathToFileURL(path.join(ROOT, 'dist', p)).href);
const { ZoneTree } = await dist('dns/zone-tree.js');
const { readServingSettings } = await dist('dns/snapshot-settings.js');
const { DnsHandler } = await dist('dns-server/handler.js');
const { ZoneSet } = await dist('dns-server/zone-set.js');
const { createLogger } = await dist('shared/logger.js');
const { queryPacket } = await import('./lib/big-zone-dns.mjs');

const RECORDS = Number(process.env.BENCH_RECORDS ?? 200_000);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const WRITES = Number(process.env.BENCH_WRITES ?? 100);
const QPS = Number(process.env.BENCH_QPS ?? 5000);
const ORIGIN = 'big.example';
const NS = ['ns1.stratus.invalid', 'ns2.stratus.invalid'];
const EDGE = { ipv4: ['192.0.2.10'], ipv6: ['2001:db8::10'] };

if (!globalThis.gc) { console.error('run with --expose-gc'); process.exit(1); }
const mib = (b) => (b / 1048576).toFixed(1);
const anon = () => Number(/RssAnon:\s+(\d+)/.exec(fs.readFileSync('/proc/self/status', 'utf8'))?.[1] ?? 0) * 1024;
const settle = () => { for (let i = 0; i < 3; i++) globalThis.gc(); return process.memoryUsage(); };
const id = (i) => `${(0x10000000 + i).toString(16)}${'0'.repeat(24)}`;
const record = (i, name = `h${i}.${ORIGIN}`) => ({ id: id(i), name, type: 'A', content: `10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}`, data: null, priority: null, ttl: 300, proxied: false, settings: {} });

const zone = { id: 'z1', name: ORIGIN, serial: 1, nameServers: NS, settings: readServingSettings(null, null, NS) };
const before = settle();
const anon0 = anon();
const t0 = performance.now();
const tree = new ZoneTree(zone, EDGE);
for (let i = 0; i < RECORDS; i += 1000) {
  const changes = [];
  for (let j = i; j < Math.min(RECORDS, i + 1000); j++) changes.push({ id: id(j), before: null, after: record(j) });
  tree.apply(structuredClone(changes), 1);
}
const loadMs = performance.now() - t0;
const after = settle();
const per = (b) => `${(b / RECORDS).toFixed(0)} B/record`;
console.log(`${RECORDS.toLocaleString('en')} A records loaded in ${(loadMs / 1000).toFixed(1)} s`);
console.log(`V8 heap used: ${mib(before.heapUsed)} -> ${mib(after.heapUsed)} MiB (${per(after.heapUsed - before.heapUsed)}); external+arrayBuffers ${mib(after.external)} MiB (${per(after.external - before.external)})`);
console.log(`heap total ${mib(after.heapTotal)} MiB; RSS anonymous: ${mib(anon0)} -> ${mib(anon())} MiB (${per(anon() - anon0)}); RSS ${mib(after.rss)} MiB`);

// Writes and queries together: queries for existing names (10% NXDOMAIN), answered and timed one by one.
const zones = new ZoneSet();
zones.put(tree);
const handler = new DnsHandler({ find: (q) => zones.find(q), pendingFor: () => undefined, onInvalidate: (l) => zones.onInvalidate(l) }, [], createLogger('warn', 'json'));
const packets = Array.from({ length: 5000 }, (_, i) => queryPacket(i, i % 10 === 9 ? `nx${i}.${ORIGIN}` : `h${(i * 7919) % RECORDS}.${ORIGIN}`, 1));
const probe = startProbe();
const lat = [];
const applyMs = [];
let serial = 1;
let written = 0;
const end = performance.now() + SECONDS * 1000;
const start = performance.now();
let q = 0;
let reported = 0;
while (performance.now() < end) {
  const elapsed = (performance.now() - start) / 1000;
  for (; written < elapsed * WRITES; written++) {
    const i = RECORDS + written;
    const a = performance.now();
    const churn = process.env.BENCH_CHURN && written > 0 ? [{ id: id(i - 1), before: record(i - 1, `w${written - 1}.${ORIGIN}`), after: null }] : [];
    const c = structuredClone([...churn, { id: id(i), before: null, after: record(i, `w${written}.${ORIGIN}`) }]);
    const report = tree.apply(c, ++serial);
    zones.invalidate(report.wholeZone ? { zoneId: tree.zoneId } : { zoneId: tree.zoneId, names: report.names });
    applyMs.push(performance.now() - a);
  }
  for (; q < elapsed * QPS; q++) {
    const a = performance.now();
    handler.handle(packets[q % packets.length], { transport: 'udp', address: '127.0.0.1' });
    lat.push(performance.now() - a);
  }
  if (process.env.BENCH_CHURN && Math.floor(elapsed / 10) > reported) {
    reported = Math.floor(elapsed / 10);
    console.log(`${reported * 10} s: ${written} writes, heap used ${mib(process.memoryUsage().heapUsed)} MiB, RSS anonymous ${mib(anon())} MiB`);
  }
  await new Promise((r) => setTimeout(r, 1));
}
await new Promise((r) => setTimeout(r, 50));
const p = probe.take();
lat.sort((a, b) => a - b);
applyMs.sort((a, b) => a - b);
const pct = (s, p) => s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))] ?? NaN;
const f = (v) => `${v.toFixed(3)} ms`;
console.log(`under ${WRITES} writes/s and ${QPS} queries/s for ${SECONDS} s: answer p50 ${f(pct(lat, 50))} p99 ${f(pct(lat, 99))} max ${f(lat.at(-1))}; apply p50 ${f(pct(applyMs, 50))} p99 ${f(pct(applyMs, 99))} max ${f(applyMs.at(-1) ?? NaN)}`);
console.log(`GC pauses: ${p.gc.count} (${p.gc.over1ms} over 1 ms, max ${p.gc.max.toFixed(1)} ms; ${Object.entries(p.gc.byKind).map(([k, v]) => `${k} ${v.n}/${v.total.toFixed(0)} ms`).join(' ')})`);
console.log(`heap spaces (MiB): ${JSON.stringify(p.spacesMiB)}`);
console.log(`event-loop delay p99 ${p.p99} ms, max ${p.max} ms; ${p.sched.cpuMs} ms on a CPU, ${p.sched.runnableWaitMs} ms runnable waiting for one, in ${p.sched.wallMs} ms; load average ${fs.readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ')}`);
if (process.env.BENCH_RELEASE) {
  const before = anon();
  const t = performance.now();
  globalThis.gc({ type: 'major', execution: 'sync', flavor: 'last-resort' });
  console.log(`last-resort GC: ${(performance.now() - t).toFixed(1)} ms; RSS anonymous ${mib(before)} -> ${mib(anon())} MiB`);
}
