/**
 * Catches a script looping in a generation that can no longer answer pings: a replaced generation that was told
 * to drain (SIGTERM) stops answering on every socket, its internal one included, until it exits, so the
 * watchdog's ping (watchdog.ts) cannot tell a loop from a generation quietly finishing its requests. The kernel
 * can: `/proc/<pid>/task/<pid>/schedstat` gives the time workerd's main thread (the one every script runs on)
 * spent on a CPU and waiting for one. A thread that was runnable nearly all the time for as long as the CPU limit,
 * and got real CPU time meanwhile, never went back to its event loop: the same condition as a ping unanswered for
 * the limit, which is what a live generation is held to.
 */
import fs from 'node:fs';

/** One reading of a thread: when (ms), and its runnable time so far (on a CPU plus waiting for one) and CPU time (ms). */
export interface ThreadReading {
  at: number;
  runnableMs: number;
  cpuMs: number;
}

/** Below this share of an interval spent runnable, the thread went back to its event loop (waited on I/O or a timer). */
export const RUNNABLE_SHARE = 0.8;

/** Reads the main thread of process `pid`; undefined when it is gone or the kernel keeps no scheduler statistics. */
export function readMainThread(pid: number, at: number): ThreadReading | undefined {
  try {
    const [onCpuNs, waitNs] = fs.readFileSync(`/proc/${pid}/task/${pid}/schedstat`, 'utf8').split(' ').map(Number);
    if (!Number.isFinite(onCpuNs) || !Number.isFinite(waitNs)) return undefined;
    return { at, runnableMs: (onCpuNs! + waitNs!) / 1e6, cpuMs: onCpuNs! / 1e6 };
  } catch {
    return undefined;
  }
}

/**
 * The stretch a thread has been runnable without a pause, read after read: {@link observe} returns how long it has
 * lasted (ms) once it holds for `limitMs` with CPU time of at least a twentieth of it (20 ms at least: on a machine
 * with ten runnable processes per core a loop still gets a tenth of one), else undefined.
 */
export class BusyStretch {
  private start: ThreadReading | undefined;
  private last: ThreadReading | undefined;

  /** Takes a new reading; the stretch's length when it is past `limitMs`. */
  observe(now: ThreadReading, limitMs: number): number | undefined {
    const last = this.last;
    this.last = now;
    if (!last || now.at <= last.at) { this.start = now; return undefined; }
    if ((now.runnableMs - last.runnableMs) / (now.at - last.at) < RUNNABLE_SHARE) {
      this.start = now;
      return undefined;
    }
    const start = this.start ?? last;
    this.start = start;
    const lasted = now.at - start.at;
    return lasted >= limitMs && now.cpuMs - start.cpuMs >= Math.max(20, lasted / 20) ? lasted : undefined;
  }
}
