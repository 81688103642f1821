/**
 * Shared parts of the v4 API benchmarks (dns-api.mjs, dns-list.mjs): argument parsing, the API server and the
 * bulk loader as child processes, a keep-alive client and percentiles. The server and the loader run in
 * processes of their own, so the process that times requests holds nothing but its client: its own garbage
 * collections stay short and do not show up as server latency.
 */
import http from 'node:http';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { execFileSync, spawn, spawnSync } from 'node:child_process';

/** The benchmark user's credentials. */
export const EMAIL = 'bench@example.com';
export const KEY = 'benchkey0123456789abcdef0123456789abc';

/** `--name value` pairs of the command line. */
export function parseArgs(argv = process.argv.slice(2)) {
  return Object.fromEntries(argv.reduce((acc, a, i, all) => (a.startsWith('--') ? [...acc, [a.slice(2), all[i + 1]]] : acc), []));
}

/** Runs a script of bench/lib as a child; resolves to the first JSON line it prints and a stop function. */
function startChild(script, args, nodeArgs = []) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [...nodeArgs, script, ...args], { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    const onData = (d) => {
      out += d;
      const line = out.split('\n').find((l) => l.startsWith('{'));
      if (!line) return;
      child.stdout.off('data', onData);
      child.stdout.resume(); // later output is not read
      resolve({ ...JSON.parse(line), child, stop: () => new Promise((r) => { if (child.exitCode !== null) r(); else { child.once('exit', r); child.kill('SIGTERM'); } }) });
    };
    child.stdout.on('data', onData);
    child.once('error', reject);
    child.once('exit', (code) => reject(new Error(`${path.basename(script)} exited with ${code} before it was ready`)));
  });
}

/**
 * Starts the v4 API in a child process (bench/dns-api-server.mjs): `full` is the whole service, `api` the v4
 * API alone. Node options for the server (a profiler, say) can be given in `BENCH_SERVER_NODE_ARGS`.
 * Resolves to {url, dnsPort?, stop()}.
 */
export function startApiServer(mode, dataDir) {
  const nodeArgs = (process.env.BENCH_SERVER_NODE_ARGS ?? '').split(' ').filter(Boolean);
  return startChild(path.join(import.meta.dirname, '..', 'dns-api-server.mjs'), [mode, dataDir, EMAIL, KEY], nodeArgs);
}

/**
 * Loads `records` records into a zone through the records service, in a child process on the same data
 * folder (one transaction per 10,000 records). Shapes: `plain` (host<i>, A and TXT), `tagged` (plain, and every
 * 10th record with a comment and two tags). Resolves to {seconds, serial} once the child has finished.
 */
export async function bulkLoad(dataDir, zone, records, shape = 'plain') {
  const loader = await startChild(path.join(import.meta.dirname, 'bulk-load.mjs'), [dataDir, JSON.stringify({ zone, records, shape })]);
  await new Promise((r) => (loader.child.exitCode !== null ? r() : loader.child.once('exit', r)));
  return { seconds: loader.seconds, serial: loader.serial };
}

/** A v4 client on keep-alive connections (at most `maxSockets` at once). */
export function apiClient(url, maxSockets = 1) {
  const { hostname, port } = new URL(url);
  const agent = new http.Agent({ keepAlive: true, maxSockets });
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

/** The p-th percentile of an ascending array. */
export function percentile(sorted, p) {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}

/**
 * Latency of GET requests measured by wrk (a C load generator) on ONE keep-alive connection, one request at a
 * time, for `seconds` after a one-second warm-up: the least client overhead and noise on top of the server's
 * own time. `luaPath` is a Lua expression for the path of each request (`math.random` is seeded). Resolves to
 * {p50, p75, p90, p99 (ms), requests, failed}, or undefined when wrk is not installed (Debian package `wrk`).
 */
export async function wrkLatency(url, luaPath, seconds = 5) {
  if (spawnSync('wrk', ['--version']).error) return undefined;
  const script = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'stratus-wrk-')), 'paths.lua');
  fs.writeFileSync(script, `math.randomseed(os.time())
local headers = { ["X-Auth-Email"] = "${EMAIL}", ["X-Auth-Key"] = "${KEY}" }
request = function() return wrk.format("GET", ${luaPath}, headers) end
`);
  try {
    const run = (s) => execFileSync('wrk', ['-t1', '-c1', `-d${s}s`, '--latency', '-s', script, url]).toString();
    run(1);
    const out = run(seconds);
    const ms = (label) => {
      const m = new RegExp(`^\\s*${label}%\\s+([\\d.]+)(us|ms|s)\\s*$`, 'm').exec(out);
      if (!m) throw new Error(`wrk printed no ${label}% latency:\n${out}`);
      return Number(m[1]) * ({ us: 0.001, ms: 1, s: 1000 })[m[2]];
    };
    const requests = Number(/(\d+) requests in/.exec(out)?.[1] ?? 0);
    const failed = Number(/Non-2xx or 3xx responses: (\d+)/.exec(out)?.[1] ?? 0) + Number(/Socket errors: .*?(\d+)/.exec(out)?.[1] ?? 0);
    return { p50: ms(50), p75: ms(75), p90: ms(90), p99: ms(99), requests, failed };
  } finally {
    fs.rmSync(path.dirname(script), { recursive: true, force: true });
  }
}
