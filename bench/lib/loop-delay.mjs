/**
 * Preloaded into a Stratus process by bench/big-zone.mjs (`node --import`): measures the main thread's event-loop
 * delay with perf_hooks.monitorEventLoopDelay, and starts every worker thread (the DNS thread) through
 * thread-probe.mjs, which measures the same in the thread plus its GC pauses. On SIGUSR2 each thread writes, to
 * `<STRATUS_LOOP_DELAY_DIR>/<pid>[-<threadId>].json`, its p50/p99/max delay (ms) since the last signal, its GC
 * pauses, and its V8 heap (used after a full GC when started with --expose-gc, and committed), then starts over.
 */
import fs from 'node:fs';
import { syncBuiltinESMExports } from 'node:module';
import { fileURLToPath } from 'node:url';
import workerThreads from 'node:worker_threads';
import { startProbe } from './thread-probe-core.mjs';

const dir = process.env.STRATUS_LOOP_DELAY_DIR;
if (dir) {
  const probe = startProbe();
  const channel = new workerThreads.BroadcastChannel('stratus-bench-probe');
  channel.unref();
  let threads = 0;
  process.on('SIGUSR2', () => {
    fs.writeFileSync(`${dir}/${process.pid}.json`, JSON.stringify({ ...probe.take(), threads }));
    channel.postMessage({ dir, pid: process.pid });
  });
  const wrapper = fileURLToPath(new URL('./thread-probe.mjs', import.meta.url));
  const Original = workerThreads.Worker;
  workerThreads.Worker = class ProbedWorker extends Original {
    constructor(script, opts = {}) {
      if (opts.eval || typeof script !== 'string') super(script, opts);
      else {
        super(wrapper, { ...opts, argv: [...(opts.argv ?? []), '--bench-probe-script', script] });
        threads++;
        this.once('exit', () => { threads--; });
      }
    }
  };
  syncBuiltinESMExports();
}
