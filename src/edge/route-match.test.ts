import { describe, expect, it } from 'vitest';
import { compareSpecificity, matchRoute, parseRoutePattern, patternInZone, routeMatches, type MatchableRoute, type RoutePattern } from './route-match.js';

const parse = (raw: string): RoutePattern => {
  const p = parseRoutePattern(raw);
  if (typeof p === 'string') throw new Error(p);
  return p;
};
const routes = (...list: [string, string | null][]): MatchableRoute[] => list.map(([pattern, script]) => ({ pattern: parse(pattern), script }));
const pick = (rs: MatchableRoute[], url: string): string | null | undefined => {
  const u = new URL(url);
  const found = matchRoute(rs, u.protocol === 'https:' ? 'https' : 'http', u.hostname, `${u.pathname}${u.search}`);
  return found === undefined ? undefined : found.script;
};

describe('route patterns', () => {
  it('parses scheme, host wildcard and path wildcard', () => {
    expect(parse('https://*.example.com/images/*')).toMatchObject({ scheme: 'https', host: 'example.com', hostWildcard: 'subdomains', path: '/images/', pathWildcard: true });
    expect(parse('*example.com/*')).toMatchObject({ scheme: undefined, host: 'example.com', hostWildcard: 'suffix', path: '/', pathWildcard: true });
    expect(parse('Example.COM')).toMatchObject({ host: 'example.com', hostWildcard: 'none', path: '/', pathWildcard: false });
    expect(parse('example.com/Api')).toMatchObject({ path: '/Api' });
  });

  it.each([
    ['', 'non-empty'],
    ['example.com/*.jpg', 'end of the path'],
    ['example.com/?foo=*', 'query'],
    ['www.*.example.com/*', 'start of the hostname'],
    ['example.com:8080/*', 'port'],
    ['ftp://example.com/*', 'http:// or https://'],
    ['*/*', 'hostname'],
    ['exa mple.com/*', 'whitespace'],
    ['example.com/a\u0000b', 'control characters'],
    ['-bad-.example.com/*', 'valid hostname'],
  ])('refuses %j', (raw, problem) => {
    const p = parseRoutePattern(raw);
    expect(typeof p).toBe('string');
    expect(p).toContain(problem);
  });

  it('knows whether a pattern lies in a zone', () => {
    expect(patternInZone(parse('*example.com/*'), 'example.com')).toBe(true);
    expect(patternInZone(parse('*.example.com/*'), 'example.com')).toBe(true);
    expect(patternInZone(parse('a.b.example.com/x'), 'example.com')).toBe(true);
    expect(patternInZone(parse('notexample.com/*'), 'example.com')).toBe(false);
    expect(patternInZone(parse('*ample.com/*'), 'example.com')).toBe(false);
  });
});

describe('matching', () => {
  it('an exact pattern matches only its host and path, query string included', () => {
    const p = parse('example.com/a');
    expect(routeMatches(p, 'http', 'example.com', '/a')).toBe(true);
    expect(routeMatches(p, 'https', 'example.com', '/a')).toBe(true);
    expect(routeMatches(p, 'http', 'example.com', '/a?x=1')).toBe(false);
    expect(routeMatches(p, 'http', 'example.com', '/a/')).toBe(false);
    expect(routeMatches(p, 'http', 'www.example.com', '/a')).toBe(false);
    expect(routeMatches(parse('example.com'), 'http', 'example.com', '/')).toBe(true);
    expect(routeMatches(parse('example.com'), 'http', 'example.com', '/x')).toBe(false);
  });

  it('a trailing * matches any rest, including a query string; paths are case-sensitive', () => {
    const p = parse('example.com/images/*');
    expect(routeMatches(p, 'http', 'example.com', '/images/')).toBe(true);
    expect(routeMatches(p, 'http', 'example.com', '/images/cat.png?size=2')).toBe(true);
    expect(routeMatches(p, 'http', 'example.com', '/images')).toBe(false);
    expect(routeMatches(p, 'http', 'example.com', '/Images/cat.png')).toBe(false);
    expect(routeMatches(parse('example.com/images*'), 'http', 'example.com', '/images')).toBe(true);
    expect(routeMatches(parse('example.com/images*'), 'http', 'example.com', '/imagesfoo')).toBe(true);
  });

  it('*. matches subdomains only; * also matches the apex and any name ending in the rest', () => {
    const sub = parse('*.example.com/*');
    expect(routeMatches(sub, 'http', 'www.example.com', '/')).toBe(true);
    expect(routeMatches(sub, 'http', 'a.b.example.com', '/')).toBe(true);
    expect(routeMatches(sub, 'http', 'example.com', '/')).toBe(false);
    const any = parse('*example.com/*');
    expect(routeMatches(any, 'http', 'example.com', '/')).toBe(true);
    expect(routeMatches(any, 'http', 'www.example.com', '/')).toBe(true);
    expect(routeMatches(any, 'http', 'myexample.com', '/')).toBe(true);
    expect(routeMatches(any, 'http', 'example.org', '/')).toBe(false);
  });

  it('a scheme restricts the match', () => {
    expect(routeMatches(parse('https://example.com/*'), 'http', 'example.com', '/')).toBe(false);
    expect(routeMatches(parse('https://example.com/*'), 'https', 'example.com', '/')).toBe(true);
    expect(routeMatches(parse('http://example.com/*'), 'http', 'example.com', '/')).toBe(true);
  });
});

describe('precedence', () => {
  const rs = routes(
    ['*example.com/*', 'catch-all'],
    ['*.example.com/*', 'subdomains'],
    ['www.example.com/*', 'www'],
    ['www.example.com/api/*', 'api'],
    ['www.example.com/api/health', null],
    ['www.example.com/api/v2*', 'api-v2'],
    ['https://www.example.com/api/*', 'api-https'],
    ['shop.example.com/static/*', null],
  );

  it.each([
    ['http://www.example.com/', 'www'],
    ['http://www.example.com/api/x', 'api'],
    ['https://www.example.com/api/x', 'api-https'],
    ['http://www.example.com/api/v2/x', 'api-v2'],
    ['http://www.example.com/api/health', null],
    ['http://www.example.com/api/health?deep=1', 'api'],
    ['http://blog.example.com/post', 'subdomains'],
    ['http://example.com/', 'catch-all'],
    ['http://shop.example.com/static/app.js', null],
    ['http://shop.example.com/cart', 'subdomains'],
  ])('%s -> %s', (url, script) => {
    expect(pick(rs, url)).toBe(script);
  });

  it('nothing matches outside the patterns', () => {
    expect(pick(rs, 'http://example.org/')).toBeUndefined();
    expect(pick(routes(['example.com/a', 'a']), 'http://example.com/b')).toBeUndefined();
  });

  it('does not depend on the order of the routes', () => {
    const reversed = [...rs].reverse();
    for (const url of ['http://www.example.com/api/x', 'http://blog.example.com/', 'http://example.com/x']) {
      expect(pick(reversed, url)).toBe(pick(rs, url));
    }
  });

  it('orders host before path and exact before wildcard', () => {
    const sorted = ['*example.com/*', 'example.com/*', 'example.com/a/*', 'example.com/a', '*.example.com/a/b/c/*', 'https://example.com/a']
      .map(parse).sort(compareSpecificity).map((p) => p.pattern);
    expect(sorted).toEqual(['https://example.com/a', 'example.com/a', 'example.com/a/*', 'example.com/*', '*.example.com/a/b/c/*', '*example.com/*']);
  });
});
