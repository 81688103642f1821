/**
 * Counts per key in fixed time windows, the store behind every limit (limits.ts). Two implementations: this
 * file's {@link MemoryCounters} (one node: the embedded SQLite default) and `shared-counters.ts` (the nodes of
 * one PostgreSQL database). A window is `[start, start + seconds)` with `start` a multiple of `seconds` since
 * the epoch, so every node cuts the same windows from the same clock.
 *
 * Invariants: counting never throws and never waits on more than one short read per key and window; a count is
 * never more than what was added (it may be less, see shared-counters.ts); the memory held is bounded by
 * {@link MAX_TRACKED_KEYS} (beyond it new keys count as 0: the limit fails open, never closed).
 */
import type { Clock } from '../shared/clock.js';

/** One fixed window. */
export interface Window {
  /** Start, epoch seconds (a multiple of `seconds`). */
  start: number;
  /** Length, seconds. */
  seconds: number;
}

/** Counts per key and window. */
export interface WindowCounters {
  /** What has been added to `key` in `window`, as this node knows it. */
  count(key: string, window: Window): Promise<number>;
  /** Adds `n` to `key` in `window`. */
  add(key: string, window: Window, n?: number): void;
  /** Stops timers and writes what is still pending (shared counters). */
  close(): Promise<void>;
}

/** Most keys (key and window pairs) a node tracks at once. */
export const MAX_TRACKED_KEYS = 200_000;

/** The window of `seconds` holding `at`. */
export function windowAt(at: Date, seconds: number): Window {
  const now = Math.floor(at.getTime() / 1000);
  return { start: now - (now % seconds), seconds };
}

/** The window before `w`. */
export function previousWindow(w: Window): Window {
  return { start: w.start - w.seconds, seconds: w.seconds };
}

/** Whole seconds from `at` to the end of `w` (at least 1). */
export function secondsLeft(w: Window, at: Date): number {
  return Math.max(1, Math.ceil(w.start + w.seconds - at.getTime() / 1000));
}

/** The map key of a key in a window. */
export function entryKey(key: string, window: Window): string {
  return `${window.start}/${window.seconds}\n${key}`;
}

/** Epoch seconds after which a window's count is no longer needed (limits look one window back). */
export function expiresAt(window: Window): number {
  return window.start + 2 * window.seconds;
}

/** Node-local counters in memory. */
export class MemoryCounters implements WindowCounters {
  private readonly counts = new Map<string, { n: number; expires: number }>();
  private sweptAt = 0;

  constructor(private readonly clock: Clock, private readonly maxKeys = MAX_TRACKED_KEYS) {}

  async count(key: string, window: Window): Promise<number> {
    return this.counts.get(entryKey(key, window))?.n ?? 0;
  }

  add(key: string, window: Window, n = 1): void {
    this.sweep();
    const k = entryKey(key, window);
    const entry = this.counts.get(k);
    if (entry) entry.n += n;
    else if (this.counts.size < this.maxKeys) this.counts.set(k, { n, expires: expiresAt(window) });
  }

  async close(): Promise<void> {
    this.counts.clear();
  }

  /** Drops expired windows, at most once a second of the clock. */
  private sweep(): void {
    const now = this.clock.now().getTime() / 1000;
    if (now - this.sweptAt < 1) return;
    this.sweptAt = now;
    for (const [k, entry] of this.counts) if (entry.expires <= now) this.counts.delete(k);
  }
}
