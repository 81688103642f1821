/**
 * Authentication of v4 requests by `X-Auth-Email` + `X-Auth-Key` (the global API key scheme):
 *
 * - neither header (and no `Authorization`): 400, 9106 `Missing X-Auth-Key, X-Auth-Email or Authorization headers`
 *   (also when only one of the pair is sent);
 * - a header of the wrong shape: 400, 6003 `Invalid request headers` with `error_chain` 6102 (e-mail) / 6103 (key)
 *   / 6111 (a malformed `Authorization`);
 * - a well-formed pair that matches no user: 403, 9103 `Unknown X-Auth-Key or X-Auth-Email`;
 * - `Authorization: Bearer …` alone: API tokens are not supported; 401, 10000 `Authentication error`, with a
 *   message that says to use the e-mail and key. When the pair is sent as well (the SDK sends every
 *   configured credential), the pair is used.
 *
 * Successful look-ups are remembered for {@link AUTH_CACHE_MS} (in memory, keyed by e-mail and key: only pairs
 * that matched a user are kept, so hashing the key on every request is not needed), so a key changed by
 * `stratus user add` in another process takes effect within that time.
 */
import type { MiddlewareHandler } from 'hono';
import type { Kysely } from 'kysely';
import type { ApiEnv } from './context.js';
import type { Database } from '../db/schema.js';
import { AppError } from '../shared/errors.js';
import { authenticate } from '../accounts/users.js';
import { isValidEmail, isValidKey } from '../accounts/keys.js';
import type { AuthUser } from './context.js';

/** How long a successful authentication is remembered. */
export const AUTH_CACHE_MS = 5000;
/** Most remembered authentications (the cache starts over when full). */
const AUTH_CACHE_SIZE = 10_000;

/** Builds the authentication middleware; it sets `user` on the context. */
export function authMiddleware(db: Kysely<Database>): MiddlewareHandler<ApiEnv> {
  const remembered = new Map<string, { user: AuthUser; until: number }>();
  return async (c, next) => {
    const email = c.req.header('x-auth-email');
    const key = c.req.header('x-auth-key');
    const authorization = c.req.header('authorization');
    if (email === undefined || key === undefined) {
      if (authorization !== undefined && email === undefined && key === undefined) rejectAuthorization(authorization);
      throw new AppError(9106, 'Missing X-Auth-Key, X-Auth-Email or Authorization headers', 400);
    }
    const chain: { code: number; message: string }[] = [];
    if (!isValidEmail(email.trim())) chain.push({ code: 6102, message: 'Invalid format for X-Auth-Email header' });
    if (!isValidKey(key.trim())) chain.push({ code: 6103, message: 'Invalid format for X-Auth-Key header' });
    if (chain.length > 0) throw new AppError(6003, 'Invalid request headers', 400, { chain });
    const cacheKey = `${email.trim().toLowerCase()}\n${key.trim()}`;
    const now = Date.now();
    const hit = remembered.get(cacheKey);
    let user = hit && hit.until > now ? hit.user : undefined;
    if (!user) {
      user = await authenticate(db, email.trim(), key.trim());
      if (!user) throw new AppError(9103, 'Unknown X-Auth-Key or X-Auth-Email', 403);
      if (remembered.size >= AUTH_CACHE_SIZE) remembered.clear();
      remembered.set(cacheKey, { user, until: now + AUTH_CACHE_MS });
    }
    c.set('user', user);
    await next();
  };
}

/** Answers a request that carries only an `Authorization` header. */
function rejectAuthorization(value: string): never {
  if (!/^Bearer [A-Za-z0-9_.~+/=-]+$/.test(value.trim())) {
    throw new AppError(6003, 'Invalid request headers', 400, { chain: [{ code: 6111, message: 'Invalid format for Authorization header' }] });
  }
  throw new AppError(10000, 'Authentication error', 401, {
    others: [new AppError(10000, 'API tokens are not supported by Stratus: authenticate with X-Auth-Email and X-Auth-Key', 401)],
  });
}
