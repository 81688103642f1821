/**
 * Watches the live workerd generation: a ping to its internal socket must be answered within the CPU limit
 * (a script in a synchronous loop blocks the whole process, so this is how a runaway script is caught), and
 * its resident memory must stay under the memory limit (read from /proc). A failing check calls `onFailure`.
 * Generations that are draining after a replacement are held to the same memory limit. While requests of
 * versions with their own, lower CPU limit are in flight (`budget()`, cpu-budgets.ts), the ping must be answered
 * within the smallest of them, and is sent more often (every half of it, at least every 10 ms).
 */
import fs from 'node:fs';
import type { Logger } from '../shared/logger.js';
import type { WorkerdProcess } from './workerd/process.js';

/** Options of {@link Watchdog}. */
export interface WatchdogOptions {
  cpuMs: number;
  memoryMb: number;
  secret: string;
  logger: Logger;
  target(): WorkerdProcess | undefined;
  onFailure(reason: string): void;
  /** Replaced generations still finishing their requests: memory-checked too (a script can grow while they drain). */
  draining?(): Iterable<WorkerdProcess>;
  /** A draining generation over the memory limit (the runtime kills it). */
  onDrainingFailure?(process: WorkerdProcess, reason: string): void;
  /** The smallest own CPU limit (ms) of the requests in flight, if any is lower than `cpuMs`. */
  budget?(): number | undefined;
}

const INTERVAL_MS = 250;

function rssMb(pid: number): number | undefined {
  try {
    const m = /VmRSS:\s+(\d+) kB/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Number(m[1]) / 1024 : undefined;
  } catch {
    return undefined;
  }
}

/** Periodic liveness and memory checks of the live generation. */
export class Watchdog {
  private timer: NodeJS.Timeout | undefined;
  private inFlight = false;
  private stopped = false;

  constructor(private readonly opts: WatchdogOptions) {
    this.schedule();
  }

  /** The CPU limit now: the node's, or a lower own limit of a request in flight. */
  private limitMs(): number {
    const own = this.opts.budget?.();
    return own !== undefined && own < this.opts.cpuMs ? own : this.opts.cpuMs;
  }

  private schedule(): void {
    if (this.stopped) return;
    const interval = Math.max(10, Math.min(INTERVAL_MS, Math.floor(this.limitMs() / 2)));
    this.timer = setTimeout(() => { void this.check(); this.schedule(); }, interval);
    this.timer.unref();
  }

  private async check(): Promise<void> {
    for (const d of this.opts.draining?.() ?? []) {
      const rss = d.alive && d.pid !== undefined ? rssMb(d.pid) : undefined;
      if (rss !== undefined && rss > this.opts.memoryMb) this.opts.onDrainingFailure?.(d, `memory ${Math.round(rss)} MiB over the limit of ${this.opts.memoryMb} MiB while draining`);
    }
    if (this.inFlight) return;
    const p = this.opts.target();
    if (!p || !p.alive) return;
    const rss = p.pid !== undefined ? rssMb(p.pid) : undefined;
    if (rss !== undefined && rss > this.opts.memoryMb) {
      this.opts.onFailure(`memory ${Math.round(rss)} MiB over the limit of ${this.opts.memoryMb} MiB`);
      return;
    }
    this.inFlight = true;
    // The limit is read again while the ping waits: a request with its own lower limit may start meanwhile.
    const controller = new AbortController();
    const sent = Date.now();
    let limit = this.limitMs();
    const tick = setInterval(() => {
      limit = Math.min(limit, this.limitMs());
      if (Date.now() - sent >= limit) controller.abort();
    }, Math.max(5, Math.min(50, Math.floor(limit / 4))));
    tick.unref();
    try {
      const res = await fetch(`http://127.0.0.1:${p.internalPort}/`, {
        headers: { 'x-stratus-internal': this.opts.secret, 'x-stratus-op': 'ping' }, signal: AbortSignal.any([controller.signal, AbortSignal.timeout(limit)]),
      });
      await res.arrayBuffer();
    } catch (err) {
      if (p === this.opts.target() && p.alive) this.opts.onFailure(`no answer within the CPU limit of ${limit} ms (${(err as Error).name})`);
    } finally {
      clearInterval(tick);
      this.inFlight = false;
    }
  }

  stop(): void {
    this.stopped = true;
    clearTimeout(this.timer);
  }
}
