import { describe, expect, it } from 'vitest';
import { parseRoutePattern, type RoutePattern } from '../edge/route-match.js';
import { diffRouteSnapshots, RouteChangeLog } from './route-changes.js';
import type { RouteSnapshot } from './route-snapshot.js';

const route = (pattern: string, script: string | null) => ({ pattern: parseRoutePattern(pattern) as RoutePattern, script });
function snapshot(routes: Record<string, ReturnType<typeof route>[]>, traffic: Record<string, string>): RouteSnapshot {
  return {
    serial: 1,
    routesByZone: new Map(Object.entries(routes)),
    scripts: new Map(Object.entries(traffic).map(([key, v]) => [key, { accountId: key.split('/')[0]!, name: key.split('/')[1]!, subdomainEnabled: false, traffic: [{ version_id: v, percentage: 100 }] }])),
    accountBySubdomain: new Map(),
  };
}

describe('route snapshot changes', () => {
  const base = snapshot({ z1: [route('a.example.com/*', 'alpha')], z2: [route('b.example.org/*', 'beta')] }, { 'acct/alpha': 'v1', 'acct/beta': 'v2' });

  it('names the zones whose routes changed, or whose routed scripts were deployed', () => {
    expect(diffRouteSnapshots(base, snapshot({ z1: [route('a.example.com/x*', 'alpha')], z2: [route('b.example.org/*', 'beta')] }, { 'acct/alpha': 'v1', 'acct/beta': 'v2' }))).toEqual(new Set(['z1']));
    expect(diffRouteSnapshots(base, snapshot({ z1: [route('a.example.com/*', 'alpha')], z2: [route('b.example.org/*', 'beta')] }, { 'acct/alpha': 'v1', 'acct/beta': 'v3' }))).toEqual(new Set(['z2']));
    expect(diffRouteSnapshots(base, snapshot({ z1: [route('a.example.com/*', 'alpha')] }, { 'acct/alpha': 'v1', 'acct/beta': 'v2' }))).toEqual(new Set(['z2']));
  });

  it('is all when nothing in the routes changed (the change was elsewhere) or nothing was known before', () => {
    expect(diffRouteSnapshots(base, snapshot({ z1: [route('a.example.com/*', 'alpha')], z2: [route('b.example.org/*', 'beta')] }, { 'acct/alpha': 'v1', 'acct/beta': 'v2' }))).toBe('all');
    expect(diffRouteSnapshots(undefined, base)).toBe('all');
  });

  it('gives a reader the zones of every change since its cursor, all when it is further behind than what is kept', () => {
    const log = new RouteChangeLog();
    log.record(0, 2, new Set(['z1']));
    log.record(2, 5, new Set(['z2']));
    expect(log.since(2)).toEqual(new Set(['z2']));
    expect(log.since(0)).toEqual(new Set(['z1', 'z2']));
    expect(log.since(5)).toEqual(new Set());
    expect(log.since(undefined)).toBe('all');
    log.record(5, 6, 'all');
    expect(log.since(2)).toBe('all');
    for (let i = 6; i < 100; i++) log.record(i, i + 1, new Set(['z3']));
    expect(log.since(3)).toBe('all');
    expect(log.since(99)).toEqual(new Set(['z3']));
  });
});
