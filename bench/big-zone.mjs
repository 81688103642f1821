#!/usr/bin/env node
/**
 * Big zones while they change (issue 19): Stratus against Knot 3 in the same run. Prints, never asserts.
 *
 * 1. Builds Stratus, starts `stratus serve` (default UDP workers) with bench/lib/loop-delay.mjs preloaded, and
 *    loads a zone of BENCH_RECORDS A records through the public import API (256 KiB zone files, one after the
 *    other); times the load and the first answer after it. Knot loads the same zone (Stratus's AXFR) and
 *    accepts RFC 2136 updates from 127.0.0.1.
 * 2. Quiet: a query load of BENCH_QPS queries/s for existing names (and 10% NXDOMAIN) against each server.
 * 3. Under writes: BENCH_WRITES creates/s, each sent to Stratus through the v4 API and to Knot as a dynamic
 *    update (one long-running `knsupdate`), while the same query load runs against both; for each write, the
 *    time until a DNS query sees it (write-to-visible), and for Stratus whether a query sent right after the
 *    API call returned already sees it (read-your-writes).
 * 4. Sustained batches: as many 100-create batches as each server takes for BENCH_SECONDS (writes/s).
 * RSS of Stratus (the whole process, its DNS thread included) after each phase; event-loop delay of the main
 * thread, the one serving the v4 API (perf_hooks.monitorEventLoopDelay), per phase.
 *
 *   node bench/big-zone.mjs   (BENCH_RECORDS=100000 BENCH_SECONDS=15 BENCH_QPS=2000 BENCH_WRITES=100;
 *   BENCH_NICE=<n>: the DNS thread and Knot's threads at that nice value;
 *   BENCH_SMAPS=<file>: copies of Stratus's /proc/<pid>/smaps, loaded and at the end, to <file>.loaded and .end)
 */
import { execFile, spawn } from 'node:child_process';
import dgram from 'node:dgram';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { fileURLToPath } from 'node:url';
import { Worker, isMainThread, parentPort, workerData } from 'node:worker_threads';
import { freePort, queryPacket, answerCount, waitFor, visible, orderedVisibility } from './lib/big-zone-dns.mjs';
import { rssMiB, anonMiB, rssBreakdown, handlingTimes, handlingPercentile, histogram } from './lib/process-measures.mjs';

const run = promisify(execFile);
const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const RECORDS = Number(process.env.BENCH_RECORDS ?? 100_000);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 15);
const QPS = Number(process.env.BENCH_QPS ?? 2000);
const WRITES = Number(process.env.BENCH_WRITES ?? 100);
const ZONE = 'big.example';
const EMAIL = 'bench@example.com';
const KEY = '0123456789abcdef0123456789abcdef01234';

if (!isMainThread) queryLoad(workerData).then((r) => parentPort.postMessage(r));
else main().catch((err) => { console.error(err); for (const c of children) console.error(`--- ${c.spawnargs.slice(0, 3).join(' ')}\n${c.output.slice(-3000)}`); process.exitCode = 1; }).finally(async () => { await stopStratus(); cleanup(); process.exit(); });

const tmp = isMainThread ? fs.mkdtempSync(path.join(os.tmpdir(), 'stratus-big-zone-')) : '';
const children = [];
if (isMainThread) process.on('exit', () => { for (const c of children) if (c.exitCode === null) c.kill('SIGKILL'); });
const log = (msg) => process.stdout.write(`[big-zone] ${msg} (load average ${fs.readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ')})\n`);

function start(cmd, args, opts = {}) {
  const child = spawn(cmd, args, { stdio: ['pipe', 'pipe', 'pipe'], ...opts });
  child.output = '';
  child.stdout.on('data', (d) => { child.output = (child.output + d).slice(-20_000); });
  child.stderr.on('data', (d) => { child.output = (child.output + d).slice(-20_000); });
  children.push(child);
  return child;
}

/** Stops Stratus with SIGTERM (so a --cpu-prof given in BENCH_NODE_ARGS is written), SIGKILL after 20 s. */
async function stopStratus() {
  const s = children[0];
  if (!s || s.exitCode !== null) return;
  s.kill('SIGTERM');
  await Promise.race([new Promise((r) => s.once('exit', r)), new Promise((r) => setTimeout(r, 20_000))]);
  if (process.env.BENCH_KEEP_LOG) fs.writeFileSync(process.env.BENCH_KEEP_LOG, s.output);
}

function cleanup() {
  if (!isMainThread) return;
  for (const c of children) if (c.exitCode === null) c.kill('SIGKILL');
  fs.rmSync(tmp, { recursive: true, force: true });
}

async function api(base, method, p, body, raw) {
  const headers = { 'x-auth-email': EMAIL, 'x-auth-key': KEY, ...(raw ? {} : { 'content-type': 'application/json' }) };
  const res = await fetch(`${base}${p}`, { method, headers, body: raw ?? (body && JSON.stringify(body)) });
  const json = await res.json();
  if (!json.success) throw new Error(`${method} ${p}: ${JSON.stringify(json.errors)}`);
  return json.result;
}

/**
 * Event-loop delay (ms) and GC pauses of the Stratus main thread since the last call, the same for its DNS
 * thread (`dns`), and the V8 heap of each (MiB; used after a full GC, and committed).
 */
async function loopDelay(pid) {
  const dir = path.join(tmp, 'loop');
  for (const f of fs.readdirSync(dir)) fs.rmSync(path.join(dir, f), { force: true });
  process.kill(pid, 'SIGUSR2');
  const main = await waitFor('event-loop figures', async () => fs.existsSync(path.join(dir, `${pid}.json`)) && JSON.parse(fs.readFileSync(path.join(dir, `${pid}.json`), 'utf8')), 5000);
  const threads = await waitFor('DNS thread figures', async () => {
    const files = fs.readdirSync(dir).filter((f) => f.startsWith(`${pid}-`));
    return files.length >= main.threads && files.map((f) => JSON.parse(fs.readFileSync(path.join(dir, f), 'utf8')));
  }, 10_000);
  return { ...main, heap: main.heapMiB, dns: threads[0] };
}

async function startStratus(dnsPort) {
  log('building Stratus');
  const out = path.join(ROOT, 'node_modules', '.cache', `stratus-big-zone-${path.basename(ROOT)}`, 'dist');
  await run(path.join(ROOT, 'node_modules', '.bin', 'tsc'), ['-p', path.join(ROOT, 'tsconfig.build.json'), '--outDir', out]).catch(() => {});
  fs.mkdirSync(path.join(tmp, 'loop'));
  const child = start(process.execPath, [...(process.env.BENCH_NODE_ARGS ?? '').split(' ').filter(Boolean), '--expose-gc', '--import', path.join(ROOT, 'bench', 'lib', 'loop-delay.mjs'), path.join(out, 'cli.js'), 'serve',
    '--data-dir', path.join(tmp, 'stratus'), '--http', '127.0.0.1:0', '--s3', '127.0.0.1:0', '--dns', `127.0.0.1:${dnsPort}`, '--auth-email', EMAIL, '--auth-key', KEY, '--rate-limit', '0', '--auth-failure-limit', '0',
    '--edge', 'off', '--admin', '127.0.0.1:0', '--log-level', 'warn', '--records-per-zone', String(RECORDS + 2_000_000)], { env: { ...process.env, STRATUS_LOOP_DELAY_DIR: path.join(tmp, 'loop') } });
  const base = await waitFor('Stratus to listen', async () => /v4 API listening on (\S+)/.exec(child.output)?.[1], 60_000);
  const admin = await waitFor('the admin listener', async () => /admin listening on (\S+)/.exec(child.output)?.[1], 60_000);
  return { base: `${base}/client/v4`.replace('/client/v4/client/v4', '/client/v4'), pid: child.pid, admin };
}

/** Loads the zone through the import API, 256 KiB zone files one after the other. */
async function loadZone(base) {
  const [account] = await api(base, 'GET', '/accounts');
  const zone = await api(base, 'POST', '/zones', { account: { id: account.id }, name: ZONE });
  const started = performance.now();
  let i = 0;
  while (i < RECORDS) {
    const lines = [];
    let bytes = 0;
    for (; i < RECORDS && bytes < 250_000; i++) {
      const line = `h${i} 300 IN A 10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}`;
      lines.push(line);
      bytes += line.length + 1;
    }
    const form = new FormData();
    form.append('file', new Blob([`${lines.join('\n')}\n`]), 'zone.txt');
    await api(base, 'POST', `/zones/${zone.id}/dns_records/import`, undefined, form);
  }
  return { zoneId: zone.id, loadMs: performance.now() - started };
}

async function startKnot(zoneFile, port) {
  const dir = path.join(tmp, 'knot');
  fs.mkdirSync(path.join(dir, 'zones'), { recursive: true });
  fs.mkdirSync(path.join(dir, 'db'), { recursive: true });
  fs.copyFileSync(zoneFile, path.join(dir, 'zones', `${ZONE}.zone`));
  fs.writeFileSync(path.join(dir, 'knot.conf'), `server:\n    rundir: "${dir}"\n    listen: 127.0.0.1@${port}\ncontrol:\n    listen: "${dir}/knot.sock"\ndatabase:\n    storage: "${dir}/db"\nlog:\n  - target: stderr\n    any: warning\nacl:\n  - id: local-update\n    address: 127.0.0.1\n    action: update\ntemplate:\n  - id: default\n    storage: "${dir}/zones"\n    file: "%s.zone"\n    zonefile-sync: -1\n    journal-content: changes\nzone:\n  - domain: ${ZONE}\n    acl: local-update\n`);
  return start('knotd', ['-c', path.join(dir, 'knot.conf')]);
}

/** Runs a query load in a worker thread for `seconds`; resolves with latencies (ms, sorted) and losses. */
function queries(port, seconds, qps, names) {
  return new Promise((resolve, reject) => {
    const w = new Worker(fileURLToPath(import.meta.url), { workerData: { port, seconds, qps, names } });
    w.once('message', resolve);
    w.once('error', reject);
  });
}

/** (worker thread) Sends `qps` queries a second for `seconds`, open loop; returns latencies and losses. */
async function queryLoad({ port, seconds, qps, names }) {
  const sock = dgram.createSocket('udp4');
  await new Promise((r) => sock.bind(0, '127.0.0.1', r));
  const sent = new Map();
  const lat = [];
  sock.on('message', (msg) => {
    const id = msg.readUInt16BE(0);
    const t = sent.get(id);
    if (t !== undefined) { lat.push(performance.now() - t); sent.delete(id); }
  });
  const end = performance.now() + seconds * 1000;
  let n = 0;
  const t0 = performance.now();
  while (performance.now() < end) {
    const due = Math.floor(((performance.now() - t0) / 1000) * qps);
    for (; n < due; n++) {
      const id = n & 0xffff;
      sent.set(id, performance.now());
      sock.send(queryPacket(id, names[n % names.length], 1), port, '127.0.0.1');
    }
    await new Promise((r) => setTimeout(r, 1));
  }
  await new Promise((r) => setTimeout(r, 1000));
  sock.close();
  lat.sort((a, b) => a - b);
  return { lat, lost: sent.size, sent: n };
}

const pct = (sorted, p) => (sorted.length ? sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] : NaN);
const ms = (v) => (Number.isFinite(v) ? `${v < 10 ? v.toFixed(2) : v.toFixed(0)} ms` : v === Infinity ? '> 5 s' : '-');

async function underWrites(s, kPort, sPort, names, knsupdate) {
  const load = Promise.all([queries(sPort, SECONDS, QPS, names), queries(kPort, SECONDS, QPS, names)]);
  // One probe socket per server: Knot falls behind the updates, and its visibility polls (every 5 ms per write
  // for up to 5 s) would otherwise fill the receive buffer that Stratus's answers arrive in.
  const bind = async () => {
    const so = dgram.createSocket({ type: 'udp4', recvBufferSize: 4 << 20 });
    await new Promise((r) => so.bind(0, '127.0.0.1', r));
    return so;
  };
  const sock = await bind();
  const kSock = await bind();
  const createRoute = '/zones/:zone_id/dns_records",method="POST"';
  const server0 = { http: await histogram(s.admin, 'stratus_http_request_duration_seconds', createRoute), group: await histogram(s.admin, 'stratus_zone_write_group_duration_seconds') };
  const knotVisible = orderedVisibility(kSock, kPort);
  const vis = { stratus: [], knot: [] };
  const apiMs = [];
  let stale = 0;
  let done = 0;
  let failed = 0;
  let slow = 0;
  const rss = [rssMiB(s.pid)];
  const end = performance.now() + SECONDS * 1000;
  const t0 = performance.now();
  const inflight = new Set();
  for (let i = 0; performance.now() < end; i++) {
    const due = t0 + (i * 1000) / WRITES;
    if (due > performance.now()) await new Promise((r) => setTimeout(r, due - performance.now()));
    const name = `w${i}.${ZONE}`;
    const content = `10.200.${(i >> 8) & 255}.${i & 255}`;
    const t = performance.now();
    knsupdate.stdin.write(`update add ${name}. 300 A ${content}\nsend\n`);
    const p = (async () => {
      const k = knotVisible(name, t);
      try {
        await api(s.base, 'POST', `/zones/${s.zoneId}/dns_records`, { type: 'A', name, content, ttl: 300 });
        apiMs.push(performance.now() - t);
      } catch (err) {
        failed++;
        if (failed === 1) log(`write failed: ${err.message} ${err.cause?.message ?? ''}`);
        vis.knot.push(await k);
        return;
      }
      done++;
      const now = await answerCount(sock, sPort, name);
      if (now === 0) stale++;
      if (now < 0) slow++;
      vis.stratus.push(await visible(sock, sPort, name, t));
      vis.knot.push(await k);
    })();
    inflight.add(p);
    p.finally(() => inflight.delete(p));
    if (i % WRITES === 0) rss.push(rssMiB(s.pid));
  }
  await Promise.all(inflight);
  const server1 = { http: await histogram(s.admin, 'stratus_http_request_duration_seconds', createRoute), group: await histogram(s.admin, 'stratus_zone_write_group_duration_seconds') };
  const server = {
    http: [50, 99].map((p) => handlingPercentile(server0.http, server1.http, p)),
    group: [50, 99].map((p) => handlingPercentile(server0.group, server1.group, p)),
  };
  const [sq, kq] = await load;
  rss.push(rssMiB(s.pid));
  sock.close();
  kSock.close();
  for (const v of Object.values(vis)) {
    v.forEach((x, i) => { if (Number.isNaN(x)) v[i] = Infinity; });
    v.sort((a, b) => a - b);
  }
  apiMs.sort((a, b) => a - b);
  return { sq, kq, vis, apiMs, stale, slow, failed, writesPerSec: done / SECONDS, rss, server };
}

/** As many batches of 100 creates as Stratus (API) and Knot (one knsupdate message each) take in SECONDS. */
async function batches(s, knsupdate, kPort) {
  const t0 = performance.now();
  let n = 0;
  const pipeline = async () => {
    while (performance.now() - t0 < SECONDS * 1000) {
      const k = n++;
      const posts = Array.from({ length: 100 }, (_, j) => ({ type: 'A', name: `b${k}-${j}.${ZONE}`, content: '10.201.0.1', ttl: 300 }));
      await api(s.base, 'POST', `/zones/${s.zoneId}/dns_records/batch`, { posts });
    }
  };
  await Promise.all([pipeline(), pipeline(), pipeline(), pipeline()]);
  const stratus = (n * 100) / ((performance.now() - t0) / 1000);
  const k0 = performance.now();
  let kn = 0;
  const sock = dgram.createSocket('udp4');
  await new Promise((r) => sock.bind(0, '127.0.0.1', r));
  try {
    while (performance.now() - k0 < SECONDS * 1000) {
      const lines = Array.from({ length: 100 }, (_, j) => `update add kb${kn}-${j}.${ZONE}. 300 A 10.201.0.1`);
      knsupdate.stdin.write(`${lines.join('\n')}\nsend\n`);
      await waitFor('Knot batch', async () => (await answerCount(sock, kPort, `kb${kn}-99.${ZONE}`)) > 0, 10_000);
      kn++;
    }
  } catch (err) {
    log(`Knot batches stopped: ${err.message}; knsupdate: ${knsupdate.output.slice(-500)}`);
  }
  sock.close();
  return { stratus, knot: (kn * 100) / ((performance.now() - k0) / 1000) };
}

async function main() {
  const [sPort, kPort] = [await freePort(), await freePort()];
  const stratus = await startStratus(sPort);
  await new Promise((r) => setTimeout(r, 1000));
  const rssEmpty = rssMiB(stratus.pid);
  const anonEmpty = anonMiB(stratus.pid);
  const emptyLoop = await loopDelay(stratus.pid);
  log(`loading ${RECORDS} records through the import API`);
  const { zoneId, loadMs } = await loadZone(stratus.base);
  log(`imports done in ${(loadMs / 1000).toFixed(1)} s; waiting for the last record over DNS`);
  const sock = dgram.createSocket('udp4');
  await new Promise((r) => sock.bind(0, '127.0.0.1', r));
  const afterLoad = performance.now();
  await waitFor('the last record over DNS', async () => (await answerCount(sock, sPort, `h${RECORDS - 1}.${ZONE}`)) > 0, 900_000);
  const firstAnswerMs = performance.now() - afterLoad;
  const loadLoop = await loopDelay(stratus.pid);
  const rssLoaded = rssMiB(stratus.pid);
  const anonLoaded = anonMiB(stratus.pid);
  const partsLoaded = rssBreakdown(stratus.pid);
  if (process.env.BENCH_SMAPS) fs.writeFileSync(`${process.env.BENCH_SMAPS}.loaded`, fs.readFileSync(`/proc/${stratus.pid}/smaps`));
  log(`loaded in ${(loadMs / 1000).toFixed(1)} s; RSS ${rssLoaded.toFixed(0)} MiB (empty ${rssEmpty.toFixed(0)} MiB)`);
  const { stdout: axfr } = await run('dig', ['@127.0.0.1', '-p', String(sPort), ZONE, 'AXFR', '+nocmd', '+nostats', '+nocomments'], { maxBuffer: 1 << 30 });
  const zoneFile = path.join(tmp, `${ZONE}.zone`);
  const rrs = axfr.split('\n').filter((l) => l && !l.startsWith(';'));
  fs.writeFileSync(zoneFile, `${rrs.slice(0, -1).join('\n')}\n`);
  const knot = await startKnot(zoneFile, kPort);
  await waitFor('Knot to serve the zone', async () => (await answerCount(sock, kPort, `h${RECORDS - 1}.${ZONE}`)) > 0, 300_000);
  const knotRssLoaded = rssMiB(knot.pid);
  if (process.env.BENCH_NICE) {
    // An experiment on scheduling: the DNS thread and every thread of Knot at the same nice value (root only below 0).
    const nice = Number(process.env.BENCH_NICE);
    os.setPriority(loadLoop.dns.tid, nice);
    for (const tid of fs.readdirSync(`/proc/${knot.pid}/task`)) os.setPriority(Number(tid), nice);
    log(`DNS thread ${loadLoop.dns.tid} and Knot's threads at nice ${nice}`);
  }
  const knsupdate = start('knsupdate', []);
  knsupdate.once('exit', (code) => { if (code !== null) log(`knsupdate exited (${code}): ${knsupdate.output.slice(-1000)}`); });
  knsupdate.stdin.on('error', () => {});
  knsupdate.stdin.write(`server 127.0.0.1 ${kPort}\nzone ${ZONE}.\n`);
  sock.close();

  const names = Array.from({ length: 5000 }, (_, i) => (i % 10 === 9 ? `nx${i}.${ZONE}` : `h${(i * 7919) % RECORDS}.${ZONE}`));
  log(`quiet: ${QPS} queries/s for ${SECONDS} s against each`);
  await loopDelay(stratus.pid);
  const quietHandled0 = await handlingTimes(stratus.admin);
  const [sq, kq] = await Promise.all([queries(sPort, SECONDS, QPS, names), queries(kPort, SECONDS, QPS, names)]);
  const quietHandled = [quietHandled0, await handlingTimes(stratus.admin)];
  const quietLoop = await loopDelay(stratus.pid);
  log(`under writes: ${WRITES} creates/s and ${QPS} queries/s for ${SECONDS} s against each`);
  const writeHandled0 = await handlingTimes(stratus.admin);
  const w = await underWrites({ ...stratus, zoneId }, kPort, sPort, names, knsupdate);
  const writeHandled = [writeHandled0, await handlingTimes(stratus.admin)];
  const writeLoop = await loopDelay(stratus.pid);
  log('sustained batches of 100 creates');
  const knsBatch = start('knsupdate', []);
  knsBatch.stdin.on('error', () => {});
  knsBatch.stdin.write(`server 127.0.0.1 ${kPort}\nzone ${ZONE}.\n`);
  const b = await batches({ ...stratus, zoneId }, knsBatch, kPort);
  const batchLoop = await loopDelay(stratus.pid);
  const rssEnd = rssMiB(stratus.pid);
  const anonEnd = anonMiB(stratus.pid);
  const partsEnd = rssBreakdown(stratus.pid);
  if (process.env.BENCH_SMAPS) fs.writeFileSync(`${process.env.BENCH_SMAPS}.end`, fs.readFileSync(`/proc/${stratus.pid}/smaps`));

  const perRecord = (mib) => `${((mib * 1024 * 1024) / RECORDS).toFixed(0)} B/record`;
  console.log(`\n${RECORDS.toLocaleString('en')} records, ${QPS} queries/s, ${WRITES} API writes/s, ${SECONDS} s phases (${os.cpus().length} cores shared by both servers and this client; load average at the end ${fs.readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ')})\n`);
  console.log('| | Stratus | Knot 3 |');
  console.log('|---|---|---|');
  console.log(`| load through the API (import, 256 KiB files) | ${(loadMs / 1000).toFixed(1)} s, first answer ${ms(firstAnswerMs)} after | zone file from Stratus's AXFR |`);
  console.log(`| DNS latency quiet, p50 / p99 | ${ms(pct(sq.lat, 50))} / ${ms(pct(sq.lat, 99))} (lost ${sq.lost}) | ${ms(pct(kq.lat, 50))} / ${ms(pct(kq.lat, 99))} (lost ${kq.lost}) |`);
  console.log(`| DNS latency under ${WRITES} writes/s, p50 / p99 | ${ms(pct(w.sq.lat, 50))} / ${ms(pct(w.sq.lat, 99))} (lost ${w.sq.lost}) | ${ms(pct(w.kq.lat, 50))} / ${ms(pct(w.kq.lat, 99))} (lost ${w.kq.lost}) |`);
  const handled = ([a, b]) => `p50 ${handlingPercentile(a, b, 50)}, p99 ${handlingPercentile(a, b, 99)}, p99.9 ${handlingPercentile(a, b, 99.9)}`;
  console.log(`| handling time inside the DNS thread (stratus_dns_query_duration_seconds, UDP): quiet; under writes | ${handled(quietHandled)}; ${handled(writeHandled)} | |`);
  console.log(`| writes completed per second (${WRITES}/s offered) | ${w.writesPerSec.toFixed(0)} (${w.failed} failed) | (dynamic updates, not awaited) |`);
  console.log(`| API create call latency p50 / p99 (part of write-to-visible) | ${ms(pct(w.apiMs, 50))} / ${ms(pct(w.apiMs, 99))} | |`);
  console.log(`| the same calls inside Stratus (arrival to last byte; histogram buckets) p50 / p99; their group commits p50 / p99 | ${w.server.http.join(' / ')}; ${w.server.group.join(' / ')} | |`);
  console.log(`| write-to-visible p50 / p99 (from just before the API call) | ${ms(pct(w.vis.stratus, 50))} / ${ms(pct(w.vis.stratus, 99))} | ${ms(pct(w.vis.knot, 50))} / ${ms(pct(w.vis.knot, 99))} |`);
  console.log(`| stale answers right after the API call returned | ${w.stale} of ${w.vis.stratus.length} (${w.slow} not answered within 1 s) | - |`);
  console.log(`| sustained creates/s in batches of 100 | ${b.stratus.toFixed(0)} (API batch) | ${b.knot.toFixed(0)} (one update message each) |`);
  console.log(`| RSS empty -> loaded -> end (the whole process, DNS thread included) | ${rssEmpty.toFixed(0)} -> ${rssLoaded.toFixed(0)} -> ${rssEnd.toFixed(0)} MiB (${perRecord(rssLoaded - rssEmpty)} over empty; ${perRecord(rssLoaded)} in all) | loaded ${knotRssLoaded.toFixed(0)} MiB, end ${rssMiB(knot.pid).toFixed(0)} MiB |`);
  console.log(`| anonymous RSS (the memory the process owns, without the pages of files it maps) empty -> loaded -> end | ${anonEmpty.toFixed(0)} -> ${anonLoaded.toFixed(0)} -> ${anonEnd.toFixed(0)} MiB (${perRecord(anonLoaded - anonEmpty)} over empty; ${perRecord(anonLoaded)} in all) | |`);
  console.log(`| RSS during the write phase, each second | ${w.rss.map((v) => v.toFixed(0)).join(' ')} MiB | |`);
  const parts = (b) => `anonymous ${b.anon.toFixed(0)} (brk heap ${b.brk.toFixed(0)}), SQLite files mapped ${b.sqlite.toFixed(0)}, node binary ${b.node.toFixed(0)}, other files ${b.other.toFixed(0)} MiB`;
  console.log(`| RSS by kind (/proc/pid/smaps), loaded; end | ${parts(partsLoaded)}; ${parts(partsEnd)} | |`);
  const heaps = (l) => `${l.heap.toFixed(0)} / ${l.heapCommittedMiB.toFixed(0)}, DNS thread ${l.dns ? `${l.dns.heapMiB.toFixed(0)} / ${l.dns.heapCommittedMiB.toFixed(0)}` : '-'}`;
  console.log(`| V8 heap used after a GC / committed (MiB), main thread and DNS thread: empty; loaded; end | ${heaps(emptyLoop)}; ${heaps(loadLoop)}; ${heaps(batchLoop)} (DNS thread ${loadLoop.dns ? perRecord(loadLoop.dns.heapMiB - (emptyLoop.dns?.heapMiB ?? 0)) : '-'} over empty) | |`);
  const gcs = (l) => (l.dns ? `${l.dns.gc.count} (${l.dns.gc.over1ms} over 1 ms, max ${l.dns.gc.max.toFixed(1)} ms; ${Object.entries(l.dns.gc.byKind).map(([k, v]) => `${k} ${v.n}/${v.total.toFixed(0)} ms`).join(' ')})` : '-');
  console.log(`| DNS thread GC pauses: quiet; writes | ${gcs(quietLoop)}; ${gcs(writeLoop)} | |`);
  console.log(`| DNS thread event loop delay p99 / max: quiet; writes | ${quietLoop.dns ? `${quietLoop.dns.p99} / ${quietLoop.dns.max}; ${writeLoop.dns.p99} / ${writeLoop.dns.max} ms` : '-'} | |`);
  const sched = (l) => (l.dns ? `${l.dns.sched.cpuMs} ms on a CPU, ${l.dns.sched.runnableWaitMs} ms runnable waiting for one, ${l.dns.sched.slices} times scheduled in ${l.dns.sched.wallMs} ms` : '-');
  console.log(`| DNS thread scheduling (schedstat): quiet; writes | ${sched(quietLoop)}; ${sched(writeLoop)} | |`);
  const mainSched = (l) => `${l.sched.cpuMs} ms on a CPU, ${l.sched.runnableWaitMs} ms runnable waiting`;
  console.log(`| main thread scheduling: quiet; writes; batches | ${mainSched(quietLoop)}; ${mainSched(writeLoop)}; ${mainSched(batchLoop)} | |`);
  console.log(`| main event loop delay p99 / max: load, quiet, writes, batches | ${[loadLoop, quietLoop, writeLoop, batchLoop].map((l) => `${l.p99} / ${l.max}`).join(', ')} ms | |`);
}
