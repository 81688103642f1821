/**
 * Matching a request (method and path below `/client/v4`) against the routes named by the schedule. Path
 * variables match one non-empty segment; a trailing `/**` matches the path itself and anything below it.
 */
import { SCHEDULE, type ScheduleEntry, type ScheduledRoute } from './schedule.js';

/** A schedule route that matched a request, with the values of its path variables. */
export interface RouteMatch {
  entry: ScheduleEntry;
  route: ScheduledRoute;
  params: Record<string, string>;
}

interface Compiled {
  entry: ScheduleEntry;
  route: ScheduledRoute;
  regex: RegExp;
  names: string[];
}

function compile(path: string): { regex: RegExp; names: string[] } {
  const names: string[] = [];
  let tail = '';
  let body = path;
  if (body.endsWith('/**')) {
    body = body.slice(0, -3);
    tail = '(?:/.*)?';
  }
  const source = body.split('/').map((seg) => {
    if (seg.startsWith(':')) {
      names.push(seg.slice(1));
      return '([^/]+)';
    }
    return seg.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  }).join('/');
  return { regex: new RegExp(`^${source}${tail}/?$`), names };
}

const COMPILED: Compiled[] = SCHEDULE.flatMap((entry) => entry.routes.map((route) => ({ entry, route, ...compile(route.path) })));

/** Every schedule route matching the method and path (path relative to `/client/v4`). */
export function matchScheduledRoutes(method: string, path: string): RouteMatch[] {
  const m = method.toUpperCase();
  const out: RouteMatch[] = [];
  for (const c of COMPILED) {
    if (!c.route.methods.includes('*') && !c.route.methods.includes(m)) continue;
    const hit = c.regex.exec(path);
    if (!hit) continue;
    const params: Record<string, string> = {};
    c.names.forEach((n, i) => { params[n] = decodeURIComponent(hit[i + 1]!); });
    out.push({ entry: c.entry, route: c.route, params });
  }
  return out;
}

/** True when some schedule route has this path (any method): used to answer unknown methods clearly. */
export function pathIsScheduled(path: string): RouteMatch | undefined {
  for (const c of COMPILED) {
    const hit = c.regex.exec(path);
    if (hit) return { entry: c.entry, route: c.route, params: {} };
  }
  return undefined;
}

/** Fills `:name` variables of a path template from matched params (unknown ones stay as they are). */
export function fillPath(template: string, params: Record<string, string>): string {
  return template.replace(/:([a-z_]+)/g, (whole, name: string) => (params[name] !== undefined ? encodeURIComponent(params[name]!) : whole));
}
