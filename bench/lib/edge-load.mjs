/**
 * The load generators and process meters of bench/edge.mjs: a closed loop (`load`, keep-alive connections,
 * requests/s and p99; `bench/lib/closed-loop.mjs`) and the open loop (`bench/lib/open-loop.mjs`), each in a
 * process of its own, the CPU time each process spends per request (`measured`, from /proc), and small
 * helpers (a one-off GET, a free port, the load average, RSS and PSS).
 */
import fs from 'node:fs';
import path from 'node:path';
import http from 'node:http';
import net from 'node:net';
import os from 'node:os';
import { execFile, execFileSync, fork } from 'node:child_process';
import { wrkLoop } from './wrk-loop.mjs';
import { cpuTimeMs } from '../../dist/runtime/proc-stat.js';

/** open-loop.c compiled once per run (`cc`), into a folder of its own. */
let openLoopBinary;
function compiledOpenLoop() {
  if (!openLoopBinary) {
    openLoopBinary = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'stratus-open-loop-')), 'open-loop');
    execFileSync('cc', ['-O2', '-o', openLoopBinary, path.join(import.meta.dirname, 'open-loop.c')]);
    process.once('exit', () => fs.rmSync(path.dirname(openLoopBinary), { recursive: true, force: true }));
  }
  return openLoopBinary;
}

/**
 * The generators for a run: `seconds` per measure over `concurrency` keep-alive sockets; the open loop offers
 * `offered` requests/s and does not count its first `warm` seconds. `client: 'wrk'` runs the closed loop's TCP
 * measures with wrk (wrk-loop.mjs) instead of the Node generator; `openClient: 'c'` runs the open loop's TCP
 * measures with open-loop.c (no JavaScript runtime in the client) instead of open-loop.mjs.
 */
export function loadGenerators({ seconds, concurrency, offered, warm, client = 'node', openClient = 'node' }) {
  /** The closed-loop load generator, a process of its own (closed-loop.mjs), started once and reused. */
  let closedLoopProcess;
  /** Closed-loop load: `concurrency` keep-alive connections for `seconds`, from the generator's process; returns { rps, p99, count }. */
  function load(port, host) {
    closedLoopProcess ??= fork(path.join(import.meta.dirname, 'closed-loop.mjs'), { stdio: 'inherit' });
    const target = typeof port === 'number' ? { port } : port;
    return new Promise((resolve, reject) => {
      closedLoopProcess.once('message', (m) => (m.error ? reject(new Error(m.error)) : resolve(m)));
      closedLoopProcess.send({ ...target, host, seconds, concurrency });
    });
  }

  /** The open-loop load generator, a process of its own, started once and reused. */
  let openLoopProcess;
  /**
   * Open-loop load: `offered` requests/s for `seconds` (after `warm` seconds not counted) over `concurrency`
   * keep-alive sockets, from the generator's own process; latency from each request's scheduled start.
   * Returns { p50, p99 }.
   */
  function openLoop(port, host) {
    if (openClient === 'c' && typeof port === 'number') {
      return new Promise((resolve, reject) => {
        execFile(compiledOpenLoop(), [String(port), host, String(offered), String(seconds), String(warm), String(concurrency)], (err, out) => (err ? reject(err) : resolve(JSON.parse(out))));
      });
    }
    openLoopProcess ??= fork(path.join(import.meta.dirname, 'open-loop.mjs'), { stdio: 'inherit' });
    const target = typeof port === 'number' ? { port } : port;
    return new Promise((resolve) => {
      openLoopProcess.once('message', resolve);
      openLoopProcess.send({ ...target, host, seconds, offered, concurrency, warm });
    });
  }

  /**
   * Runs `load` while counting the CPU time of `pids` (process label -> pid) and of the load generator (`load`);
   * adds µs per request to the result.
   */
  async function measured(target, pids, host = 'hello.bench') {
    if (client === 'wrk' && typeof target === 'number') {
      const before = Object.fromEntries(Object.entries(pids).filter(([, p]) => p !== undefined).map(([k, p]) => [k, cpuMs(p)]));
      const m = await wrkLoop({ port: target, host, seconds, concurrency });
      m.cpu = Object.fromEntries(Object.entries(before).map(([k, ms]) => [k, ((cpuMs(pids[k]) - ms) * 1000) / m.count]));
      m.cpu.load = (m.loadMs * 1000) / m.count;
      return m;
    }
    closedLoopProcess ??= fork(path.join(import.meta.dirname, 'closed-loop.mjs'), { stdio: 'inherit' });
    pids = Object.fromEntries(Object.entries({ ...pids, load: closedLoopProcess.pid }).filter(([, p]) => p !== undefined));
    const before = Object.fromEntries(Object.entries(pids).map(([k, p]) => [k, cpuMs(p)]));
    const m = await load(target, host);
    m.cpu = Object.fromEntries(Object.entries(pids).map(([k, p]) => [k, ((cpuMs(p) - before[k]) * 1000) / m.count]));
    return m;
  }

  return { load, openLoop, measured, stop: () => { openLoopProcess?.kill(); closedLoopProcess?.kill(); } };
}

/** CPU time (ms) a process has used so far. */
export function cpuMs(pid) {
  const ms = cpuTimeMs(pid);
  if (ms === undefined) throw new Error(`no CPU time for process ${pid}`);
  return ms;
}

/** A free TCP port on 127.0.0.1. */
export function freePort() {
  return new Promise((resolve) => { const s = net.createServer().listen(0, '127.0.0.1', () => { const { port } = s.address(); s.close(() => resolve(port)); }); });
}

/** The 1-minute load average (figures on a shared machine need it). */
export function loadAverage() {
  return fs.readFileSync('/proc/loadavg', 'utf8').split(' ')[0];
}

/** RSS of a process, MiB. */
export function rssMb(pid) {
  const m = /VmRSS:\s+(\d+) kB/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'));
  return Number(m[1]) / 1024;
}

/** PSS of a process (its share of the pages it shares), MiB. */
export function pssMb(pid) {
  const m = /^Pss:\s+(\d+) kB/m.exec(fs.readFileSync(`/proc/${pid}/smaps_rollup`, 'utf8'));
  return Number(m[1]) / 1024;
}

/** One GET on a new connection; resolves { status, body }. */
export async function get(port, host, urlPath = '/') {
  return new Promise((resolve, reject) => {
    http.get({ host: '127.0.0.1', port, path: urlPath, headers: { host }, agent: false }, (res) => {
      let body = ''; res.on('data', (c) => { body += c; }); res.on('end', () => resolve({ status: res.statusCode, body }));
    }).on('error', reject);
  });
}
