import { describe, expect, it } from 'vitest';
import { parseRoutePattern, type RoutePattern } from '../../edge/route-match.js';
import type { HostRoutePlan } from '../../edge/types.js';
import { fastRoutesConfig, pathRegex, safeUri, type FastVersion } from './fast-routes.js';

const route = (raw: string, versionId: string | null): HostRoutePlan['routes'][number] => ({
  pattern: parseRoutePattern(raw) as RoutePattern, script: versionId === null ? null : 'worker',
  versions: versionId === null ? [] : [{ versionId, percentage: 100 }],
});
const versions = new Map<string, FastVersion>([
  ['va', { accountId: 'acct-a', sockets: ['/run/a.sock'], slotSocket: '/run/slot1.sock' }],
  ['vb', { accountId: 'acct-b', sockets: ['/run/b.sock'], slotSocket: '/run/slot2.sock' }],
]);
const plan = (over: Partial<HostRoutePlan> = {}): HostRoutePlan => ({ accountId: 'acct-a', routes: [route('a.test/*', 'va')], passThrough: false, policy: false, ...over });
const compile = (hosts: Record<string, HostRoutePlan>) => fastRoutesConfig({ hosts: new Map(Object.entries(hosts)), versions });

describe('fast routes', () => {
  it("compiles a hostname's route to its version's socket, with its slot's socket as backup, and names its account and route", () => {
    const text = compile({ 'a.test': plan() });
    expect(text).toContain('a.test $stratus_fh0;');
    expect(text).toContain('"~^https?:/" stratus_v0;');
    expect(text).toContain('upstream stratus_v0 { server unix:/run/a.sock max_fails=0; server unix:/run/slot1.sock max_fails=0 backup;');
    expect(text).toMatch(/\$stratus_account \{\s+default "";\s+stratus_v0 "acct-a";/);
    expect(text).toMatch(/\$stratus_route \{\s+default "";\s+stratus_v0 "script:worker";/);
  });

  it("sends a version served by several processes to the one with the fewest requests in flight (least_conn), its slot's socket still the backup", () => {
    const twins = new Map(versions).set('va', { accountId: 'acct-a', sockets: ['/run/a.sock', '/run/a-r1.sock'], slotSocket: '/run/slot1.sock' });
    const text = fastRoutesConfig({ hosts: new Map([['a.test', plan()]]), versions: twins });
    expect(text).toContain('upstream stratus_v0 { least_conn; server unix:/run/a.sock max_fails=0; server unix:/run/a-r1.sock max_fails=0; server unix:/run/slot1.sock max_fails=0 backup;');
    expect(compile({ 'a.test': plan() })).not.toContain('least_conn');
  });

  it('leaves to the slow path: something behind the routes, another account\'s version, a version not live', () => {
    for (const p of [plan({ passThrough: true }), plan({ routes: [route('a.test/*', 'vb')] }), plan({ routes: [route('a.test/*', 'gone')] })]) {
      const text = compile({ 'a.test': p });
      expect(text).not.toContain('a.test $stratus_fh');
      expect(text).not.toContain('upstream stratus_v');
    }
  });

  it('never falls through a more specific route it cannot serve to a less specific one', () => {
    const text = compile({ 'a.test': plan({ routes: [route('a.test/api/*', null), route('https://a.test/x', 'va'), route('a.test/*', 'va')] }) });
    expect(text).toMatch(/"~\^https\?:\/api\/" "";\s+"~\^https:\/x\(\?:\\\?\.\*\)\?\$" stratus_v0;\s+"~\^https\?:\/" stratus_v0;/);
  });

  it('a zone setting answering plain HTTP (always_use_https) leaves the hostname fast over HTTPS only', () => {
    const text = compile({ 'a.test': plan({ policy: true, routes: [route('http://a.test/h', 'va'), route('a.test/*', 'va')] }) });
    expect(text).toMatch(/map "\$scheme:\$request_uri" \$stratus_fh0 \{\s+"~\^https:\/" stratus_v0;\s+default "";/);
    expect(text).not.toContain('http:/h');
  });

  it('splits a percentage deployment with split_clients', () => {
    const split: HostRoutePlan['routes'][number] = { ...route('a.test/*', 'va'), versions: [{ versionId: 'va', percentage: 33.333 }, { versionId: 'va2', percentage: 66.667 }] };
    const both = new Map(versions).set('va2', { accountId: 'acct-a', sockets: ['/run/a2.sock'], slotSocket: '/run/slot1.sock' });
    const text = fastRoutesConfig({ hosts: new Map([['a.test', plan({ routes: [split] })]]), versions: both });
    expect(text).toMatch(/split_clients "\$\{stratus_ray\}" \$stratus_split0 \{\s+33\.33% stratus_v0;\s+\* stratus_v1;/);
  });

  it('takes only paths the supervisor sees unchanged', () => {
    expect(pathRegex('/a.b', false)).toBe('^/a\\.b(?:\\?.*)?$');
    expect(pathRegex('/a%20', true)).toBeUndefined();
    for (const ok of ['/', '/a/b-c_d.e~', '/a?x=%20&y=..//']) expect(safeUri(ok), ok).toBe(true);
    for (const bad of ['//a', '/a//b', '/a/./b', '/a/..', '/%41', '/a;b', '*', 'http://x/']) expect(safeUri(bad), bad).toBe(false);
  });
});
