#!/usr/bin/env node
/**
 * DNS serving benchmark: dnsperf against Stratus (its UDP on the native path, and a second instance with
 * `--dns-native-udp off` answering in JavaScript), PowerDNS (gsqlite3 backend, packet cache on, its default)
 * and Knot DNS, all loaded with the same zone (Stratus's own AXFR of a zone created through its API) and
 * queried with the same query list, one after the other on this machine. Prints queries per second and latency
 * of each and Stratus's ratios. Never asserts; the target is Stratus >= PowerDNS.
 *
 * The servers take turns for BENCH_ROUNDS rounds and each one's best round is reported, so that load from
 * other processes on a shared machine skews the comparison less.
 *
 * Then the same for signed answers (dnsperf -D: every query with DO): Stratus with DNSSEC turned on through the
 * v4 API (online signing, compact denial), PowerDNS with live signing (`pdnsutil secure-zone`, a second
 * instance on a copy of its database) and Knot with automatic signing (`dnssec-signing: on`, a second
 * instance). BENCH_SIGNED=0 skips this part.
 *
 *   node bench/dns-server.mjs   (BENCH_SECONDS=10 per run, BENCH_ROUNDS=3, BENCH_CLIENTS=4, BENCH_RECORDS=1000)
 */
import { execFile, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { fileURLToPath } from 'node:url';
import { freePort, waitFor } from './lib/big-zone-dns.mjs';

const run = promisify(execFile);
const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const CLIENTS = Number(process.env.BENCH_CLIENTS ?? 4);
const RECORDS = Number(process.env.BENCH_RECORDS ?? 1000);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const ZONE = 'bench.example';
const EMAIL = 'bench@example.com';
const KEY = '0123456789abcdef0123456789abcdef01234';
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'stratus-dns-bench-'));
const children = [];
let buildDir;

const log = (msg) => process.stdout.write(`[dns-bench] ${msg}\n`);


function start(cmd, args, opts = {}) {
  const child = spawn(cmd, args, { stdio: ['ignore', 'pipe', 'pipe'], ...opts });
  child.output = '';
  child.stdout.on('data', (d) => { child.output += d; });
  child.stderr.on('data', (d) => { child.output += d; });
  children.push(child);
  return child;
}


const soaAt = async (port) => (await run('dig', ['@127.0.0.1', '-p', String(port), '+short', '+norec', '+time=1', '+tries=1', ZONE, 'SOA'])).stdout.trim();

async function api(base, method, p, body) {
  const res = await fetch(`${base}${p}`, { method, headers: { 'x-auth-email': EMAIL, 'x-auth-key': KEY, 'content-type': 'application/json' }, body: body && JSON.stringify(body) });
  const json = await res.json();
  if (!json.success) throw new Error(`${method} ${p}: ${JSON.stringify(json.errors)}`);
  return json.result;
}

async function buildStratus() {
  log('building Stratus (tsc -p tsconfig.build.json, and the native UDP addon: npm run build:native)');
  // One build folder per run: worktrees share node_modules, and two benchmarks at once must not mix builds.
  const out = path.join(ROOT, 'node_modules', '.cache', `stratus-bench-${process.pid}`, 'dist');
  buildDir = path.dirname(out);
  await run(path.join(ROOT, 'node_modules', '.bin', 'tsc'), ['-p', path.join(ROOT, 'tsconfig.build.json'), '--outDir', out]).catch(() => {});
  if (!fs.existsSync(path.join(out, 'cli.js'))) throw new Error('build produced no cli.js');
  log((await run(process.execPath, [path.join(ROOT, 'native', 'build.mjs')])).stdout.trim());
  const addon = path.join(ROOT, 'native', 'build');
  if (fs.existsSync(addon)) fs.cpSync(addon, path.join(buildDir, 'native', 'build'), { recursive: true });
  return out;
}

/** Starts Stratus (`native`: its UDP through the native addon, else `--dns-native-udp off`). */
async function startStratus(out, dnsPort, native) {
  const child = start(process.execPath, [path.join(out, 'cli.js'), 'serve', '--data-dir', path.join(tmp, native ? 'stratus' : 'stratus-js'), '--http', '127.0.0.1:0',
    '--dns', `127.0.0.1:${dnsPort}`, '--admin', '127.0.0.1:0', '--auth-email', EMAIL, '--auth-key', KEY, '--log-level', 'warn', '--s3', '127.0.0.1:0', '--edge', 'off', '--rate-limit', '0', '--auth-failure-limit', '0',
    '--dns-native-udp', native ? 'on' : 'off']);
  const base = await waitFor('Stratus to listen', async () => {
    const m = /v4 API listening on (http[^\s"]+)/.exec(child.output);
    return m?.[1];
  });
  // The banner line, plain or inside a JSON log line.
  const udp = /DNS listening on \S+ \(UDP and TCP; (.*?)\)(?:"|$)/m.exec(child.output)?.[1];
  log(`Stratus API at ${base}, DNS on 127.0.0.1:${dnsPort}: ${udp}`);
  if (native && !/native/.test(udp ?? '')) log('WARNING: the native UDP path is not in use; both Stratus rows measure JavaScript');
  return base;
}

async function loadZone(base) {
  const [account] = await api(base, 'GET', '/accounts');
  const zone = await api(base, 'POST', '/zones', { account: { id: account.id }, name: ZONE });
  const bodies = [
    { type: 'A', name: '@', content: '192.0.2.1' },
    { type: 'MX', name: '@', content: `mail.${ZONE}`, priority: 10 },
    { type: 'TXT', name: '@', content: '"v=spf1 -all"' },
    { type: 'CNAME', name: 'www', content: `host0.${ZONE}` },
    { type: 'A', name: '*.wild', content: '192.0.2.2' },
  ];
  for (let i = 0; i < RECORDS; i++) {
    bodies.push({ type: 'A', name: `host${i}`, content: `10.${(i >> 8) & 255}.${i & 255}.1` });
    if (i % 4 === 0) bodies.push({ type: 'AAAA', name: `host${i}`, content: `2001:db8::${i.toString(16)}` });
  }
  log(`creating ${bodies.length} records through the v4 API`);
  for (let i = 0; i < bodies.length; i += 16) {
    await Promise.all(bodies.slice(i, i + 16).map((b) => api(base, 'POST', `/zones/${zone.id}/dns_records`, b)));
  }
}

function queryList() {
  const lines = [];
  for (let i = 0; i < 5000; i++) {
    const n = (i * 7919) % RECORDS;
    const r = i % 10;
    if (r < 5) lines.push(`host${n}.${ZONE} A`);
    else if (r === 5) lines.push(`host${n - (n % 4)}.${ZONE} AAAA`);
    else if (r === 6) lines.push(`nx${n}.${ZONE} A`);
    else if (r === 7) lines.push(`www.${ZONE} A`);
    else if (r === 8) lines.push(`x${n}.wild.${ZONE} A`);
    else lines.push(`${ZONE} MX`);
  }
  const file = path.join(tmp, 'queries.txt');
  fs.writeFileSync(file, `${lines.join('\n')}\n`);
  return file;
}

async function startKnot(zoneFile, port, signed = false) {
  const dir = path.join(tmp, signed ? 'knot-signed' : 'knot');
  fs.mkdirSync(path.join(dir, 'zones'), { recursive: true });
  fs.copyFileSync(zoneFile, path.join(dir, 'zones', `${ZONE}.zone`));
  fs.writeFileSync(path.join(dir, 'knot.conf'), `server:\n    rundir: "${dir}"\n    listen: 127.0.0.1@${port}\ncontrol:\n    listen: "${dir}/knot.sock"\ndatabase:\n    storage: "${dir}/db"\nlog:\n  - target: stderr\n    any: warning\ntemplate:\n  - id: default\n    storage: "${dir}/zones"\n    file: "%s.zone"\nzone:\n  - domain: ${ZONE}\n${signed ? '    dnssec-signing: on\n' : ''}`);
  start('knotd', ['-c', path.join(dir, 'knot.conf')]);
}

async function startPdns(zoneFile, port, signed = false) {
  const dir = path.join(tmp, signed ? 'pdns-signed' : 'pdns');
  fs.mkdirSync(dir, { recursive: true });
  const db = path.join(dir, 'pdns.sqlite3');
  const schema = ['/usr/share/pdns-backend-sqlite3/schema/schema.sqlite3.sql', '/usr/share/doc/pdns-backend-sqlite3/schema.sqlite3.sql'].find((p) => fs.existsSync(p));
  const { stdout: inserts } = await run('zone2sql', ['--gsqlite', `--zone=${zoneFile}`, `--zone-name=${ZONE}`], { maxBuffer: 64 << 20 });
  const { default: Database } = await import('better-sqlite3');
  const sqlite = new Database(db);
  sqlite.exec(fs.readFileSync(schema, 'utf8'));
  sqlite.exec(inserts);
  sqlite.close();
  fs.writeFileSync(path.join(dir, 'pdns.conf'), `launch=gsqlite3\ngsqlite3-database=${db}\ngsqlite3-dnssec=${signed ? 'yes' : 'no'}\n`);
  if (signed) {
    await run('pdnsutil', [`--config-dir=${dir}`, 'secure-zone', ZONE]);
    await run('pdnsutil', [`--config-dir=${dir}`, 'rectify-zone', ZONE]);
  }
  start('pdns_server', ['--daemon=no', '--guardian=no', '--disable-syslog', '--write-pid=no', `--config-dir=${dir}`, `--socket-dir=${dir}`,
    '--launch=gsqlite3', `--gsqlite3-database=${db}`, '--local-address=127.0.0.1', `--local-port=${port}`, '--loglevel=3']);
}

async function dnsperf(name, port, queries, dnssecOk = false) {
  log(`dnsperf against ${name} for ${SECONDS}s (${CLIENTS} clients${dnssecOk ? ', DO set' : ''})`);
  const { stdout } = await run('dnsperf', ['-s', '127.0.0.1', '-p', String(port), '-d', queries, '-l', String(SECONDS), '-c', String(CLIENTS), '-q', '200', ...(dnssecOk ? ['-D'] : [])], { timeout: (SECONDS + 30) * 1000 });
  const qps = Number(/Queries per second:\s+([\d.]+)/.exec(stdout)?.[1]);
  const lat = /Average Latency \(s\):\s+([\d.]+)/.exec(stdout);
  const lost = /Queries lost:\s+(\d+)/.exec(stdout)?.[1];
  const r = { name, qps, latencyMs: lat ? Number(lat[1]) * 1000 : NaN, lost: Number(lost ?? 0) };
  log(`${name}: ${r.qps.toFixed(0)} qps, ${r.latencyMs.toFixed(3)} ms average latency, ${r.lost} lost`);
  return r;
}

async function main() {
  const [sPort, jPort, kPort, pPort] = [await freePort(), await freePort(), await freePort(), await freePort()];
  const out = await buildStratus();
  const base = await startStratus(out, sPort, true);
  const jsBase = await startStratus(out, jPort, false);
  await loadZone(base);
  await loadZone(jsBase);
  const { stdout: axfr } = await run('dig', ['@127.0.0.1', '-p', String(sPort), ZONE, 'AXFR', '+nocmd', '+nostats', '+nocomments'], { maxBuffer: 64 << 20 });
  const zoneFile = path.join(tmp, `${ZONE}.zone`);
  const rrs = axfr.split('\n').filter((l) => l && !l.startsWith(';'));
  fs.writeFileSync(zoneFile, `${rrs.slice(0, -1).join('\n')}\n`);
  log(`zone transferred from Stratus: ${rrs.length - 1} records`);
  await startKnot(zoneFile, kPort);
  await startPdns(zoneFile, pPort);
  const serial = await soaAt(sPort);
  for (const [n, p] of [['Knot', kPort], ['PowerDNS', pPort]]) await waitFor(`${n} to serve the zone`, async () => (await soaAt(p)) === serial);
  await waitFor('Stratus JS to serve the zone', async () => (await soaAt(jPort)) !== '');
  log('all four servers answer the same SOA');
  const queries = queryList();
  report('unsigned', await rounds([['Stratus', sPort], ['PowerDNS', pPort], ['Knot', kPort], ['Stratus JS', jPort]], queries, false));
  if (process.env.BENCH_SIGNED === '0') return;

  // Signed: DNSSEC on in Stratus through the API; PowerDNS and Knot as second instances that sign.
  const [pSigned, kSigned] = [await freePort(), await freePort()];
  for (const b of [base, jsBase]) {
    const [zone] = await api(b, 'GET', `/zones?name=${ZONE}`);
    await api(b, 'PATCH', `/zones/${zone.id}/dnssec`, { status: 'active' });
  }
  await startPdns(zoneFile, pSigned, true);
  await startKnot(zoneFile, kSigned, true);
  for (const [n, p] of [['Stratus', sPort], ['Stratus JS', jPort], ['PowerDNS (signed)', pSigned], ['Knot (signed)', kSigned]]) await waitFor(`${n} to serve a DNSKEY`, async () => (await keysAt(p)).includes('DNSKEY'));
  log('all four servers answer the zone signed');
  report('signed (DO set)', await rounds([['Stratus', sPort], ['PowerDNS', pSigned], ['Knot', kSigned], ['Stratus JS', jPort]], queries, true));
}

const keysAt = async (port) => (await run('dig', ['@127.0.0.1', '-p', String(port), '+dnssec', '+norec', '+time=1', '+tries=1', ZONE, 'DNSKEY'])).stdout;

/** BENCH_ROUNDS rounds of dnsperf against each server in turn; each server's best round. */
async function rounds(servers, queries, dnssecOk) {
  const best = new Map();
  for (let round = 1; round <= ROUNDS; round++) {
    log(`round ${round} of ${ROUNDS}${dnssecOk ? ' (DO set)' : ''}`);
    for (const [n, p] of servers) {
      const r = await dnsperf(n, p, queries, dnssecOk);
      if (!best.has(n) || r.qps > best.get(n).qps) best.set(n, r);
    }
  }
  return servers.map(([n]) => best.get(n));
}

function report(what, results) {
  const [stratus, pdns, knot, js] = results;
  console.log(`\n${what}: best of ${ROUNDS} rounds of ${SECONDS}s each, ${CLIENTS} dnsperf clients, ${RECORDS} hosts in the zone; load average now ${os.loadavg().map((l) => l.toFixed(2)).join(' ')} (1/5/15 min)`);
  console.log('\nserver      qps        avg latency (ms)   lost');
  for (const r of results) console.log(`${r.name.padEnd(10)}  ${r.qps.toFixed(0).padStart(8)}   ${r.latencyMs.toFixed(3).padStart(10)}         ${r.lost}`);
  console.log(`\n${what} Stratus / PowerDNS: ${(stratus.qps / pdns.qps).toFixed(2)}x qps (target >= 1.00), latency ${(stratus.latencyMs / pdns.latencyMs).toFixed(2)}x`);
  console.log(`${what} Stratus / Knot:     ${(stratus.qps / knot.qps).toFixed(2)}x qps, latency ${(stratus.latencyMs / knot.latencyMs).toFixed(2)}x`);
  console.log(`${what} Stratus JS (--dns-native-udp off) / PowerDNS: ${(js.qps / pdns.qps).toFixed(2)}x qps, / Knot: ${(js.qps / knot.qps).toFixed(2)}x; native / JS: ${(stratus.qps / js.qps).toFixed(2)}x`);
}

main()
  .catch((err) => { console.error(err); for (const c of children) if (c.output) console.error(c.output.slice(-2000)); process.exitCode = 1; })
  .finally(() => {
    for (const c of children) if (c.exitCode === null) c.kill('SIGTERM');
    setTimeout(() => {
      fs.rmSync(tmp, { recursive: true, force: true });
      if (buildDir) fs.rmSync(buildDir, { recursive: true, force: true });
    }, 500);
  });
