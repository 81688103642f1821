/**
 * Requests carrying both `Transfer-Encoding` and `Content-Length` (RFC 9112 §6.1: ambiguous framing, the
 * classic request-smuggling vector). Schedule row `http-te-and-cl`: declined from 2023-07-01 (api date) with
 * 400, code 6003 `Invalid request headers` and the cause (6121) in `error_chain`, the connection closed.
 *
 * On the v4 listener Node's strict HTTP parser refuses such a request before any api date is read, and the
 * listener answers it with this same envelope (`api/envelope.ts`, `v4ParserError`), at every api date: the
 * lenient parser (`insecureHTTPParser`) that once let it through to serve it framed by `Transfer-Encoding`
 * before 2023-07-01 also accepted `Transfer-Encoding : chunked`, obs-fold lines, a bare CR ending a chunk
 * size and a body read to the end of the connection for `Transfer-Encoding: xchunked` (docs/compatibility.md).
 * This middleware declines by api date what reaches the app some other way (the app's own `fetch`).
 */
import type { MiddlewareHandler } from 'hono';
import type { ApiEnv } from '../context.js';
import { AppError } from '../../shared/errors.js';
import { oldBehaviourApplies } from '../../deprecation/schedule.js';
import { DEPRECATION_CODES } from '../../deprecation/codes.js';

/** The cause in `error_chain` (6121) of a request with both framing headers. */
export const FRAMING_CONFLICT_MESSAGE = 'Requests with both Transfer-Encoding and Content-Length headers are declined since 2023-07-01 (RFC 7230 section 3.3.3): send only one of them';

/** True when the request has both framing headers. */
export function hasConflictingFraming(headers: Headers): boolean {
  return headers.has('transfer-encoding') && headers.has('content-length');
}

/** Declines or serves TE+CL requests by api date (see the module comment). Runs after the api-date middleware. */
export function framingMiddleware(): MiddlewareHandler<ApiEnv> {
  return async (c, next) => {
    if (!hasConflictingFraming(c.req.raw.headers)) return next();
    c.header('Connection', 'close');
    if (!oldBehaviourApplies('http-te-and-cl', c.get('apiDate'))) {
      throw new AppError(DEPRECATION_CODES.invalidHeaders, 'Invalid request headers', 400, {
        chain: [{
          code: DEPRECATION_CODES.framingConflict,
          message: FRAMING_CONFLICT_MESSAGE,
        }],
      });
    }
    await next();
    c.res.headers.set('Connection', 'close');
  };
}
