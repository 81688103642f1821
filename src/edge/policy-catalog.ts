/**
 * The catalog the edge runtime reads when zone settings apply: a wrapper of the control plane's catalog that
 * answers a redirect instead of the target where production's edge would (`always_use_https` on a plain
 * HTTP request; a zone with `ssl` off reached over HTTPS). It only redirects hostnames the edge serves (a
 * target other than `unknown`), and only to a listener that exists (no `--edge-tls`: no redirect to HTTPS).
 */
import type { EdgeCatalog, EdgeTarget, HostRoutePlan, RouteChanges, ScriptBundle } from './types.js';
import type { ZonePolicies } from './zone-policy.js';

/** The bound ports of the edge listeners, known once they listen. */
export interface EdgePorts {
  http?: number | undefined;
  https?: number | undefined;
}

function origin(scheme: 'http' | 'https', host: string, port: number): string {
  const standard = scheme === 'https' ? 443 : 80;
  const name = host.includes(':') ? `[${host}]` : host;
  return `${scheme}://${name}${port === standard ? '' : `:${port}`}`;
}

/** An {@link EdgeCatalog} applying the zones' `always_use_https` and `ssl` settings. */
export class PolicyCatalog implements EdgeCatalog {
  /** Zone setting changes heard of (a route change cursor from before one reads everything again). */
  private settingsChanges = 0;

  constructor(private readonly inner: EdgeCatalog, private readonly policies: ZonePolicies, readonly ports: EdgePorts) {
    policies.onChange(() => { this.settingsChanges++; });
  }

  async resolve(host: string, path: string, scheme: 'http' | 'https' = 'http'): Promise<EdgeTarget> {
    const target = await this.inner.resolve(host, path, scheme);
    if (target.kind === 'unknown') return target;
    const policy = await this.policies.forHost(host);
    if (!policy) return target;
    if (scheme === 'http' && policy.alwaysUseHttps && policy.ssl !== 'off' && this.ports.https !== undefined) {
      return { kind: 'redirect', status: 301, location: origin('https', host, this.ports.https) };
    }
    if (scheme === 'https' && policy.ssl === 'off' && this.ports.http !== undefined) {
      return { kind: 'redirect', status: 301, location: origin('http', host, this.ports.http) };
    }
    const ssl = policy.ssl === 'full' || policy.ssl === 'strict' ? policy.ssl : undefined;
    if (ssl && target.kind === 'origin') return { ...target, ssl };
    if (ssl && target.kind === 'script' && target.passThrough?.kind === 'origin') return { ...target, passThrough: { ...target.passThrough, ssl } };
    return target;
  }

  /** The inner catalog's routes of a hostname, with `policy` set when a zone setting redirects its plain HTTP requests. */
  async hostRoutes(host: string): Promise<HostRoutePlan | undefined> {
    const plan = await this.inner.hostRoutes?.(host);
    if (!plan) return undefined;
    const policy = await this.policies.forHost(host);
    const redirects = policy !== undefined && policy.alwaysUseHttps && policy.ssl !== 'off' && this.ports.https !== undefined;
    return redirects ? { ...plan, policy: true } : plan;
  }

  /**
   * The inner catalog's route changes; `all` when a zone setting changed since `cursor` (a setting can make a
   * hostname's plain HTTP requests redirects).
   */
  async routeChanges(cursor: string | undefined): Promise<RouteChanges> {
    const [innerCursor, epoch] = cursor === undefined ? [undefined, undefined] : [cursor.slice(cursor.indexOf(':') + 1), cursor.slice(0, cursor.indexOf(':'))];
    const inner = await this.inner.routeChanges?.(innerCursor);
    const zones = inner === undefined || epoch !== String(this.settingsChanges) ? 'all' : inner.zones;
    return { cursor: `${this.settingsChanges}:${inner?.cursor ?? ''}`, zones };
  }

  bundle(versionId: string): Promise<ScriptBundle | null> {
    return this.inner.bundle(versionId);
  }

  onChange(listener: () => void): () => void {
    const a = this.inner.onChange(listener);
    const b = this.policies.onChange(listener);
    return () => { a(); b(); };
  }
}
