/**
 * Throttling of failed authentications per client address (client-address.ts), shared by the v4 and S3
 * listeners: failures are counted in fixed windows of `windowSeconds`. Past half of `limit` failures in a window,
 * each further failure is answered late ({@link SLOW_STEP_MS} more per failure, at most {@link SLOW_MAX_MS}).
 * Once an address has `limit` failures in a window it is refused before its credentials are even looked at
 * (so a correct key from it is refused too: otherwise a guesser would learn when it guessed right) for the
 * rest of that window and the whole next one: the cool-down. Refused requests are not counted; successful
 * authentications from other addresses are never affected.
 */
import type { Clock } from '../shared/clock.js';
import { recordLimitEvent, type LimitListener } from '../shared/probes.js';
import { RateLimitedError } from './rate-limited.js';
import { clientKey } from './client-address.js';
import { previousWindow, secondsLeft, windowAt, type WindowCounters } from './window-counters.js';

/** Delay added per failure past half the limit (ms). */
export const SLOW_STEP_MS = 250;
/** Longest delay of one failed authentication (ms). */
export const SLOW_MAX_MS = 5000;

/** Options of {@link AuthThrottle}. */
export interface AuthThrottleOptions {
  /** Failures per address per window before it is refused (> 0). */
  limit: number;
  windowSeconds: number;
  /** Waits `ms` (tests may replace it). */
  sleep?: (ms: number) => Promise<void>;
}

/** Failed-authentication throttle. */
export class AuthThrottle {
  private readonly sleep: (ms: number) => Promise<void>;

  constructor(private readonly counters: WindowCounters, private readonly clock: Clock, private readonly opts: AuthThrottleOptions) {
    this.sleep = opts.sleep ?? ((ms) => new Promise((resolve) => setTimeout(resolve, ms)));
  }

  /** Throws {@link RateLimitedError} while `address` cools down; does nothing for requests without an address. */
  async check(address: string | undefined, listener: LimitListener): Promise<void> {
    const key = keyOf(address);
    if (key === undefined) return;
    const now = this.clock.now();
    const w = windowAt(now, this.opts.windowSeconds);
    let retryAfter: number | undefined;
    if (await this.counters.count(key, w) >= this.opts.limit) retryAfter = secondsLeft(w, now) + w.seconds;
    else if (await this.counters.count(key, previousWindow(w)) >= this.opts.limit) retryAfter = secondsLeft(w, now);
    if (retryAfter === undefined) return;
    recordLimitEvent(listener, 'auth_refused');
    throw new RateLimitedError(retryAfter, 'auth-cooldown', { 'retry-after': String(retryAfter) });
  }

  /** Counts a failed authentication from `address`, and waits the slow-down delay it has earned. */
  async failed(address: string | undefined, listener: LimitListener): Promise<void> {
    const key = keyOf(address);
    if (key === undefined) return;
    const w = windowAt(this.clock.now(), this.opts.windowSeconds);
    this.counters.add(key, w);
    recordLimitEvent(listener, 'auth_failure');
    const over = await this.counters.count(key, w) - Math.floor(this.opts.limit / 2);
    if (over <= 0) return;
    recordLimitEvent(listener, 'auth_slowed');
    await this.sleep(Math.min(over * SLOW_STEP_MS, SLOW_MAX_MS));
  }
}

function keyOf(address: string | undefined): string | undefined {
  const client = clientKey(address);
  return client === undefined ? undefined : `auth:${client}`;
}
