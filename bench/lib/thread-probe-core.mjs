/**
 * The figures bench/lib/loop-delay.mjs collects per thread: event-loop delay, GC pauses (the full GC forced to
 * read the heap left out), V8 heap, and the thread's scheduling (/proc/thread-self/schedstat: time on a CPU,
 * time runnable but waiting for one, and how often it was put on a CPU).
 */
import fs from 'node:fs';
import v8 from 'node:v8';
import { PerformanceObserver, constants, monitorEventLoopDelay } from 'node:perf_hooks';

const KINDS = {
  [constants.NODE_PERFORMANCE_GC_MINOR]: 'minor',
  [constants.NODE_PERFORMANCE_GC_MAJOR]: 'major',
  [constants.NODE_PERFORMANCE_GC_INCREMENTAL]: 'incremental',
  [constants.NODE_PERFORMANCE_GC_WEAKCB]: 'weak',
};

function schedstat() {
  try {
    const [run, wait, slices] = fs.readFileSync('/proc/thread-self/schedstat', 'utf8').trim().split(' ').map(Number);
    return { run, wait, slices };
  } catch {
    return { run: 0, wait: 0, slices: 0 };
  }
}

/** The thread's id as the kernel knows it (for renice), from /proc/thread-self. */
function threadTid() {
  try {
    return Number(fs.readlinkSync('/proc/thread-self').split('/').pop());
  } catch {
    return undefined;
  }
}

/** Starts measuring this thread; `take()` returns the figures since the last call and starts over. */
export function startProbe() {
  const h = monitorEventLoopDelay({ resolution: 1 });
  h.enable();
  let gc = [];
  /** When the last forced GC ran (its pause is the probe's own, not the thread's). */
  let forced = [0, 0];
  let sched = schedstat();
  let since = performance.now();
  new PerformanceObserver((list) => {
    for (const e of list.getEntries()) {
      if (e.startTime >= forced[0] && e.startTime <= forced[1]) continue;
      gc.push([KINDS[e.detail?.kind] ?? String(e.detail?.kind), e.duration]);
    }
  }).observe({ entryTypes: ['gc'] });
  return {
    take() {
      const ms = (ns) => Math.round(ns / 1e4) / 100;
      const pauses = gc;
      gc = [];
      const now = schedstat();
      const wall = performance.now() - since;
      const s = { wallMs: Math.round(wall), cpuMs: Math.round((now.run - sched.run) / 1e6), runnableWaitMs: Math.round((now.wait - sched.wait) / 1e6), slices: now.slices - sched.slices };
      const f0 = performance.now();
      globalThis.gc?.();
      forced = [f0, performance.now()];
      const heap = v8.getHeapStatistics();
      const byKind = {};
      for (const [kind, d] of pauses) {
        const k = (byKind[kind] ??= { n: 0, total: 0, max: 0 });
        k.n++; k.total += d; k.max = Math.max(k.max, d);
      }
      const sorted = pauses.map((p) => p[1]).sort((a, b) => a - b);
      const out = {
        tid: threadTid(),
        p50: ms(h.percentile(50)), p99: ms(h.percentile(99)), max: ms(h.max), sched: s,
        spacesMiB: Object.fromEntries(v8.getHeapSpaceStatistics().filter((x) => x.space_size > 0).map((x) => [x.space_name.replace('_space', ''), Math.round(x.space_size / 1048576)])),
        heapMiB: heap.used_heap_size / 1048576, heapCommittedMiB: heap.total_heap_size / 1048576, externalMiB: heap.external_memory / 1048576,
        gc: { count: sorted.length, over1ms: sorted.filter((d) => d > 1).length, max: sorted.at(-1) ?? 0, byKind },
      };
      h.reset();
      sched = schedstat();
      since = performance.now();
      return out;
    },
  };
}
