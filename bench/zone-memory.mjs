#!/usr/bin/env node
/**
 * The DNS thread's zone structures alone, without a server (issue 19's memory and latency-tail harness): builds
 * a zone of BENCH_RECORDS A records the way the DNS thread does (structured-cloned changesets of 1,000 records
 * into a ZoneTree), then prints the V8 heap and RSS it costs per record, and, while BENCH_WRITES single-record
 * changesets a second are applied, the latency of lookups (encode included) and the GC pauses (perf_hooks).
 * Needs `npm run build` (reads dist/). Prints, never asserts.
 *
 *   npx node --expose-gc bench/zone-memory.mjs   (BENCH_RECORDS=200000 BENCH_SECONDS=5 BENCH_WRITES=100 BENCH_QPS=5000)
 */
import path from 'node:path';
import fs from 'node:fs';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { PerformanceObserver, monitorEventLoopDelay } from 'node:perf_hooks';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const dist = (p) => import(pathToFileURL(path.join(ROOT, 'dist', p)).href);
const { ZoneTree } = await dist('dns/zone-tree.js');
const { lookup } = await dist('dns/lookup.js');
const { readServingSettings } = await dist('dns/snapshot-settings.js');
const { encodeMessage } = await dist('dns/wire/message.js');
const { Writer } = await dist('dns/wire/writer.js');

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

// Writes and queries together: lookups of existing names (10% NXDOMAIN), encoded, timed one by one.
const gcPauses = [];
new PerformanceObserver((list) => { for (const e of list.getEntries()) gcPauses.push({ ms: e.duration, kind: e.detail?.kind ?? e.kind }); }).observe({ entryTypes: ['gc'] });
const loop = monitorEventLoopDelay({ resolution: 1 });
loop.enable();
const w = new Writer(65_536);
const lat = [];
const applyMs = [];
let serial = 1;
let written = 0;
const end = performance.now() + SECONDS * 1000;
const start = performance.now();
let q = 0;
while (performance.now() < end) {
  const elapsed = (performance.now() - start) / 1000;
  for (; written < elapsed * WRITES; written++) {
    const i = RECORDS + written;
    const a = performance.now();
    const c = structuredClone([{ id: id(i), before: null, after: record(i, `w${written}.${ORIGIN}`) }]);
    tree.apply(c, ++serial);
    applyMs.push(performance.now() - a);
  }
  for (; q < elapsed * QPS; q++) {
    const name = q % 10 === 9 ? `nx${q}.${ORIGIN}` : `h${(q * 7919) % RECORDS}.${ORIGIN}`;
    const a = performance.now();
    const r = lookup(tree, name, 1);
    encodeMessage(w, { id: 1, qr: true, opcode: 0, aa: r.aa, rd: false, rcode: r.rcode, question: { name, type: 1, klass: 1 }, answers: r.answer, authorities: r.authority, additionals: r.additional });
    lat.push(performance.now() - a);
  }
  await new Promise((r) => setTimeout(r, 1));
}
loop.disable();
await new Promise((r) => setTimeout(r, 50));
lat.sort((a, b) => a - b);
applyMs.sort((a, b) => a - b);
const pct = (s, p) => s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))] ?? NaN;
const f = (v) => `${v.toFixed(3)} ms`;
console.log(`under ${WRITES} writes/s and ${QPS} lookups/s for ${SECONDS} s: lookup+encode p50 ${f(pct(lat, 50))} p99 ${f(pct(lat, 99))} max ${f(lat.at(-1))}; apply p50 ${f(pct(applyMs, 50))} p99 ${f(pct(applyMs, 99))} max ${f(applyMs.at(-1) ?? NaN)}`);
const kinds = {};
for (const g of gcPauses) { const k = kinds[g.kind] ??= { n: 0, total: 0, max: 0 }; k.n++; k.total += g.ms; k.max = Math.max(k.max, g.ms); }
console.log(`GC pauses (kind: count, total, max): ${Object.entries(kinds).map(([k, v]) => `${k}: ${v.n}, ${v.total.toFixed(1)} ms, ${v.max.toFixed(1)} ms`).join('; ') || 'none'}`);
console.log(`event-loop delay p99 ${(loop.percentile(99) / 1e6).toFixed(2)} ms, max ${(loop.max / 1e6).toFixed(2)} ms; load average ${fs.readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ')}`);
