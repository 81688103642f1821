/**
 * An in-memory EdgeCatalog for the runtime's own tests (the seam between control and data plane; the real
 * catalog is the control plane's, tested end to end with wrangler at merge).
 */
import type { EdgeCatalog, EdgeTarget, HostRoutePlan, RouteChanges, ScriptBinding, ScriptBundle, ScriptLimits, ScriptModule } from '../../src/edge/types.js';
import { parseRoutePattern, type RoutePattern } from '../../src/edge/route-match.js';

/** A catalog whose hosts and versions tests set directly. */
export class MemoryCatalog implements EdgeCatalog {
  readonly hosts = new Map<string, EdgeTarget>();
  readonly bundles = new Map<string, ScriptBundle>();
  private readonly listeners = new Set<() => void>();
  private n = 0;
  /** Route reads (`hostRoutes`) by hostname, so tests see what a change made the fast path read again. */
  readonly routeReads = new Map<string, number>();
  /** Each change: the zones it touched (a hostname's zone is `zone:<hostname>` here), or `all`. */
  private readonly changes: (string[] | 'all')[] = [];

  async resolve(host: string): Promise<EdgeTarget> {
    return this.hosts.get(host) ?? { kind: 'unknown', status: 530, reason: 'This hostname is not served by this edge.' };
  }

  /** A script hostname's one route, `<host>/*` (the fast path compiles it). */
  async hostRoutes(host: string): Promise<HostRoutePlan | undefined> {
    const t = this.hosts.get(host);
    this.routeReads.set(host, (this.routeReads.get(host) ?? 0) + 1);
    if (t?.kind !== 'script') return undefined;
    return {
      accountId: t.accountId, zoneId: `zone:${host}`, passThrough: t.passThrough !== undefined, policy: false,
      routes: [{ pattern: parseRoutePattern(`${host}/*`) as RoutePattern, script: t.scriptName, versions: [{ versionId: t.versionId, percentage: 100 }] }],
    };
  }

  /** Tells the listeners (as a route or deployment change does): of these hostnames' zones, or of anything. */
  changed(hosts?: string[]): void {
    this.changes.push(hosts ? hosts.map((h) => `zone:${h}`) : 'all');
    for (const l of this.listeners) l();
  }

  /** The zones the changes after `cursor` touched. */
  async routeChanges(cursor: string | undefined): Promise<RouteChanges> {
    const since = cursor === undefined ? undefined : Number(cursor);
    const later = since === undefined ? ['all' as const] : this.changes.slice(since);
    const zones = later.includes('all') ? 'all' : new Set(later.flatMap((c) => (c === 'all' ? [] : c)));
    return { cursor: String(this.changes.length), zones };
  }

  async bundle(versionId: string): Promise<ScriptBundle | null> {
    return this.bundles.get(versionId) ?? null;
  }

  onChange(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Adds a version of a one-module script and routes `host` to it. */
  deploy(host: string, source: string, opts: {
    accountId?: string; bindings?: ScriptBinding[]; flags?: string[]; date?: string; modules?: ScriptModule[];
    /** The main module's type (default `esm`; `commonjs`: a Service Worker script or a `module.exports` main). */
    mainType?: 'esm' | 'commonjs'; limits?: ScriptLimits;
  } = {}): ScriptBundle {
    const versionId = `v${++this.n}-${Math.random().toString(16).slice(2, 10)}`;
    const bundle: ScriptBundle = {
      accountId: opts.accountId ?? 'acct-1', scriptName: host.split('.')[0]!, versionId, mainModule: 'index.js',
      modules: [{ name: 'index.js', type: opts.mainType ?? 'esm', content: new TextEncoder().encode(source) }, ...(opts.modules ?? [])],
      compatibilityDate: opts.date ?? '2025-01-01', compatibilityFlags: opts.flags ?? [], bindings: opts.bindings ?? [],
      ...(opts.limits ? { limits: opts.limits } : {}),
    };
    this.bundles.set(versionId, bundle);
    this.hosts.set(host, { kind: 'script', accountId: bundle.accountId, scriptName: bundle.scriptName, versionId });
    this.changed([host]);
    return bundle;
  }
}
