/**
 * Deprecation signalling on the v4 API.
 *
 * - {@link deprecationMiddleware}: every request whose method and path match a route of a schedule row with
 *   `signal: 'route'` that Stratus serves gets `Deprecation`, `Sunset` (when a removal date is known) and
 *   `Link` headers while the row is deprecated at the request's api date (RFC 9745, RFC 8594).
 * - {@link announceDeprecation}: for rows with `signal: 'usage'` (e.g. old list filter forms), the code that
 *   honours the old form calls it: the same headers plus a `messages` entry (code 7102) naming the dates.
 */
import type { Context, MiddlewareHandler } from 'hono';
import type { ApiEnv } from '../context.js';
import { entry, phaseAt, removalDate } from '../../deprecation/schedule.js';
import { matchScheduledRoutes } from '../../deprecation/schedule-routes.js';
import { deprecationHeaders } from '../../deprecation/headers.js';
import { DEPRECATION_CODES } from '../../deprecation/codes.js';

/** The v4 prefix stripped before matching schedule routes. */
const PREFIX = '/client/v4';

/** Path of a request relative to `/client/v4`. */
export function v4Path(fullPath: string): string {
  return fullPath.startsWith(PREFIX) ? fullPath.slice(PREFIX.length) || '/' : fullPath;
}

/** Sets the headers of a set of deprecation headers on the response being built (merging `Link`). */
function setHeaders(c: Context<ApiEnv>, headers: Record<string, string>): void {
  for (const [name, value] of Object.entries(headers)) {
    const existing = name === 'Link' ? c.res.headers.get('Link') : null;
    c.res.headers.set(name, existing ? `${existing}, ${value}` : value);
  }
}

/** Adds the route-level deprecation headers of served schedule routes (see the module comment). */
export function deprecationMiddleware(): MiddlewareHandler<ApiEnv> {
  return async (c, next) => {
    await next();
    const apiDate = c.get('apiDate');
    if (apiDate === undefined || c.res.status === 410) return;
    for (const m of matchScheduledRoutes(c.req.method, v4Path(c.req.path))) {
      if (m.entry.signal !== 'route' || !m.entry.served) continue;
      if (phaseAt(m.entry.id, apiDate) !== 'deprecated') continue;
      setHeaders(c, deprecationHeaders(m.entry, m.params));
    }
  };
}

/**
 * Announces that this request used the old form of a `usage` row (or of one of its parts): deprecation
 * headers on the response and a notice in `messages`. Call it only while the old form is honoured.
 */
export function announceDeprecation(c: Context<ApiEnv>, id: string, part?: string, params: Record<string, string> = {}): void {
  const e = entry(id);
  const removal = removalDate(e, part);
  const headers = deprecationHeaders(e, params, part);
  for (const [name, value] of Object.entries(headers)) c.header(name, value, { append: name === 'Link' });
  const what = part !== undefined ? e.parts![part]!.what : e.change;
  const until = removal !== undefined ? `; it is honoured until ${removal} (api date) and read literally from then on` : '';
  c.get('messages').push({
    code: DEPRECATION_CODES.deprecationNotice,
    message: `Deprecated since ${e.date}: ${what}${until}. Use instead: ${e.replacement}`,
  });
}
