/**
 * The api date of a request: the `api-version: YYYY-MM-DD` header when present, else the server's configured
 * date, else today (UTC). The deprecation schedule is evaluated at this date.
 */
import type { MiddlewareHandler } from 'hono';
import type { ApiEnv } from './context.js';
import type { Clock } from '../shared/clock.js';
import { isoDay } from '../shared/clock.js';

/** Middleware that sets `apiDate` on the request context. */
export function apiDateMiddleware(serverDate: string | undefined, clock: Clock): MiddlewareHandler<ApiEnv> {
  return async (c, next) => {
    const header = c.req.header('api-version');
    c.set('apiDate', header && /^\d{4}-\d{2}-\d{2}$/.test(header) ? header : serverDate ?? isoDay(clock.now()));
    await next();
  };
}
