/**
 * Refuses a v4 request whose headers hold control bytes before anything reads them (see
 * `shared/header-bytes.ts`): 400 + 6003 `Invalid request headers`, with the credential header named in
 * `error_chain` (6102 X-Auth-Email, 6103 X-Auth-Key, 6111 Authorization) as for any malformed credential.
 * The value is never echoed or logged. Must be the first middleware of the v4 app.
 */
import type { MiddlewareHandler } from 'hono';
import type { ApiEnv } from '../context.js';
import { AppError, type ErrorDetail } from '../../shared/errors.js';
import { headerWithControlByte, rawHeadersOf } from '../../shared/header-bytes.js';

const CHAIN: Record<string, ErrorDetail> = {
  'x-auth-email': { code: 6102, message: 'Invalid format for X-Auth-Email header' },
  'x-auth-key': { code: 6103, message: 'Invalid format for X-Auth-Key header' },
  authorization: { code: 6111, message: 'Invalid format for Authorization header' },
};

/** The error for a request whose header `name` holds a control byte. */
export function controlByteError(name: string): AppError {
  const detail = CHAIN[name];
  return new AppError(6003, 'Invalid request headers', 400, detail ? { chain: [detail] } : {});
}

/** The middleware. */
export function headerBytesMiddleware(): MiddlewareHandler<ApiEnv> {
  return async (c, next) => {
    const raw = rawHeadersOf(c.env);
    const bad = raw && headerWithControlByte(raw);
    if (bad !== undefined) throw controlByteError(bad);
    await next();
  };
}
