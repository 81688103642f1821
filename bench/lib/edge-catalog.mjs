/**
 * The scripts bench/edge.mjs deploys and the catalog it deploys them through (fixed hosts, one route each).
 */
import { parseRoutePattern } from '../../dist/edge/route-match.js';

/** Hello world. */
export const HELLO = 'export default { fetch() { return new Response("hello world"); } };';

/** Put+get pairs of 1 KiB values on its bucket `B`, `concurrency` in flight; answers the time taken. */
export const PAIRS_SCRIPT = `export default {
  async fetch(request, env) {
    const { pairs, concurrency } = await request.json();
    const value = new Uint8Array(1024).fill(7);
    let next = 0;
    const started = Date.now();
    await Promise.all(Array.from({ length: concurrency }, async () => {
      while (next < pairs) {
        const key = 'k' + (next++ % 500);
        await env.B.put(key, value);
        const o = await env.B.get(key);
        await o.arrayBuffer();
      }
    }));
    return Response.json({ ms: Date.now() - started });
  },
};`;

/** Answers a 1 KiB object read from its bucket `B` (written by a request to /init). */
export const READ_SCRIPT = `export default {
  async fetch(request, env) {
    if (new URL(request.url).pathname === '/init') { await env.B.put('one-k', new Uint8Array(1024).fill(7)); return new Response('ok'); }
    const o = await env.B.get('one-k');
    return new Response(o.body);
  },
};`;

/** A catalog of fixed hosts, versions added with deploy(). */
export class BenchCatalog {
  hosts = new Map(); bundles = new Map(); listeners = new Set(); n = 0;
  async resolve(host) { return this.hosts.get(host) ?? { kind: 'unknown', status: 530, reason: 'unknown' }; }
  async bundle(v) { return this.bundles.get(v) ?? null; }
  /** A script hostname's one route, `<host>/*` (the fast path compiles it). */
  async hostRoutes(host) {
    const t = this.hosts.get(host);
    if (t?.kind !== 'script') return undefined;
    return { accountId: t.accountId, passThrough: false, policy: false, routes: [{ pattern: parseRoutePattern(`${host}/*`), script: t.scriptName, versions: [{ versionId: t.versionId, percentage: 100 }] }] };
  }
  onChange(l) { this.listeners.add(l); return () => this.listeners.delete(l); }
  /** A new version of `host`'s script; the listeners hear of it. */
  deploy(host, source, bindings = []) {
    const versionId = `bench-${++this.n}`;
    this.bundles.set(versionId, { accountId: 'bench', scriptName: host.split('.')[0], versionId, mainModule: 'index.js',
      modules: [{ name: 'index.js', type: 'esm', content: new TextEncoder().encode(source) }], compatibilityDate: '2025-01-01', compatibilityFlags: [], bindings });
    this.hosts.set(host, { kind: 'script', accountId: 'bench', scriptName: host.split('.')[0], versionId });
    for (const l of this.listeners) l();
    return versionId;
  }
}
