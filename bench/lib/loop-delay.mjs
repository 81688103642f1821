/**
 * Preloaded into a Stratus process by bench/big-zone.mjs (`node --import`): measures the event loop's delay
 * with perf_hooks.monitorEventLoopDelay and, on SIGUSR2, writes p50/p99/max (ms) since the last signal and the
 * V8 heap in use (MiB, after a full GC when started with --expose-gc) to `<STRATUS_LOOP_DELAY_DIR>/<pid>.json`,
 * then starts over.
 */
import fs from 'node:fs';
import { monitorEventLoopDelay } from 'node:perf_hooks';

const dir = process.env.STRATUS_LOOP_DELAY_DIR;
if (dir) {
  const h = monitorEventLoopDelay({ resolution: 1 });
  h.enable();
  process.on('SIGUSR2', () => {
    const ms = (ns) => Math.round(ns / 1e4) / 100;
    globalThis.gc?.();
    const heapMiB = process.memoryUsage().heapUsed / 1048576;
    fs.writeFileSync(`${dir}/${process.pid}.json`, JSON.stringify({ p50: ms(h.percentile(50)), p99: ms(h.percentile(99)), max: ms(h.max), heapMiB }));
    h.reset();
  });
}
