/**
 * Request rate limits per subject (a user, an account-owned token, an S3 key holder) in fixed windows, as
 * production documents its API limit (1,200 requests per 5 minutes per user; over it, requests are refused
 * until the window ends). Every counted answer carries production's headers (IETF draft
 * `draft-ietf-httpapi-ratelimit-headers`, as production sends them): `Ratelimit: "default";r=<remaining>;t=<seconds
 * to the window's end>` and `Ratelimit-Policy: "default";q=<limit>;w=<window seconds>`, and a refusal adds
 * `Retry-After`. Refused requests are not counted.
 */
import type { Clock } from '../shared/clock.js';
import { recordLimitEvent, type LimitListener } from '../shared/probes.js';
import { RateLimitedError } from './rate-limited.js';
import { secondsLeft, windowAt, type WindowCounters } from './window-counters.js';

/** Options of {@link RateLimit}. */
export interface RateLimitOptions {
  /** Requests per subject per window (> 0). */
  limit: number;
  windowSeconds: number;
  /** Which limit (keys of different limits never add up). */
  name: string;
}

/** One request rate limit. */
export class RateLimit {
  constructor(private readonly counters: WindowCounters, private readonly clock: Clock, private readonly opts: RateLimitOptions) {}

  /**
   * Counts one request of `subject` and returns the headers to answer with; throws {@link RateLimitedError}
   * (with the headers) when the subject has used its requests of the window.
   */
  async take(subject: string, listener: LimitListener): Promise<Record<string, string>> {
    const now = this.clock.now();
    const w = windowAt(now, this.opts.windowSeconds);
    const key = `${this.opts.name}:${subject}`;
    const used = await this.counters.count(key, w);
    const reset = secondsLeft(w, now);
    const policy = `"default";q=${this.opts.limit};w=${w.seconds}`;
    if (used >= this.opts.limit) {
      recordLimitEvent(listener, 'rate_refused');
      throw new RateLimitedError(reset, 'rate', { ratelimit: `"default";r=0;t=${reset}`, 'ratelimit-policy': policy, 'retry-after': String(reset) });
    }
    this.counters.add(key, w);
    return { ratelimit: `"default";r=${this.opts.limit - used - 1};t=${reset}`, 'ratelimit-policy': policy };
  }
}
