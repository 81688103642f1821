/**
 * The schedule over HTTP:
 * - `GET /client/v4/deprecations` (Stratus extension, no authentication: the schedule is public
 *   documentation) lists every row with its phase at the request's api date; `GET /deprecations/:id` one row.
 * - Routes named by the schedule that Stratus does not provide (firewall rules and filters, previous WAF,
 *   rate_limits, tunnels, billing, access bookmarks, images v1 direct upload, analytics dashboard/colos,
 *   organizations, script_monitor): authenticated like every v4 route, then answered with an error envelope
 *   that names the deprecation date and the replacement — 501 + code 7100 (with `x-should-retry: false`, so
 *   the official SDK does not retry) while the row is not removed, 410 + code 7101 once removed at the api
 *   date. Never a bare 404.
 */
import { Hono, type Context } from 'hono';
import type { ApiEnv } from '../context.js';
import type { ApiDeps } from '../deps.js';
import { authMiddleware } from '../auth.js';
import { AppError } from '../../shared/errors.js';
import { SCHEDULE, entry, phaseAt, type ScheduleEntry } from '../../deprecation/schedule.js';
import { deprecationHeaders } from '../../deprecation/headers.js';
import { fillPath } from '../../deprecation/schedule-routes.js';
import { DEPRECATION_CODES } from '../../deprecation/codes.js';
import { ok } from '../respond.js';
import { failureBody } from '../envelope.js';

/** The JSON form of a row at an api date. */
export function entryView(e: ScheduleEntry, apiDate: string): Record<string, unknown> {
  return {
    id: e.id, date: e.date, removal: e.removal ?? null, kind: e.kind, change: e.change, replacement: e.replacement,
    successor: e.successor ? `/client/v4${e.successor}` : null,
    routes: e.routes.map((r) => ({ methods: [...r.methods], path: `/client/v4${r.path}`, affected: r.affected === true })),
    fields: e.fields ? [...e.fields] : [],
    parts: e.parts ? Object.fromEntries(Object.entries(e.parts).map(([k, p]) => [k, { ...p, phase: phaseAt(e.id, apiDate, k) }])) : {},
    served_by_stratus: e.served, phase: phaseAt(e.id, apiDate),
  };
}

/** The error a removed route answers with (410, 7101), naming the dates and the replacement. */
export function routeRemovedError(e: ScheduleEntry, method: string, path: string, apiDate: string): AppError {
  return new AppError(DEPRECATION_CODES.routeRemoved,
    `${method} ${path} was removed on ${e.removal} (api date ${apiDate}): ${e.change}. Replacement: ${e.replacement}`, 410);
}

/** Answers a request to a route Stratus does not provide (see the module comment). */
function notProvided(c: Context<ApiEnv>, e: ScheduleEntry): Response {
  const apiDate = c.get('apiDate');
  const phase = phaseAt(e.id, apiDate);
  const method = c.req.method;
  const params = c.req.param() as Record<string, string>;
  if (phase === 'removed') throw routeRemovedError(e, method, c.req.path, apiDate);
  const successor = e.successor ? ` (${`/client/v4${fillPath(e.successor, params)}`})` : '';
  const status = phase === 'deprecated' ? `deprecated since ${e.date}` : `deprecated from ${e.date}`;
  const message = `${method} ${c.req.path} is not provided by Stratus. ${e.change}: ${status}; replacement: ${e.replacement}${successor}`;
  if (phase === 'deprecated') for (const [k, v] of Object.entries(deprecationHeaders(e, params))) c.header(k, v);
  c.header('x-should-retry', 'false');
  return c.json(failureBody([{ code: DEPRECATION_CODES.routeNotProvided, message }], c.get('messages')), 501);
}

/** Hono path patterns of a schedule path (`/**` becomes the path itself and `/*` below it). */
function honoPaths(path: string): string[] {
  return path.endsWith('/**') ? [path.slice(0, -3), `${path.slice(0, -3)}/*`] : [path];
}

/** Routes of the schedule endpoint and of the routes Stratus does not provide. */
export function deprecatedRoutes(deps: ApiDeps): Hono<ApiEnv> {
  const app = new Hono<ApiEnv>();
  app.get('/deprecations', (c) => ok(c, SCHEDULE.map((e) => entryView(e, c.get('apiDate')))));
  app.get('/deprecations/:id', (c) => {
    const id = c.req.param('id');
    if (!SCHEDULE.some((e) => e.id === id)) throw new AppError(7003, `Could not route to ${c.req.path}, perhaps your object identifier is invalid?`, 404);
    return ok(c, entryView(entry(id), c.get('apiDate')));
  });
  const auth = authMiddleware(deps.db, deps.clock, deps.limits);
  for (const e of SCHEDULE.filter((x) => !x.served)) {
    for (const route of e.routes) {
      for (const path of honoPaths(route.path)) {
        const methods = route.methods.includes('*') ? ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'] : [...route.methods];
        app.on(methods, path, auth, (c) => notProvided(c, e));
      }
    }
  }
  return app;
}
