/**
 * Route patterns of the edge, as production defines them
 * (https://developers.cloudflare.com/workers/configuration/routing/routes/#matching-behavior):
 *
 * - `[http://|https://]<host>[/<path>]`; without a scheme a pattern matches both; no path means `/`.
 * - The only operator is `*` (zero or more of any character), allowed only at the start of the host
 *   (`*.example.com` matches subdomains only, `*example.com` also the apex and `fooexample.com`) and at the
 *   end of the path (`/images/*`). No infix wildcards, no query string, no port.
 * - Matching looks at the whole URL after the host, query string included: `example.com/a` does not match
 *   `/a?x=1`; only a trailing `*` does. Hosts compare case-insensitively, paths case-sensitively.
 * - When several patterns match, the most specific wins: an exact host beats a wildcard host, then the longer
 *   host; then an exact path beats a wildcard path, then the longer path; then a pattern with a scheme.
 * - A route without a script matches like any other and means "no script here" (it negates less specific
 *   routes).
 *
 * Pure: no I/O. The control plane validates patterns with {@link parseRoutePattern}; the runtime and
 * `EdgeCatalog.resolve` pick routes with {@link matchRoute}.
 */

/** A parsed route pattern. */
export interface RoutePattern {
  /** The pattern as stored. */
  pattern: string;
  scheme: 'http' | 'https' | undefined;
  /** Lowercase host without its leading `*` (and without the `.` of `*.`: see `hostWildcard`). */
  host: string;
  /** `none`: exactly `host`; `subdomains` (`*.host`): names ending in `.host`; `suffix` (`*host`): names ending in `host`. */
  hostWildcard: 'none' | 'subdomains' | 'suffix';
  /** The path (with query, if any) without a trailing `*`. */
  path: string;
  /** True when the path ended in `*` (prefix match). */
  pathWildcard: boolean;
}

/** A route as the matcher sees it. */
export interface MatchableRoute {
  pattern: RoutePattern;
  /** The script it runs; null for a no-script route. */
  script: string | null;
}

const HOST_LABEL = /^[a-z0-9_](?:[a-z0-9_-]{0,61}[a-z0-9_])?$/;

/** Parses and validates a pattern; returns a problem description instead when it is not a valid pattern. */
export function parseRoutePattern(raw: string): RoutePattern | string {
  if (typeof raw !== 'string' || raw.trim() === '') return 'a route pattern must be a non-empty string';
  let rest = raw.trim();
  if (rest.length > 1024) return 'a route pattern may be at most 1024 characters long';
  let scheme: RoutePattern['scheme'];
  const schemeMatch = /^(https?):\/\//i.exec(rest);
  if (schemeMatch) {
    scheme = schemeMatch[1]!.toLowerCase() as 'http' | 'https';
    rest = rest.slice(schemeMatch[0].length);
  } else if (/^[a-z][a-z0-9+.-]*:\/\//i.test(rest)) {
    return 'a route pattern may only begin with http:// or https://';
  }
  const slash = rest.indexOf('/');
  let hostPart = slash === -1 ? rest : rest.slice(0, slash);
  const pathPart = slash === -1 ? '/' : rest.slice(slash);
  if (/[\s\u0000-\u001f\u007f]/.test(rest)) return 'a route pattern may not contain whitespace or control characters';
  if (pathPart.includes('?') || pathPart.includes('#')) return 'route patterns may not contain query parameters or fragments';
  if (hostPart.includes(':')) return 'route patterns may not contain a port';
  hostPart = hostPart.toLowerCase();
  let hostWildcard: RoutePattern['hostWildcard'] = 'none';
  if (hostPart.startsWith('*.')) {
    hostWildcard = 'subdomains';
    hostPart = hostPart.slice(2);
  } else if (hostPart.startsWith('*')) {
    hostWildcard = 'suffix';
    hostPart = hostPart.slice(1);
  }
  if (hostPart.includes('*')) return 'a wildcard (*) is only allowed at the start of the hostname';
  const host = hostPart.replace(/\.$/, '');
  if (host === '' || host.length > 253 || !host.split('.').every((l) => HOST_LABEL.test(l))) {
    return hostWildcard === 'suffix' && host === '' ? 'a route pattern needs a hostname after the wildcard' : `"${hostPart}" is not a valid hostname`;
  }
  const pathWildcard = pathPart.endsWith('*');
  const path = pathWildcard ? pathPart.slice(0, -1) : pathPart;
  if (path.includes('*')) return 'a wildcard (*) is only allowed at the end of the path';
  return { pattern: raw.trim(), scheme, host, hostWildcard, path, pathWildcard };
}

/** True when the route's host part matches `host` (lowercase, no port). */
export function hostMatches(p: RoutePattern, host: string): boolean {
  switch (p.hostWildcard) {
    case 'none': return host === p.host;
    case 'subdomains': return host.endsWith(`.${p.host}`);
    case 'suffix': return host.endsWith(p.host);
  }
}

/** True when the route matches a request (scheme, lowercase host, path with its query string). */
export function routeMatches(p: RoutePattern, scheme: 'http' | 'https', host: string, pathAndQuery: string): boolean {
  if (p.scheme !== undefined && p.scheme !== scheme) return false;
  if (!hostMatches(p, host)) return false;
  return p.pathWildcard ? pathAndQuery.startsWith(p.path) : pathAndQuery === p.path;
}

/** Orders patterns from most to least specific (negative when `a` is more specific than `b`). */
export function compareSpecificity(a: RoutePattern, b: RoutePattern): number {
  const exactHost = (p: RoutePattern) => (p.hostWildcard === 'none' ? 1 : 0);
  const hostLen = (p: RoutePattern) => p.host.length + (p.hostWildcard === 'subdomains' ? 1 : 0);
  return (exactHost(b) - exactHost(a))
    || (hostLen(b) - hostLen(a))
    || ((b.pathWildcard ? 0 : 1) - (a.pathWildcard ? 0 : 1))
    || (b.path.length - a.path.length)
    || ((b.scheme ? 1 : 0) - (a.scheme ? 1 : 0))
    || (a.pattern < b.pattern ? -1 : a.pattern > b.pattern ? 1 : 0);
}

/** The most specific route matching the request, or undefined. A no-script route is returned like any other. */
export function matchRoute<R extends MatchableRoute>(routes: readonly R[], scheme: 'http' | 'https', host: string, pathAndQuery: string): R | undefined {
  let best: R | undefined;
  for (const r of routes) {
    if (!routeMatches(r.pattern, scheme, host, pathAndQuery)) continue;
    if (best === undefined || compareSpecificity(r.pattern, best.pattern) < 0) best = r;
  }
  return best;
}

/** True when a pattern's hostname lies inside the zone (production: "Route patterns must include your zone"). */
export function patternInZone(p: RoutePattern, zoneName: string): boolean {
  const zone = zoneName.toLowerCase();
  return p.host === zone || p.host.endsWith(`.${zone}`);
}
