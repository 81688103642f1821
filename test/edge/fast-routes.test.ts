/**
 * The fast path's compiled routing agrees with `edge/route-match.ts` (the truth the supervisor's catalog uses),
 * through real nginx: random route patterns (exact and wildcard hosts and paths, schemes, no-script routes,
 * splits, versions not live, paths nginx must leave to the slow path) compiled by `fastRoutesConfig` into the
 * nginx front's configuration, random requests sent, and each answer compared with what `matchRoute` picks.
 * Version sockets and the slot's socket are small Node servers naming themselves.
 */
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { compareSpecificity, hostMatches, matchRoute, parseRoutePattern, type MatchableRoute, type RoutePattern } from '../../src/edge/route-match.js';
import type { HostRoutePlan } from '../../src/edge/types.js';
import { fastRoutesConfig, safeUri, type FastVersion } from '../../src/runtime/front/fast-routes.js';
import { findNginx, type NginxFront } from '../../src/runtime/front/nginx-front.js';
import { startTestNginxFront, type TestNginxFront } from '../helpers/nginx-front.js';
import { seededRandom } from '../helpers/seeded-random.js';

/** GET `target` exactly as written (no URL normalization) with `Host: host`; the body. */
function rawGet(port: number, host: string, target: string): Promise<string> {
  return new Promise((resolve, reject) => {
    http.get({ host: '127.0.0.1', port, path: target, headers: { host }, agent: false }, (res) => {
      let body = '';
      res.on('data', (c: Buffer) => { body += c.toString(); });
      res.on('end', () => resolve(body));
    }).on('error', reject);
  });
}

const nginx = findNginx();


const HOSTS = ['ex.test', 'a.ex.test', 'b.a.ex.test', 'xa.ex.test'];
const PATTERN_HOSTS = ['ex.test', '*.ex.test', '*ex.test', 'a.ex.test', '*.a.ex.test', '*a.ex.test', 'b.a.ex.test'];
const PATTERN_PATHS = ['/', '/a', '/a/', '/a/b', '/ab', '/a.b', '/a-b/c_d~', '/a;b', '/A', '/a%20b', ''];
const REQUEST_PATHS = ['/', '/a', '/a/', '/a/b', '/a/b/c', '/ab', '/abc', '/a.b', '/axb', '/a-b/c_d~', '/a-b/c_d~e', '/a;b', '/A', '/a%20b',
  '/a?x=1', '/a/?q', '/ab?/a', '/a/./b', '/a/../a', '//a', '/a//b', '/.', '/a/.', '/%2e/a', '/a?', '/?a'];
/** Versions: v1-v3 live, v9 in routes but not live. */
const LIVE = ['v1', 'v2', 'v3'];

describe.skipIf(!nginx)('fast path routing compiled into nginx', () => {
  let dir: string;
  let door: TestNginxFront;
  let front: NginxFront;
  const servers: http.Server[] = [];
  const versions = new Map<string, FastVersion>();

  beforeAll(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'stratus-fast-routes-'));
    const serve = (socket: string, name: string) => new Promise<void>((resolve) => {
      const server = http.createServer((req, res) => res.end(`${name} ${req.url}`));
      servers.push(server);
      server.listen(socket, () => resolve());
    });
    const slot = path.join(dir, 'slot0.sock');
    await serve(slot, 'slow');
    for (const v of LIVE) {
      const socket = path.join(dir, `${v}.sock`);
      await serve(socket, `fast:${v}`);
      versions.set(v, { accountId: 'acct', sockets: [socket], slotSocket: slot });
    }
    door = await startTestNginxFront(nginx!, dir, [slot]);
    front = door.front;
  }, 30_000);

  afterAll(async () => {
    await door?.close();
    for (const s of servers) s.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('sends every request where matchRoute sends it (or to the slow path)', async () => {
    let checked = 0;
    for (let seed = 1; seed <= 12; seed++) {
      const rnd = seededRandom(seed);
      const pick = <T>(list: readonly T[]): T => list[Math.floor(rnd() * list.length)]!;
      const routes: (MatchableRoute & { versions: { versionId: string; percentage: number }[] })[] = [];
      const seen = new Set<string>();
      for (let i = 0; i < 10; i++) {
        const scheme = pick(['', '', 'http://', 'https://']);
        const p = pick(PATTERN_PATHS);
        const raw = `${scheme}${pick(PATTERN_HOSTS)}${p}${p !== '' && rnd() < 0.5 ? '*' : ''}`;
        const pattern = parseRoutePattern(raw) as RoutePattern;
        if (seen.has(pattern.pattern)) continue;
        seen.add(pattern.pattern);
        const kind = rnd();
        const script = kind < 0.15 ? null : 'worker';
        const vs = script === null ? [] : kind < 0.3 ? [{ versionId: 'v9', percentage: 100 }]
          : kind < 0.45 ? [{ versionId: 'v1', percentage: 40 }, { versionId: 'v2', percentage: 60 }] : [{ versionId: pick(LIVE), percentage: 100 }];
        routes.push({ pattern, script, versions: vs });
      }
      const hosts = new Map<string, HostRoutePlan>();
      for (const host of HOSTS) {
        const mine = routes.filter((r) => hostMatches(r.pattern, host)).sort((a, b) => compareSpecificity(a.pattern, b.pattern));
        hosts.set(host, { accountId: 'acct', routes: mine, passThrough: false, policy: false });
      }
      front.setFast(fastRoutesConfig({ hosts, versions }));
      await front.reloadNow();
      for (let i = 0; i < 40; i++) {
        const host = pick(HOSTS);
        const target = pick(REQUEST_PATHS);
        const body = await rawGet(door.port, rnd() < 0.2 ? host.toUpperCase() : host, target);
        const [name, uri] = body.split(' ');
        const pathname = target.split('?')[0]!;
        const route = matchRoute(routes, 'http', host, pathname);
        const fast = safeUri(target) && route?.script != null && route.versions.every((v) => versions.has(v.versionId));
        const why = `seed ${seed}: ${host} ${target} -> ${route?.pattern.pattern ?? 'no route'}`;
        if (!fast) expect(name, why).toBe('slow');
        else expect(route!.versions.map((v) => `fast:${v.versionId}`), why).toContain(name);
        // the request target reaches the upstream as the client sent it
        expect(uri, why).toBe(target);
        checked++;
      }
    }
    expect(checked).toBe(12 * 40);
  }, 120_000);
});
