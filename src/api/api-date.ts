/**
 * The api date of a request: the `api-version: YYYY-MM-DD` header when present, else the server's configured
 * date (`--api-date`), else today (UTC, from the injected clock). The deprecation schedule is evaluated at it.
 *
 * Decisions:
 * - A header later than the server's date is CLAMPED to the server's date (not refused): the official SDK
 *   always sends its own today (`apiVersion` defaults to the client's date), and a server pinned with
 *   `--api-date` must still serve it as of the pinned date. No request is served as of a date later than
 *   the server's.
 * - A header that is not a real calendar date `YYYY-MM-DD` is a 400: code 6003 `Invalid request headers`
 *   with the cause (6120) in `error_chain`, like production's other header errors.
 * - Every v4 response carries `api-version: <effective date>` so a caller can see which date it was served as of.
 */
import type { MiddlewareHandler } from 'hono';
import type { ApiEnv } from './context.js';
import type { Clock } from '../shared/clock.js';
import { isoDay } from '../shared/clock.js';
import { AppError } from '../shared/errors.js';
import { DEPRECATION_CODES } from '../deprecation/codes.js';

/** True for a real calendar date written `YYYY-MM-DD`. */
export function isCalendarDate(value: string): boolean {
  if (!/^\d{4}-\d{2}-\d{2}$/.test(value)) return false;
  const d = new Date(`${value}T00:00:00Z`);
  return !Number.isNaN(d.getTime()) && d.toISOString().slice(0, 10) === value;
}

/** The effective api date from a header value (possibly absent), the configured date and the clock. Pure. */
export function resolveApiDate(header: string | undefined, serverDate: string | undefined, today: string): string {
  const ceiling = serverDate ?? today;
  if (header === undefined) return ceiling;
  const value = header.trim();
  if (!isCalendarDate(value)) {
    throw new AppError(DEPRECATION_CODES.invalidHeaders, 'Invalid request headers', 400, {
      chain: [{ code: DEPRECATION_CODES.invalidApiVersion, message: `Invalid format for api-version header: expected a date YYYY-MM-DD, got ${JSON.stringify(header)}` }],
    });
  }
  return value > ceiling ? ceiling : value;
}

/** Middleware that sets `apiDate` on the request context and echoes it in the `api-version` response header. */
export function apiDateMiddleware(serverDate: string | undefined, clock: Clock): MiddlewareHandler<ApiEnv> {
  return async (c, next) => {
    const apiDate = resolveApiDate(c.req.header('api-version'), serverDate, isoDay(clock.now()));
    c.set('apiDate', apiDate);
    c.header('api-version', apiDate);
    await next();
    c.res.headers.set('api-version', apiDate);
  };
}
