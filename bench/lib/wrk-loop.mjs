/**
 * The closed loop of bench/edge.mjs with `wrk` as the client (`--client wrk`; Debian's `wrk`, one thread): the
 * same `concurrency` keep-alive connections for `seconds`, from a C process that spends a few µs per request where
 * the Node generator spends 40-50. On two cores the closed loop is CPU bound, so a costly client takes its share
 * of the cores from the servers, and more from a slower server (fewer answers per wake-up): wrk shows the servers'
 * ratio with less of the client in it. TCP targets only (a Unix socket falls back to the Node generator).
 */
import { spawn, spawnSync } from 'node:child_process';
import { cpuTimeMs } from '../../dist/runtime/proc-stat.js';

/** Whether `wrk` is installed. */
export const WRK = spawnSync('wrk', ['--version']).error === undefined;

/** wrk's latency text (`812.00us`, `3.45ms`, `1.02s`) in ms. */
function ms(text) {
  const m = /^([\d.]+)(us|ms|s)$/.exec(text);
  if (!m) return NaN;
  return Number(m[1]) * (m[2] === 'us' ? 0.001 : m[2] === 's' ? 1000 : 1);
}

/**
 * `concurrency` connections for `seconds` against 127.0.0.1:`port` with Host `host`; resolves { rps, p99, count,
 * loadMs } (loadMs: wrk's own CPU time, sampled every 50 ms until it exits, so up to 50 ms short).
 */
export function wrkLoop({ port, host, seconds, concurrency }) {
  return new Promise((resolve, reject) => {
    const child = spawn('wrk', ['-t1', `-c${concurrency}`, `-d${seconds}s`, '--latency', '-H', `Host: ${host}`, `http://127.0.0.1:${port}/`], { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    let loadMs = 0;
    const sampler = setInterval(() => { loadMs = cpuTimeMs(child.pid) ?? loadMs; }, 50);
    child.stdout.on('data', (d) => { out += d; });
    child.on('error', reject);
    child.on('exit', (code) => {
      clearInterval(sampler);
      const rps = Number(/Requests\/sec:\s+([\d.]+)/.exec(out)?.[1]);
      const count = Number(/(\d+) requests in/.exec(out)?.[1]);
      const p99 = ms(/^\s+99%\s+(\S+)/m.exec(out)?.[1] ?? '');
      if (code !== 0 || !(rps > 0)) reject(new Error(`wrk failed (${code}): ${out}`));
      else if (/Non-2xx/.test(out)) reject(new Error(`wrk saw errors: ${out}`));
      else resolve({ rps, p99, count, loadMs });
    });
  });
}
