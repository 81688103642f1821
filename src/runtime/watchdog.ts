/**
 * Watches the live workerd generation: a ping to its internal socket must be answered within the CPU limit
 * (a script in a synchronous loop blocks the whole process, so this is how a runaway script is caught), and
 * its resident memory must stay under the memory limit (read from /proc). A failing check calls `onFailure`.
 * Generations that are draining after a replacement are held to the same memory limit.
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
  private readonly timer: NodeJS.Timeout;
  private inFlight = false;

  constructor(private readonly opts: WatchdogOptions) {
    this.timer = setInterval(() => void this.check(), INTERVAL_MS);
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
    try {
      const res = await fetch(`http://127.0.0.1:${p.internalPort}/`, {
        headers: { 'x-stratus-internal': this.opts.secret, 'x-stratus-op': 'ping' }, signal: AbortSignal.timeout(this.opts.cpuMs),
      });
      await res.arrayBuffer();
    } catch (err) {
      if (p === this.opts.target() && p.alive) this.opts.onFailure(`no answer within the CPU limit of ${this.opts.cpuMs} ms (${(err as Error).name})`);
    } finally {
      this.inFlight = false;
    }
  }

  stop(): void {
    clearInterval(this.timer);
  }
}
