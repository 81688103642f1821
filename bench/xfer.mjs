#!/usr/bin/env node
/**
 * Zone transfers (issue 29): Stratus and Knot 3 as primaries of the same zone in one run, each with a stock Knot
 * secondary. Prints, never asserts.
 *
 * 1. Stratus (dist/, `npm run build` first) gets a zone of BENCH_RECORDS records (bench/lib/bulk-load.mjs); a
 *    Knot secondary takes it by AXFR (Knot's own log gives the transfer time) and `kdig AXFR` times a full
 *    transfer to /dev/null. Knot as primary serves the same records (a zone file of Stratus's AXFR) to its own
 *    Knot secondary, timed the same way.
 * 2. One change: through the v4 API for Stratus, an RFC 2136 update (knsupdate) for Knot; the time from just
 *    before the call until the secondary serves the new serial (NOTIFY, then IXFR; Knot's log tells whether
 *    the secondary used IXFR).
 *
 * Both are measured BENCH_ROUNDS times (default 3), interleaved (Stratus first in odd rounds, Knot first in even
 * ones); the secondaries' log after each change is printed with the time since the call (where the time goes).
 *
 * A counting client (bench/lib/axfr-probe.mjs) then transfers the zone from each primary once a round: when its
 * first byte came and when the closing SOA did, with the messages and bytes (kdig's wall time is mostly kdig's own
 * parsing and printing; this shows the primary's). `XFER_NODE_ARGS` passes Node flags to Stratus's process (for
 * example `--cpu-prof --cpu-prof-dir=DIR`), and `XFER_STRATUS_OUTPUT=FILE` keeps the last MB of its output (`--trace-gc`'s, say).
 *
 * Each AXFR also reports the CPU the primary's process spent meanwhile (Linux /proc: every thread, user and
 * system), which varies far less with the machine's load than the wall time does.
 *
 * Ratios are Stratus's time over Knot's (below 1: Stratus faster), per round, with their median. The load average
 * is printed before, after and at each round: the machine may be shared, and both primaries are measured in the
 * same run for that reason. Targets (issue 29):
 * the change visible on the secondary within 1 s of the API call returning; AXFR at least as fast as Knot's.
 *
 *   npm run build && node_modules/.bin/node bench/xfer.mjs   (Node 24; default 1,000,000 records; BENCH_RECORDS=100000 for a quick run)
 */
import { execFile, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { fileURLToPath } from 'node:url';
import { freePort, waitFor } from './lib/big-zone-dns.mjs';
import { bulkLoad } from './lib/api-bench.mjs';
import { probeAxfr } from './lib/axfr-probe.mjs';
import { cpuTimeMs } from '../dist/runtime/proc-stat.js';

const run = promisify(execFile);
const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const RECORDS = Number(process.env.BENCH_RECORDS ?? 1_000_000);
/** Rounds of each measurement, interleaved between the two primaries. */
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const ZONE = 'xfer.example';
const EMAIL = 'bench@example.com';
const KEY = '0123456789abcdef0123456789abcdef01234';
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'stratus-xfer-bench-'));
const children = [];
const log = (msg) => process.stdout.write(`[xfer] ${msg}\n`);

function start(cmd, args) {
  const child = spawn(cmd, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  child.output = '';
  /** Lines as they arrived: [performance.now(), line] (where the time of one change goes, from Knot's log). */
  child.lines = [];
  const keep = (d) => {
    const now = performance.now();
    child.output = (child.output + d.toString()).slice(-1_000_000);
    for (const line of d.toString().split('\n')) if (line && child.lines.length < 10_000) child.lines.push([now, line]);
  };
  child.stdout.on('data', keep);
  child.stderr.on('data', keep);
  children.push(child);
  return child;
}

async function api(base, method, p, body) {
  const res = await fetch(`${base}${p}`, { method, headers: { 'x-auth-email': EMAIL, 'x-auth-key': KEY, 'content-type': 'application/json' }, body: body && JSON.stringify(body) });
  const json = await res.json();
  if (!json.success) throw new Error(`${method} ${p}: ${JSON.stringify(json.errors)}`);
  return json.result;
}

async function soaSerial(port) {
  const { stdout } = await run('kdig', ['@127.0.0.1', '-p', String(port), '+short', '+time=2', '+retry=0', ZONE, 'SOA']).catch(() => ({ stdout: '' }));
  return Number(stdout.trim().split(/\s+/)[2] ?? NaN);
}

/** CPU seconds (user + system, every thread) a process has used so far (Linux /proc; NaN elsewhere). */
function cpuSeconds(pid) {
  return (cpuTimeMs(pid) ?? NaN) / 1000;
}

/**
 * Wall time of a full AXFR (kdig, output discarded) and the CPU the primary (process `pid`) spent meanwhile: the
 * CPU varies far less than wall time with the machine's load.
 */
async function timeAxfr(port, pid) {
  const cpu0 = cpuSeconds(pid);
  const t0 = performance.now();
  await run('sh', ['-c', `kdig @127.0.0.1 -p ${port} ${ZONE} AXFR > /dev/null`], { maxBuffer: 1 << 20 });
  return { ms: performance.now() - t0, cpu: cpuSeconds(pid) - cpu0 };
}

function knotConf(name, port, body, startNow = true) {
  const dir = path.join(tmp, name);
  fs.mkdirSync(path.join(dir, 'db'), { recursive: true });
  fs.mkdirSync(path.join(dir, 'zones'), { recursive: true });
  fs.writeFileSync(path.join(dir, 'knot.conf'), `server:\n    rundir: "${dir}"\n    listen: 127.0.0.1@${port}\ncontrol:\n    listen: "${dir}/knot.sock"\ndatabase:\n    storage: "${dir}/db"\nlog:\n  - target: stderr\n    any: info\ntemplate:\n  - id: default\n    storage: "${dir}/zones"\n    file: "%s.zone"\n${body}`);
  return { dir, child: startNow ? start('knotd', ['-c', path.join(dir, 'knot.conf')]) : undefined };
}

/**
 * A Knot secondary of the primary at `primaryPort`, listening on `port`; resolves once its first AXFR is logged
 * (seconds from its log). Both primaries get this same secondary: IXFR from the primary's journal (Knot's default
 * when the primary answers IXFR), its own journal holding changes only (`journal-content: changes`), no zone file
 * written (`zonefile-sync: -1`), Knot's default (no) semantic checks.
 */
async function secondaryOf(name, primaryPort, port) {
  const k = knotConf(name, port, `remote:\n  - id: primary\n    address: 127.0.0.1@${primaryPort}\nacl:\n  - id: notify\n    address: 127.0.0.1\n    action: notify\nzone:\n  - domain: ${ZONE}\n    master: primary\n    acl: notify\n    zonefile-sync: -1\n    journal-content: changes\n`);
  const axfrSeconds = await waitFor(`${name}'s AXFR`, async () => /AXFR, incoming, [^\n]*finished, ([\d.]+) seconds/.exec(k.child.output)?.[1], 600_000);
  return { ...k, port, axfrSeconds: Number(axfrSeconds) };
}

/** Milliseconds from `t0` until the secondary at `port` serves serial `serial`. */
async function visibleAfter(t0, port, serial) {
  await waitFor('the new serial on the secondary', async () => (await soaSerial(port)) >= serial, 60_000);
  return performance.now() - t0;
}

const loadavg = () => os.loadavg().map((l) => l.toFixed(2)).join(' ');

async function main() {
  const loadBefore = loadavg();
  log(`load average ${loadBefore} (${os.cpus().length} cores)`);
  const sPort = await freePort();
  const s2Port = await freePort();
  const kPort = await freePort();
  const stratus = start(process.execPath, [...(process.env.XFER_NODE_ARGS ? process.env.XFER_NODE_ARGS.split(' ') : []), path.join(ROOT, 'dist', 'cli.js'), 'serve', '--data-dir', path.join(tmp, 'stratus'), '--http', '127.0.0.1:0', '--s3', 'off', '--edge', 'off', '--admin', 'off',
    '--dns', `127.0.0.1:${sPort}`, '--auth-email', EMAIL, '--auth-key', KEY, '--rate-limit', '0', '--log-level', 'warn', '--records-per-zone', String(RECORDS + 1000), '--notify', `127.0.0.1:${s2Port}`]);
  const base = (await waitFor('Stratus', async () => /v4 API listening on (\S+)/.exec(stratus.output)?.[1], 60_000)).replace(/\/client\/v4$/, '') + '/client/v4';
  const [account] = await api(base, 'GET', '/accounts');
  const zone = await api(base, 'POST', '/zones', { account: { id: account.id }, name: ZONE });
  log(`loading ${RECORDS} records into Stratus`);
  const { serial } = await bulkLoad(path.join(tmp, 'stratus'), { id: zone.id, name: ZONE }, RECORDS);
  await waitFor('Stratus to serve the loaded zone', async () => (await soaSerial(sPort)) >= Number(serial), 600_000);

  log('Knot secondary of Stratus');
  const fromStratus = await secondaryOf('knot-s2', sPort, s2Port);

  log('Knot primary with the same records, and its Knot secondary');
  const { stdout: axfr } = await run('kdig', ['@127.0.0.1', '-p', String(sPort), ZONE, 'AXFR', '+nocomments'], { maxBuffer: 1 << 30 });
  const rrs = axfr.split('\n').filter((l) => l && !l.startsWith(';'));
  const k2Port = await freePort();
  const knotPrimary = knotConf('knot-p', kPort, `remote:\n  - id: secondary\n    address: 127.0.0.1@${k2Port}\nacl:\n  - id: update\n    address: 127.0.0.1\n    action: [update, transfer]\nzone:\n  - domain: ${ZONE}\n    acl: update\n    zonefile-sync: -1\n    journal-content: changes\n    notify: secondary\n`, false);
  fs.writeFileSync(path.join(knotPrimary.dir, 'zones', `${ZONE}.zone`), `${rrs.slice(0, -1).join('\n')}\n`);
  const kp = start('knotd', ['-c', path.join(knotPrimary.dir, 'knot.conf')]);
  await waitFor('Knot primary to load', async () => (await soaSerial(kPort)) > 0, 60_000);
  const k2 = await secondaryOf('knot-k2', kPort, k2Port);
  // Interleaved rounds (the machine is shared): Stratus then Knot, then Knot then Stratus, and so on.
  const axfrRounds = [];
  for (let i = 0; i < ROUNDS; i++) {
    log(`AXFR round ${i + 1} of ${ROUNDS} (load average ${loadavg()})`);
    const order = i % 2 === 0 ? [[sPort, stratus.pid], [kPort, kp.pid]] : [[kPort, kp.pid], [sPort, stratus.pid]];
    const t = {};
    for (const [port, pid] of order) t[port] = await timeAxfr(port, pid);
    axfrRounds.push({ stratus: t[sPort].ms, knot: t[kPort].ms, stratusCpu: t[sPort].cpu, knotCpu: t[kPort].cpu });
  }
  // Where a transfer's time goes: the first message's wait, then the stream (a client that only counts).
  const probes = [];
  for (let i = 0; i < ROUNDS; i++) probes.push({ stratus: await probeAxfr(sPort, ZONE), knot: await probeAxfr(kPort, ZONE) });

  // The secondary's log after the call (when the bench read each line, since the call; Knot's own time stamp on
  // the line): NOTIFY taken, the transfer, the zone updated.
  const steps = (child, since) => child.lines.filter(([t, l]) => t >= since && /notify|IXFR|AXFR|refresh|zone updated/i.test(l))
    .slice(0, 12).map(([t, l]) => `    +${(t - since).toFixed(0)} ms (read)  ${l.slice(0, 190)}`).join('\n');
  const changeRounds = [];
  for (let i = 0; i < ROUNDS; i++) {
    log(`one change on each primary, round ${i + 1} of ${ROUNDS} (load average ${loadavg()})`);
    const before = await soaSerial(sPort);
    let t0 = performance.now();
    const stratusAt = t0;
    await api(base, 'POST', `/zones/${zone.id}/dns_records`, { type: 'A', name: `changed${i}`, content: '192.0.2.99', ttl: 300 });
    const apiMs = performance.now() - t0;
    // Where the time goes: Stratus serving the new serial itself, then the secondary (NOTIFY, IXFR, applying).
    const [servesMs, secondaryMs] = await Promise.all([visibleAfter(t0, sPort, before + 1), visibleAfter(t0, s2Port, before + 1)]);
    const knotBefore = await soaSerial(kPort);
    t0 = performance.now();
    const knotAt = t0;
    await new Promise((resolve, reject) => {
      const u = spawn('knsupdate', [], { stdio: ['pipe', 'ignore', 'pipe'] });
      u.on('exit', (code) => (code === 0 ? resolve() : reject(new Error(`knsupdate exited ${code}`))));
      u.stdin.end(`server 127.0.0.1 ${kPort}\nzone ${ZONE}.\nupdate add changed${i}.${ZONE}. 300 A 192.0.2.99\nsend\n`);
    });
    const knotMs = await visibleAfter(t0, k2Port, knotBefore + 1);
    changeRounds.push({ apiMs, servesMs, secondaryMs, knotMs, stratusSteps: steps(fromStratus.child, stratusAt), knotSteps: steps(k2.child, knotAt) });
  }
  const usedIxfr = (out) => (/IXFR, incoming[^\n]*finished/.test(out) ? 'IXFR' : 'AXFR');

  const ratio = (a, b) => (a / b).toFixed(2);
  console.log(`\nload average before ${loadBefore}, after ${loadavg()} (${os.cpus().length} cores)`);
  console.log(`\n| ${RECORDS} records | Stratus primary | Knot primary | Stratus / Knot |`);
  console.log('|---|---|---|---|');
  for (const [i, r] of axfrRounds.entries()) console.log(`| full AXFR, kdig to /dev/null, round ${i + 1} | ${(r.stratus / 1000).toFixed(2)} s | ${(r.knot / 1000).toFixed(2)} s | ${ratio(r.stratus, r.knot)} |`);
  const probeCell = (p) => `first byte ${p.firstMs.toFixed(1)} ms, last ${(p.lastMs / 1000).toFixed(2)} s, ${p.messages} messages, ${(p.bytes / 1e6).toFixed(1)} MB`;
  for (const [i, p] of probes.entries()) console.log(`| full AXFR, a counting client, round ${i + 1} | ${probeCell(p.stratus)} | ${probeCell(p.knot)} | ${ratio(p.stratus.lastMs, p.knot.lastMs)} |`);
  const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
  console.log(`| full AXFR, median of the rounds' ratios | | | ${median(axfrRounds.map((r) => r.stratus / r.knot)).toFixed(2)} |`);
  for (const [i, r] of axfrRounds.entries()) console.log(`| full AXFR, CPU of the primary process, round ${i + 1} | ${r.stratusCpu.toFixed(2)} s | ${r.knotCpu.toFixed(2)} s | ${ratio(r.stratusCpu, r.knotCpu)} |`);
  console.log(`| first AXFR of a Knot secondary (its log) | ${fromStratus.axfrSeconds.toFixed(2)} s | ${k2.axfrSeconds.toFixed(2)} s | ${ratio(fromStratus.axfrSeconds, k2.axfrSeconds)} |`);
  for (const [i, r] of changeRounds.entries()) {
    console.log(`| one change, round ${i + 1}: call to secondary serving it | ${r.secondaryMs.toFixed(0)} ms (API call ${r.apiMs.toFixed(0)} ms, Stratus serves it at ${r.servesMs.toFixed(0)} ms) | ${r.knotMs.toFixed(0)} ms (knsupdate) | ${ratio(r.secondaryMs, r.knotMs)} |`);
  }
  console.log(`| one change: after the call returned, worst round (target < 1000 ms) | ${Math.max(...changeRounds.map((r) => r.secondaryMs - r.apiMs)).toFixed(0)} ms (${usedIxfr(fromStratus.child.output)}) | (${usedIxfr(k2.child.output)}) | |`);
  for (const [i, r] of changeRounds.entries()) {
    console.log(`\nRound ${i + 1}: the Knot secondary of Stratus after the call:\n${r.stratusSteps}`);
    console.log(`Round ${i + 1}: the Knot secondary of Knot after knsupdate:\n${r.knotSteps}`);
  }
  if (process.env.XFER_STRATUS_OUTPUT) fs.writeFileSync(process.env.XFER_STRATUS_OUTPUT, stratus.output);
}

main().catch((err) => { console.error(err); for (const c of children) console.error(`--- ${c.spawnargs.slice(0, 3).join(' ')}\n${c.output.slice(-3000)}`); process.exitCode = 1; })
  .finally(() => { for (const c of children) if (c.exitCode === null) c.kill('SIGTERM'); setTimeout(() => { fs.rmSync(tmp, { recursive: true, force: true }); process.exit(); }, 500); });
