/**
 * Access to the Workers routes under `/accounts/:account_id/workers/…`: the account must be one of the
 * caller's (else 404 7003, the same answer for a foreign or unknown id, as for `GET /accounts/:id`); an API
 * token's capability on the account was already checked by the auth middleware (route-permissions.ts). Also
 * who the caller is for versions and deployments (`source` from the client: wrangler or the API).
 */
import type { Context } from 'hono';
import type { ApiEnv } from './context.js';
import { AppError } from '../shared/errors.js';
import type { Actor } from '../scripts/scripts-service.js';

/** The path's account id, when the caller may act on it. */
export function requireWorkersAccount(c: Context<ApiEnv>): string {
  const accountId = c.req.param('account_id') ?? '';
  if (!c.get('user').accountIds.includes(accountId)) throw new AppError(7003, `Could not route to ${c.req.path}, perhaps your object identifier is invalid?`, 404);
  return accountId;
}

/** The caller as the author of a version or deployment. */
export function actorOf(c: Context<ApiEnv>): Actor {
  const user = c.get('user');
  const agent = c.req.header('user-agent') ?? '';
  const source = /^wrangler\//i.test(agent) ? 'wrangler' : /terraform/i.test(agent) ? 'terraform' : 'api';
  return { userId: user.id, email: user.email, source };
}

/** The latest compatibility date an upload may name: today anywhere on Earth (UTC + 1 day), YYYY-MM-DD. */
export function latestCompatibilityDate(now: Date): string {
  return new Date(now.getTime() + 24 * 3600 * 1000).toISOString().slice(0, 10);
}
