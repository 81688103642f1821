/**
 * The refusal of a request by a limit: production's answer on the v4 API (429, code 971 `Please wait and
 * consider throttling your request speed`, `Retry-After`) and S3's (`SlowDown`, 503, `Retry-After`). Each
 * edge renders it (api/limit-response.ts, s3/errors.ts).
 */
import { AppError } from '../shared/errors.js';

/** v4 code of a refused request: production's for its API rate limit. */
export const RATE_LIMITED_CODE = 971;
/** Production's message with {@link RATE_LIMITED_CODE}. */
export const RATE_LIMITED_MESSAGE = 'Please wait and consider throttling your request speed';

/** A request refused by a limit; `headers` are added to the answer (`Retry-After`, `Ratelimit`, …). */
export class RateLimitedError extends AppError {
  constructor(
    readonly retryAfterSeconds: number,
    /** Why: the user is over its request rate, or the client address is cooling down after failed authentications. */
    readonly reason: 'rate' | 'auth-cooldown',
    readonly headers: Record<string, string> = {},
  ) {
    super(RATE_LIMITED_CODE, RATE_LIMITED_MESSAGE, 429);
    this.name = 'RateLimitedError';
  }
}
