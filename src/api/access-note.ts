/** What the v4 API tells its listener about a request (ops/request-notes.ts): route template, user, account, request id. */
import type { Context } from 'hono';
import { matchedRoutes } from 'hono/route';
import type { ApiEnv, AuthUser } from './context.js';
import { noteRequest } from '../http/request-notes.js';

/** Notes the request's route template and who made it (call after the route ran). */
export function noteApiRequest(c: Context<ApiEnv>): void {
  const user = c.get('user') as AuthUser | undefined;
  noteRequest(c.req.raw, {
    route: routeTemplate(c),
    requestId: c.get('requestId'),
    userId: user?.id,
    accountId: user?.token?.accountId ?? (user?.accountIds.length === 1 ? user.accountIds[0] : undefined),
  });
}

/**
 * The template of the route that answered (`/client/v4/zones/:zone_id`), or of the first route matching the
 * request when a middleware answered first (authentication refused it); `unmatched` when no route matches.
 */
export function routeTemplate(c: Context): string {
  const routes = matchedRoutes(c);
  const ran = routes[c.req.routeIndex];
  if (ran && ran.method !== 'ALL') return ran.path;
  return routes.find((r) => r.method !== 'ALL')?.path ?? 'unmatched';
}
