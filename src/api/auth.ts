/**
 * Authentication of v4 requests, by the global API key (`X-Auth-Email` + `X-Auth-Key`) or by an API token
 * (`Authorization: Bearer <token>`):
 *
 * - no credentials (or only half of the pair, without a token): 400, 9106 `Missing X-Auth-Key, X-Auth-Email or Authorization headers`;
 * - a header of the wrong shape: 400, 6003 `Invalid request headers` with `error_chain` 6102 (e-mail) / 6103 (key)
 *   / 6111 (a malformed `Authorization`);
 * - a well-formed pair that matches no user: 403, 9103 `Unknown X-Auth-Key or X-Auth-Email`;
 * - a token that is unknown, disabled, expired or not yet valid: 401, 10000 `Authentication error`; a token
 *   used from an address its `request_ip` condition excludes: 403, 9109;
 * - when the pair and a token are both sent (the SDK sends every configured credential), the pair is used.
 *
 * Limits on abuse (docs/security.md): failed authentications are counted per client address (9103, 10000 and
 * 6003 count; 9106 does not) and an address over the limit is answered 429 971 before its credentials are read;
 * authenticated requests count against their user's request rate (an account-owned token's own).
 *
 * A token's request also gets its route's requirement (`route-permissions.ts`); user- and account-scoped
 * requirements are checked here, zone-scoped ones where the zone is loaded (`zone-access.ts`).
 *
 * Successful look-ups are remembered for {@link AUTH_CACHE_MS} (in memory, keyed by the credentials: only
 * credentials that matched are kept, so hashing on every request is not needed), never past a token's
 * `expires_on`, so a key or token changed in another process takes effect within that time
 * (`accounts/remembered.ts`).
 */
import type { Context, MiddlewareHandler } from 'hono';
import type { Kysely } from 'kysely';
import type { ApiEnv, AuthUser } from './context.js';
import type { Database } from '../db/schema.js';
import type { Clock } from '../shared/clock.js';
import { AppError } from '../shared/errors.js';
import { authenticate } from '../accounts/users.js';
import { isValidEmail, isValidKey } from '../accounts/keys.js';
import { TokensService } from '../accounts/tokens.js';
import { REMEMBER_MS, Remembered, expiryInstant } from '../accounts/remembered.js';
import { routeRequirement } from './route-permissions.js';
import { checkTokenRequirement } from './token-access.js';
import type { Limits } from '../limits/limits.js';
import { peerAddress } from '../limits/client-address.js';

/** How long a successful authentication is remembered. */
export const AUTH_CACHE_MS = REMEMBER_MS;
/** Shape of an acceptable `Authorization` value. */
const BEARER = /^Bearer ([A-Za-z0-9_.~+/=-]+)$/;

/**
 * Builds the authentication middleware; it sets `user` (and, for tokens, `requirement`) on the context. With
 * `limits` (limits/), a client address cooling down after failed authentications is refused before its
 * credentials are looked at, a failed authentication is counted (and answered late past half the limit), and an
 * authenticated request is counted against its user's request rate (429 971 over it) and answered with the
 * `Ratelimit` headers.
 */
export function authMiddleware(db: Kysely<Database>, clock: Clock, limits?: Limits): MiddlewareHandler<ApiEnv> {
  const cache = new Remembered<AuthUser>(clock, (user) => (user.token ? expiryInstant(user.token.expiresOn) : undefined));
  const tokens = new TokensService(db, clock);
  return async (c, next) => {
    const address = clientAddress(c);
    await limits?.auth?.check(address, 'v4');
    let user: AuthUser;
    try {
      user = await credentialsUser(c, cache, db, tokens);
    } catch (err) {
      if (limits?.auth && isFailedAuthentication(err)) await limits.auth.failed(address, 'v4');
      throw err;
    }
    c.set('user', user);
    if (user.token) {
      if (!user.token.grants.allowsAddress(address)) throw new AppError(9109, `Cannot use the access token from location: ${address ?? 'unknown'}`, 403);
      const requirement = routeRequirement(c.req.method, c.req.path.replace(/^\/client\/v4/, ''));
      if (requirement) c.set('requirement', requirement);
      checkTokenRequirement(c);
    }
    const rateHeaders = limits?.api ? await limits.api.take(rateSubject(user), 'v4') : undefined;
    await next();
    if (rateHeaders) for (const [name, value] of Object.entries(rateHeaders)) c.header(name, value);
  };
}

/** The user the request's credentials name; AppError when they are missing, malformed or wrong. */
async function credentialsUser(c: Context<ApiEnv>, cache: Remembered<AuthUser>, db: Kysely<Database>, tokens: TokensService): Promise<AuthUser> {
  const email = c.req.header('x-auth-email');
  const key = c.req.header('x-auth-key');
  const authorization = c.req.header('authorization');
  if (email !== undefined && key !== undefined) return byKey(cache, db, email.trim(), key.trim());
  if (authorization !== undefined) return byToken(cache, tokens, authorization.trim());
  throw new AppError(9106, 'Missing X-Auth-Key, X-Auth-Email or Authorization headers', 400);
}

/**
 * Whether an authentication error is a failed guess the throttle counts: credentials that match nothing (9103,
 * 10000) or are malformed (6003). Missing credentials (9106) are not a guess.
 */
function isFailedAuthentication(err: unknown): boolean {
  return err instanceof AppError && (err.code === 9103 || err.code === 10000 || err.code === 6003);
}

/** Whose request rate a request counts against: its user, or an account-owned token on its own (as production). */
function rateSubject(user: AuthUser): string {
  return user.token?.accountId ? `token:${user.token.id}` : `user:${user.id}`;
}

/** The user of an e-mail and key pair. */
async function byKey(cache: Remembered<AuthUser>, db: Kysely<Database>, email: string, key: string): Promise<AuthUser> {
  const chain: { code: number; message: string }[] = [];
  if (!isValidEmail(email)) chain.push({ code: 6102, message: 'Invalid format for X-Auth-Email header' });
  if (!isValidKey(key)) chain.push({ code: 6103, message: 'Invalid format for X-Auth-Key header' });
  if (chain.length > 0) throw new AppError(6003, 'Invalid request headers', 400, { chain });
  const user = await cache.get(`key\n${email.toLowerCase()}\n${key}`, () => authenticate(db, email, key));
  if (!user) throw new AppError(9103, 'Unknown X-Auth-Key or X-Auth-Email', 403);
  return user;
}

/** The user (with its token's grants) of a bearer token. */
async function byToken(cache: Remembered<AuthUser>, tokens: TokensService, authorization: string): Promise<AuthUser> {
  const value = BEARER.exec(authorization)?.[1];
  if (value === undefined) {
    throw new AppError(6003, 'Invalid request headers', 400, { chain: [{ code: 6111, message: 'Invalid format for Authorization header' }] });
  }
  const user = await cache.get(`token\n${value}`, async () => {
    const found = await tokens.authenticate(value);
    return found && { ...found.user, token: { id: found.row.id, accountId: found.row.account_id, grants: found.grants, expiresOn: found.row.expires_on } };
  });
  if (!user) throw new AppError(10000, 'Authentication error', 401);
  return user;
}

/** The client's address (undefined when the request did not come over a socket, as in `app.request`). */
function clientAddress(c: Context<ApiEnv>): string | undefined {
  return peerAddress(c.env);
}
