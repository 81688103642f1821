/**
 * How long a loop waits before trying a backing store again after it failed: nothing after a success, then
 * {@link FIRST_RETRY_DELAY_MS}, doubling with each failure in a row up to {@link MAX_RETRY_DELAY_MS}. A loop
 * that retries the database or the blob store at once spins while the store is away (a refused connection
 * fails in microseconds, a destroyed driver without any I/O at all) and starves the event loop: every such
 * loop asks this first.
 */

/** Wait after the first failure (ms). */
export const FIRST_RETRY_DELAY_MS = 50;
/** Longest wait between two attempts (ms): a store that comes back is used again within this. */
export const MAX_RETRY_DELAY_MS = 1_000;

/** The delay state of one retrying loop. */
export class RetryDelay {
  private failures = 0;
  private notBefore = 0;

  constructor(private readonly now: () => number = Date.now) {}

  /** An attempt failed: the next one waits (longer than after the previous failure, up to the maximum). */
  failed(): void {
    const delay = Math.min(MAX_RETRY_DELAY_MS, FIRST_RETRY_DELAY_MS * 2 ** Math.min(this.failures, 16));
    this.failures++;
    this.notBefore = this.now() + delay;
  }

  /** An attempt succeeded: the next one runs at once. */
  succeeded(): void {
    this.failures = 0;
    this.notBefore = 0;
  }

  /** Milliseconds to wait before the next attempt (0: now). */
  waitMs(): number {
    return Math.max(0, this.notBefore - this.now());
  }
}
