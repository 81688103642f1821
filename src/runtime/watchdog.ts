/**
 * Watches the live workerd generation: a ping to its internal socket must be answered within the CPU limit
 * (a script in a synchronous loop blocks the whole process, so this is how a runaway script is caught), and
 * its resident memory must stay under the memory limit (read from /proc). A failing check calls `onFailure`.
 * Generations that are draining after a replacement are held to the same memory limit, and to the CPU limit
 * through the kernel's scheduler statistics (busy-stretch.ts: a draining generation answers no ping). While requests of
 * versions with their own, lower CPU limit are in flight on a generation (`budget()`, cpu-budgets.ts), its ping must be answered
 * within the smallest of them, and is sent more often (every half of it, at least every 10 ms).
 *
 * A generation whose ping waits longer than {@link STALL_MS} while it spends CPU time meanwhile (a twentieth
 * of the wait, two 10 ms clock ticks at least: a script keeping its thread busy, not a process waiting for a busy
 * machine; a looping process on a machine with ten runnable processes per core still gets a tenth of one) has its CPU priority lowered (nice 19) until it answers again, so while it loops towards its CPU
 * limit it takes the least of the cores from the other runtimes (other accounts' scripts, the front, Node).
 * Raising it back needs the right to (root or CAP_SYS_NICE); without it the generation stays at the low
 * priority until it is replaced.
 */
import fs from 'node:fs';
import os from 'node:os';
import type { Logger } from '../shared/logger.js';
import type { WorkerdProcess } from './workerd/process.js';
import { BusyStretch, readMainThread } from './busy-stretch.js';
import { cpuTimeMs } from './proc-stat.js';
import { PingClient } from './ping-client.js';

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
  /** A draining generation over the memory or the CPU limit (the runtime kills it). */
  onDrainingFailure?(process: WorkerdProcess, reason: string): void;
  /** Lower the CPU priority of a generation busy past {@link STALL_MS} (account runtimes: other accounts' runtimes gain). */
  lowerWhenBusy?: boolean;
  /** The smallest own CPU limit (ms) of the requests in flight on that generation, if any is lower than `cpuMs`. */
  budget?(process: WorkerdProcess): number | undefined;
}

const INTERVAL_MS = 100;
/** A ping unanswered this long lowers the generation's CPU priority (ms). */
export const STALL_MS = 100;
/** The nice value of a stalled generation (the lowest priority). */
const STALLED_NICE = 19;

/** Sets a process's nice value; false when the system refuses (raising it back needs privileges). */
function renice(pid: number, nice: number): boolean {
  try {
    os.setPriority(pid, nice);
    return true;
  } catch {
    return false;
  }
}

function rssMb(pid: number): number | undefined {
  try {
    const m = /VmRSS:\s+(\d+) kB/.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Number(m[1]) / 1024 : undefined;
  } catch {
    return undefined;
  }
}

/** Whether a ping failed by its deadline (not refused: a generation told to stop closes its sockets). */
function timedOut(err: unknown): boolean {
  const name = (err as Error | undefined)?.name;
  return name === 'AbortError' || name === 'TimeoutError';
}

/** Periodic liveness and memory checks of the live generation, and memory and CPU checks of draining ones. */
export class Watchdog {
  private timer: NodeJS.Timeout | undefined;
  private inFlight = false;
  private stopped = false;
  /** Generations running at the stalled priority. */
  private readonly lowered = new WeakSet<WorkerdProcess>();
  /** Pings in a row that failed at once (not by their deadline), per generation. */
  private readonly broken = new WeakMap<WorkerdProcess, number>();
  /** How long each draining generation's main thread has been busy without a pause. */
  private readonly busy = new WeakMap<WorkerdProcess, BusyStretch>();
  /** The connection the live generation is pinged over, and that generation. */
  private pinger: { process: WorkerdProcess; client: PingClient } | undefined;

  constructor(private readonly opts: WatchdogOptions) {
    this.schedule();
  }

  /** The CPU limit now: the node's, or a lower own limit of a request in flight. */
  private limitMs(p: WorkerdProcess | undefined): number {
    const own = p ? this.opts.budget?.(p) : undefined;
    return own !== undefined && own < this.opts.cpuMs ? own : this.opts.cpuMs;
  }

  private schedule(): void {
    if (this.stopped) return;
    let limit = this.limitMs(this.opts.target());
    for (const d of this.opts.draining?.() ?? []) limit = Math.min(limit, this.limitMs(d));
    const interval = Math.max(10, Math.min(INTERVAL_MS, Math.floor(limit / 2)));
    this.timer = setTimeout(() => { void this.check(); this.schedule(); }, interval);
    this.timer.unref();
  }

  private async check(): Promise<void> {
    for (const d of this.opts.draining?.() ?? []) this.checkDraining(d);
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
    const cpuAtSend = p.pid !== undefined ? cpuTimeMs(p.pid) : undefined;
    let limit = this.limitMs(p);
    const tick = setInterval(() => {
      limit = Math.min(limit, this.limitMs(p));
      const waited = Date.now() - sent;
      if (this.opts.lowerWhenBusy && waited >= STALL_MS && !this.lowered.has(p) && p.pid !== undefined && p.alive && cpuAtSend !== undefined
        && (cpuTimeMs(p.pid) ?? 0) - cpuAtSend >= Math.max(20, waited / 20) && renice(p.pid, STALLED_NICE)) {
        this.lowered.add(p);
        this.opts.logger.warn({ pid: p.pid, waitedMs: waited }, 'generation busy; lowering its CPU priority until it answers');
      }
      if (waited >= limit) controller.abort();
    }, Math.max(5, Math.min(50, Math.floor(limit / 4), STALL_MS / 4)));
    tick.unref();
    const deadline = setTimeout(() => controller.abort(new DOMException('the ping timed out', 'TimeoutError')), limit);
    deadline.unref();
    try {
      await this.pingerOf(p).ping(controller.signal);
      this.broken.delete(p);
      if (this.lowered.has(p) && p.pid !== undefined && renice(p.pid, 0)) this.lowered.delete(p);
    } catch (err) {
      const why = `no answer within the CPU limit of ${limit} ms (${(err as Error).name})`;
      // A ping that failed at once (not by its deadline) may have met a kept-alive connection the generation
      // closed as it was reused: only the second in a row counts (a generation that died is caught by its exit).
      const failedAtOnce = !timedOut(err) && (this.broken.get(p) ?? 0) < 1;
      if (failedAtOnce) this.broken.set(p, (this.broken.get(p) ?? 0) + 1);
      else if (p === this.opts.target() && p.alive) this.opts.onFailure(why);
      // Replaced while the ping waited (a deploy swapped generations under a looping script): the loop is still
      // there, and a draining generation answers no ping: stop it now rather than after its grace.
      else if (p.alive && timedOut(err) && this.isDraining(p)) this.opts.onDrainingFailure?.(p, `${why}, replaced meanwhile`);
    } finally {
      clearInterval(tick);
      clearTimeout(deadline);
      this.inFlight = false;
    }
  }

  /** The ping client of generation `p` (a new connection once the live generation changed). */
  private pingerOf(p: WorkerdProcess): PingClient {
    if (this.pinger?.process !== p) {
      this.pinger?.client.close();
      this.pinger = { process: p, client: new PingClient(p.internalPort, this.opts.secret) };
    }
    return this.pinger.client;
  }

  /** A draining generation: over the memory limit, or its main thread busy without a pause past the CPU limit. */
  private checkDraining(d: WorkerdProcess): void {
    if (!d.alive || d.pid === undefined) return;
    const rss = rssMb(d.pid);
    if (rss !== undefined && rss > this.opts.memoryMb) {
      this.opts.onDrainingFailure?.(d, `memory ${Math.round(rss)} MiB over the limit of ${this.opts.memoryMb} MiB while draining`);
      return;
    }
    const reading = readMainThread(d.pid, performance.now());
    if (!reading) return;
    let stretch = this.busy.get(d);
    if (!stretch) this.busy.set(d, stretch = new BusyStretch());
    const limit = this.limitMs(d);
    const lasted = stretch.observe(reading, limit);
    if (lasted !== undefined) this.opts.onDrainingFailure?.(d, `busy for ${Math.round(lasted)} ms without a pause while draining, past the CPU limit of ${limit} ms`);
  }

  private isDraining(p: WorkerdProcess): boolean {
    for (const d of this.opts.draining?.() ?? []) if (d === p) return true;
    return false;
  }

  stop(): void {
    this.stopped = true;
    clearTimeout(this.timer);
    this.pinger?.client.close();
    this.pinger = undefined;
  }
}
