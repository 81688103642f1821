/** What the front asks Node about a request to learn its runtime slot (`/route` of the control service). */

/** The question of one request: lowercase Host without port, URL path without query string, and scheme. */
export interface RouteQuery {
  host: string;
  path: string;
  scheme: 'http' | 'https';
}

/**
 * The route question of a request, or undefined without a Host. The scheme is https only when the HTTPS listener
 * vouches for it with the secret (the supervisor reads the same headers: supervisor/front-facts.ts).
 */
export function routeQuery(request: Request, secret: string): RouteQuery | undefined {
  const host = (request.headers.get('host') || '').toLowerCase().replace(/:\d+$/, '').replace(/^\[|\]$/g, '');
  if (!host) return undefined;
  const url = request.url;
  const start = url.indexOf('/', url.indexOf('//') + 2);
  const query = start < 0 ? -1 : url.indexOf('?', start);
  const path = start < 0 ? '/' : query < 0 ? url.slice(start) : url.slice(start, query);
  const scheme = request.headers.get('x-stratus-scheme') === 'https' && request.headers.get('x-stratus-front') === secret ? 'https' : 'http';
  return { host, path, scheme };
}
