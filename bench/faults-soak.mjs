#!/usr/bin/env node
/**
 * Fault soak (not CI): `stratus serve` on PostgreSQL (through a TCP proxy this script controls) with object
 * bodies in an S3 blob store (a second `stratus serve`'s S3 listener), under mixed load (record creates over
 * the v4 API, 100 KiB object puts and gets over S3, DNS queries over UDP), with a fault every minute, in turn:
 * backends terminated, PostgreSQL refusing connections, a stalled network, connections cut, the blob store
 * stopped (and, with --pg-restart, a real `pg_ctlcluster … restart`). Prints availability per interface,
 * errors by code, recovery time per fault, and checks at the end that no acknowledged write was lost and the
 * process never exited.
 *
 *   npm run build && node bench/faults-soak.mjs [--minutes 30] [--fault-every 60] [--fault-seconds 10]
 *                                              [--writers 6] [--pg-restart]
 *
 * PostgreSQL: STRATUS_TEST_POSTGRES (default postgres://postgres@127.0.0.1:5432/postgres), a database of its own.
 */
import { spawn, execFile } from 'node:child_process';
import { promisify } from 'node:util';
import dgram from 'node:dgram';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { CreateBucketCommand, GetObjectCommand, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { parseArgs } from 'node:util';
// Node.js 22.18+/24 strip the test helper's types on import: one proxy for the tests and the soak.
import { startTcpProxy } from '../test/faults/tcp-proxy.ts';

const { values: opt } = parseArgs({ options: {
  minutes: { type: 'string', default: '30' }, 'fault-every': { type: 'string', default: '60' },
  'fault-seconds': { type: 'string', default: '10' }, writers: { type: 'string', default: '6' }, 'pg-restart': { type: 'boolean', default: false },
} });
const MINUTES = Number(opt.minutes);
const FAULT_EVERY_MS = Number(opt['fault-every']) * 1000;
const FAULT_MS = Number(opt['fault-seconds']) * 1000;
const WRITERS = Number(opt.writers);
const ADMIN_URL = process.env.STRATUS_TEST_POSTGRES ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const CLI = path.resolve(import.meta.dirname, '../dist/cli.js');
const EMAIL = 'soak@example.com';
const KEY = '0123456789abcdef0123456789abcdef01234';
const S3_KEY = { accessKeyId: 'stratussoakaccesskey000000000000', secretAccessKey: 'stratus-soak-secret-000000000000000000000000000000000000000000' };
const ZONE = 'soak.example';
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const run = promisify(execFile);

async function admin(fn) {
  const c = new pg.Client({ connectionString: ADMIN_URL });
  await c.connect();
  try { return await fn(c); } finally { await c.end(); }
}

/** `stratus serve` in a child process; resolves once its listeners are up. */
async function serve(dataDir, flags) {
  const all = { 'data-dir': dataDir, http: '127.0.0.1:0', dns: '127.0.0.1:0', s3: '127.0.0.1:0', edge: 'off', admin: '127.0.0.1:0', 'auth-email': EMAIL, 'auth-key': KEY,
    's3-access-key-id': S3_KEY.accessKeyId, 's3-secret-access-key': S3_KEY.secretAccessKey, 'log-level': 'warn', 'rate-limit': '0', 'auth-failure-limit': '0', ...flags };
  const child = spawn(process.execPath, [CLI, 'serve', ...Object.entries(all).flatMap(([k, v]) => [`--${k}`, v])], { stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout.on('data', (d) => { out += d; });
  child.stderr.on('data', (d) => { out += d; });
  const exited = new Promise((resolve) => child.on('exit', (code, signal) => resolve(code ?? signal)));
  for (let i = 0; !/S3 API listening/.test(out); i++) {
    if (child.exitCode !== null || i > 600) throw new Error(`stratus did not start:\n${out}`);
    await sleep(100);
  }
  return {
    child, exited, output: () => out,
    apiBase: /v4 API listening on (\S+)/.exec(out)[1], s3Url: /S3 API listening on (\S+)/.exec(out)[1], dnsPort: Number(/DNS listening on \S+:(\d+)/.exec(out)[1]),
  };
}

const s3Client = (endpoint) => new S3Client({ endpoint, region: 'auto', forcePathStyle: true, maxAttempts: 1, credentials: S3_KEY });

// ---- statistics ---------------------------------------------------------------------------------------------
const stats = { v4: { ok: 0, total: 0, errors: new Map() }, s3: { ok: 0, total: 0, errors: new Map() }, dns: { ok: 0, total: 0, errors: new Map() } };
const lastOk = { v4: 0, s3: 0, dns: 0 };
function record(kind, ok, error) {
  const s = stats[kind];
  s.total++;
  if (ok) { s.ok++; lastOk[kind] = Date.now(); return; }
  s.errors.set(error, (s.errors.get(error) ?? 0) + 1);
}
const ackedRecords = new Map();
const ackedObjects = new Map();

// ---- load ---------------------------------------------------------------------------------------------------
let stopping = false;
async function recordWriter(node, zoneId, w) {
  for (let i = 0; !stopping; i++) {
    const name = `r${w}-${i}`;
    try {
      const res = await fetch(`${node.apiBase}/zones/${zoneId}/dns_records`, { method: 'POST', headers: { 'x-auth-email': EMAIL, 'x-auth-key': KEY, 'content-type': 'application/json' }, body: JSON.stringify({ type: 'TXT', name, content: `"${i}"`, ttl: 120 }) });
      const body = await res.json().catch(() => undefined);
      if (res.status === 200 && body?.success) { ackedRecords.set(body.result.id, name); record('v4', true); } else { record('v4', false, `${res.status}:${body?.errors?.[0]?.code ?? 'no envelope'}`); await sleep(100); }
    } catch (err) { record('v4', false, `fetch: ${err.cause?.code ?? err.message}`); await sleep(100); }
  }
}
async function objectWriter(s3, w) {
  const body = randomBytes(100 * 1024);
  for (let i = 0; !stopping; i++) {
    const key = `o${w}-${i}`;
    try {
      if (i % 3 === 2 && ackedObjects.size > 0) {
        const [k] = [...ackedObjects.keys()].slice(-1);
        const got = await s3.send(new GetObjectCommand({ Bucket: 'soak', Key: k }));
        await got.Body.transformToByteArray();
      } else {
        await s3.send(new PutObjectCommand({ Bucket: 'soak', Key: key, Body: body }));
        ackedObjects.set(key, body.length);
      }
      record('s3', true);
    } catch (err) { record('s3', false, `${err.$metadata?.httpStatusCode ?? 'network'}:${err.name}`); await sleep(100); }
  }
}
function dnsQuery(port, name) {
  const labels = name.split('.').flatMap((l) => [Buffer.from([l.length]), Buffer.from(l)]);
  const msg = Buffer.concat([Buffer.from([0x12, 0x34, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0]), ...labels, Buffer.from([0, 0, 1, 0, 1])]);
  return new Promise((resolve) => {
    const sock = dgram.createSocket('udp4');
    const timer = setTimeout(() => { sock.close(); resolve('timeout'); }, 1000);
    sock.on('message', (m) => { clearTimeout(timer); sock.close(); resolve(m[3] & 0x0f); });
    sock.send(msg, port, '127.0.0.1');
  });
}
async function dnsReader(node) {
  while (!stopping) {
    const rcode = await dnsQuery(node.dnsPort, `www.${ZONE}`);
    record('dns', rcode === 0, `rcode ${rcode}`);
    await sleep(20);
  }
}

// ---- faults -------------------------------------------------------------------------------------------------
async function main() {
  const dbName = `stratus_soak_${randomBytes(4).toString('hex')}`;
  await admin((c) => c.query(`CREATE DATABASE ${dbName}`));
  const dbUrl = new URL(ADMIN_URL.replace(/\/[^/]*$/, `/${dbName}`));
  const proxy = await startTcpProxy({ host: dbUrl.hostname, port: Number(dbUrl.port || 5432) });
  dbUrl.host = `127.0.0.1:${proxy.port}`;
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'stratus-soak-'));
  let provider = await serve(path.join(tmp, 'provider'), {});
  const providerPort = new URL(provider.s3Url).port;
  const providerS3 = s3Client(provider.s3Url);
  await providerS3.send(new CreateBucketCommand({ Bucket: 'blobs' }));
  providerS3.destroy();
  const node = await serve(path.join(tmp, 'node'), {
    'database-url': dbUrl.toString(), 'database-timeout': '5', 'blobs-s3-bucket': 'blobs', 'blobs-s3-endpoint': provider.s3Url,
    'blobs-s3-access-key-id': S3_KEY.accessKeyId, 'blobs-s3-secret-access-key': S3_KEY.secretAccessKey,
  });
  const headers = { 'x-auth-email': EMAIL, 'x-auth-key': KEY, 'content-type': 'application/json' };
  const account = (await (await fetch(`${node.apiBase}/accounts`, { headers })).json()).result[0].id;
  const zoneId = (await (await fetch(`${node.apiBase}/zones`, { method: 'POST', headers, body: JSON.stringify({ name: ZONE, account: { id: account } }) })).json()).result.id;
  await fetch(`${node.apiBase}/zones/${zoneId}/dns_records`, { method: 'POST', headers, body: JSON.stringify({ type: 'A', name: 'www', content: '192.0.2.1', ttl: 300 }) });
  const s3 = s3Client(node.s3Url);
  await s3.send(new CreateBucketCommand({ Bucket: 'soak' }));

  const loops = [
    ...Array.from({ length: WRITERS }, (_, w) => recordWriter(node, zoneId, w)),
    ...Array.from({ length: Math.max(1, WRITERS >> 1) }, (_, w) => objectWriter(s3, w)),
    dnsReader(node),
  ];
  const faults = {
    'pg-terminate': async () => { await admin((c) => c.query('SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1', [dbName])); },
    'pg-refuse': async () => { proxy.setMode('refuse'); await sleep(FAULT_MS); proxy.setMode('pass'); },
    'pg-stall': async () => { proxy.setMode('stall'); await sleep(FAULT_MS); proxy.setMode('pass'); },
    'pg-cut': async () => { proxy.cut(); },
    'blob-store-stopped': async () => {
      provider.child.kill('SIGTERM');
      await provider.exited;
      await sleep(FAULT_MS);
      provider = await serve(path.join(tmp, 'provider'), { s3: `127.0.0.1:${providerPort}` });
    },
    ...(opt['pg-restart'] ? { 'pg-restart': async () => {
      const { stdout } = await run('pg_lsclusters', ['--no-header']);
      const [version, name] = stdout.split('\n').map((l) => l.trim().split(/\s+/)).find((f) => f[2] === '5432');
      await run('pg_ctlcluster', ['--skip-systemctl-redirect', version, name, 'restart', '-m', 'fast']);
    } } : {}),
  };
  const names = Object.keys(faults);
  const recoveries = [];
  const endAt = Date.now() + MINUTES * 60_000;
  const started = Date.now();
  console.log(`soak: ${MINUTES} min, a fault every ${FAULT_EVERY_MS / 1000} s (${names.join(', ')}), ${WRITERS} record writers`);
  for (let n = 0; Date.now() + FAULT_EVERY_MS / 2 < endAt; n++) {
    await sleep(Math.min(FAULT_EVERY_MS / 2, endAt - Date.now()));
    const name = names[n % names.length];
    const faultAt = Date.now();
    await faults[name]();
    const endedAt = Date.now();
    const recovery = {};
    for (const kind of ['v4', 's3']) {
      while (lastOk[kind] < endedAt && Date.now() - endedAt < 60_000) await sleep(20);
      recovery[kind] = lastOk[kind] >= endedAt ? lastOk[kind] - endedAt : 'not within 60 s';
    }
    recoveries.push({ fault: name, at: Math.round((faultAt - started) / 1000), lasted: endedAt - faultAt, recoveryMs: recovery });
    console.log(`  ${Math.round((faultAt - started) / 1000)} s: ${name} (${endedAt - faultAt} ms), back in v4 ${recovery.v4} ms, s3 ${recovery.s3} ms; process ${node.child.exitCode === null ? 'running' : `EXITED ${node.child.exitCode}`}`);
    await sleep(Math.max(0, Math.min(FAULT_EVERY_MS / 2, endAt - Date.now())));
  }
  stopping = true;
  await Promise.all(loops);

  // ---- verification and report ------------------------------------------------------------------------------
  const present = new Set();
  for (let page = 1; ; page++) {
    const body = await (await fetch(`${node.apiBase}/zones/${zoneId}/dns_records?type=TXT&per_page=5000&page=${page}`, { headers })).json();
    for (const r of body.result) present.add(r.id);
    if (page >= body.result_info.total_pages) break;
  }
  const lostRecords = [...ackedRecords.keys()].filter((id) => !present.has(id)).length;
  let lostObjects = 0;
  for (const [key, size] of ackedObjects) {
    try { const got = await s3.send(new GetObjectCommand({ Bucket: 'soak', Key: key })); if ((await got.Body.transformToByteArray()).length !== size) lostObjects++; } catch { lostObjects++; }
  }
  const alive = node.child.exitCode === null;
  console.log('\navailability (ok / total):');
  for (const [kind, s] of Object.entries(stats)) {
    console.log(`  ${kind.padEnd(4)} ${(100 * s.ok / Math.max(1, s.total)).toFixed(2)}%  (${s.ok} / ${s.total})  errors: ${JSON.stringify(Object.fromEntries(s.errors))}`);
  }
  const times = recoveries.flatMap((r) => Object.values(r.recoveryMs)).filter((v) => typeof v === 'number').sort((a, b) => a - b);
  console.log(`recovery after a fault ended (ms): median ${times[times.length >> 1] ?? '-'}, max ${times.at(-1) ?? '-'}; faults: ${recoveries.length}`);
  console.log(`acknowledged: ${ackedRecords.size} records (${lostRecords} lost), ${ackedObjects.size} objects (${lostObjects} lost); process ${alive ? 'never exited' : `EXITED (${node.child.exitCode})`}`);
  s3.destroy();
  node.child.kill('SIGTERM');
  const code = await node.exited;
  console.log(`SIGTERM: exit ${code}`);
  provider.child.kill('SIGTERM');
  await provider.exited;
  await proxy.close();
  await admin((c) => c.query(`DROP DATABASE IF EXISTS ${dbName} WITH (FORCE)`));
  fs.rmSync(tmp, { recursive: true, force: true });
  process.exitCode = alive && lostRecords === 0 && lostObjects === 0 && code === 0 ? 0 : 1;
}

await main();
