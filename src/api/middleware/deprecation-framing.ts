/**
 * Requests carrying both `Transfer-Encoding` and `Content-Length` (RFC 7230 §3.3.3: ambiguous framing, the
 * classic request-smuggling vector). Schedule row `http-te-and-cl`: served before 2023-07-01 (api date), the
 * body framed by `Transfer-Encoding` as RFC 7230 says; declined from then with 400, code 6003
 * `Invalid request headers` and the cause (6121) in `error_chain`.
 *
 * Node's strict HTTP parser would reject such a request itself (a bare 400 and a closed socket) before this
 * middleware could answer, so the HTTP listener runs with `insecureHTTPParser` (see `httpServerOptions`);
 * every such response closes the connection (`Connection: close`) so no later request on the socket can be
 * framed differently by a proxy in front.
 */
import type { MiddlewareHandler } from 'hono';
import type { ServerOptions } from 'node:http';
import type { ApiEnv } from '../context.js';
import { AppError } from '../../shared/errors.js';
import { oldBehaviourApplies } from '../../lifecycle/schedule.js';
import { LIFECYCLE_CODES } from '../../lifecycle/codes.js';

/**
 * Options for the Node HTTP server of the v4 API, so that TE+CL requests reach {@link framingMiddleware}
 * instead of being dropped by the parser (pass as `serve({ serverOptions })`).
 */
export const httpServerOptions: ServerOptions = { insecureHTTPParser: true };

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
      throw new AppError(LIFECYCLE_CODES.invalidHeaders, 'Invalid request headers', 400, {
        chain: [{
          code: LIFECYCLE_CODES.framingConflict,
          message: 'Requests with both Transfer-Encoding and Content-Length headers are declined since 2023-07-01 (RFC 7230 section 3.3.3): send only one of them',
        }],
      });
    }
    await next();
    c.res.headers.set('Connection', 'close');
  };
}
