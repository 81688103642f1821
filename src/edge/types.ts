/**
 * The seam between the edge's control plane (scripts, versions, routes, secrets and subdomains kept in the
 * database and managed through the v4 Workers routes: `src/scripts/`) and its data plane (the runtime that
 * runs script versions in workerd behind the `--edge` listener: `src/runtime/`). The control plane implements
 * {@link EdgeCatalog}; the runtime only reads it.
 */

import type { RoutePattern } from './route-match.js';

/** One module of a script version, as uploaded (wrangler's multipart parts). */
export interface ScriptModule {
  /** Module name as imported by other modules (`index.js`, `data/config.json`). */
  name: string;
  /** `esm` (ES module), `commonjs`, `text`, `data` (ArrayBuffer), `wasm`, `json`, `sourcemap`. */
  type: 'esm' | 'commonjs' | 'text' | 'data' | 'wasm' | 'json' | 'sourcemap';
  content: Uint8Array;
}

/** A binding of a script version, as the runtime needs it (secret values decrypted, in memory only). */
export type ScriptBinding =
  | { type: 'r2_bucket'; name: string; bucketName: string }
  | { type: 'plain_text'; name: string; text: string }
  | { type: 'secret_text'; name: string; text: string }
  | { type: 'json'; name: string; json: unknown };

/** A script version's own limits per request (its upload's `limits`); the node's flags cap them. */
export interface ScriptLimits {
  /** CPU milliseconds per request (`limits.cpu_ms`). */
  cpuMs?: number;
  /** Subrequests per request (`limits.subrequests`): `fetch()` calls, and bucket operations. */
  subrequests?: number;
}

/** Everything the runtime needs to run one version of a script. Versions are immutable. */
export interface ScriptBundle {
  accountId: string;
  scriptName: string;
  versionId: string;
  /** Name of the entry module (one of `modules`). */
  mainModule: string;
  modules: ScriptModule[];
  compatibilityDate: string;
  compatibilityFlags: string[];
  bindings: ScriptBinding[];
  /** The version's own limits (none: the node's). */
  limits?: ScriptLimits;
}

/** What the edge does with one request. */
export type EdgeTarget =
  /** Run this script version (a route matched, or a workers-subdomain hostname). */
  | {
    kind: 'script'; accountId: string; scriptName: string; versionId: string; zoneId?: string;
    /**
     * Where the request goes when the script passes it on, as production sends it "to the origin as if no Worker
     * existed": a Service Worker script none of whose listeners called `respondWith()`, or a script that threw
     * after `passThroughOnException()`. What the hostname resolves to without script routes (an origin, a
     * bucket's custom domain); absent (a workers-subdomain hostname, no proxied record) there is no origin, and
     * the request gets the script's error page.
     */
    passThrough?: EdgeTarget;
  }
  /** A proxied hostname without a matching route (or a no-script route): reverse-proxy to the origin. */
  | {
    kind: 'origin'; zoneId: string; hostname: string; origin: string;
    /** The zone's `ssl` when it asks for HTTPS to the origin (`full`: any certificate, `strict`: a valid one for the hostname). */
    ssl?: 'full' | 'strict';
  }
  /**
   * A public hostname of a bucket (its development hostname or a custom domain): GET and HEAD of objects of this
   * bucket of this account; nothing else.
   */
  | { kind: 'bucket'; accountId: string; bucket: string; hostname: string }
  /**
   * A zone setting redirects the request (`always_use_https`, `ssl` off over HTTPS: `edge/policy-catalog.ts`):
   * `location` is the new scheme, host and port; the request's path and query string are appended.
   */
  | { kind: 'redirect'; status: 301; location: string }
  /** Not a hostname the edge serves: answer with production's error page and this status. */
  | { kind: 'unknown'; status: number; reason: string };

/**
 * The routes of one hostname, for the nginx front's fast path (`runtime/front/fast-routes.ts`), which compiles
 * them into its configuration instead of asking `resolve` per request.
 */
export interface HostRoutePlan {
  /** The account of the hostname's zone: the only account whose scripts its routes run. */
  accountId: string;
  /** The hostname's zone (`routeChanges` names zones); absent: read again on every change. */
  zoneId?: string;
  /** The zone's routes whose host part matches the hostname, most specific first (`compareSpecificity`). */
  routes: { pattern: RoutePattern; script: string | null; versions: { versionId: string; percentage: number }[] }[];
  /** Something is behind the routes (an origin, a bucket): a script may pass a request on to it. */
  passThrough: boolean;
  /** A zone setting answers plain HTTP requests of the hostname itself (a redirect to HTTPS). */
  policy: boolean;
}

/** The control plane as the edge runtime sees it. */
export interface EdgeCatalog {
  /**
   * The target of a request by its Host (lowercase, without port) and URL path (with its query string, which
   * route patterns match too). `scheme` (default `http`) is the client's: patterns may name one.
   */
  resolve(host: string, path: string, scheme?: 'http' | 'https'): Promise<EdgeTarget>;
  /** A version's bundle, or null when it no longer exists. */
  bundle(versionId: string): Promise<ScriptBundle | null>;
  /** Calls `listener` whenever routes, deployments or versions may have changed (on any node). Returns an unsubscribe. */
  onChange(listener: () => void): () => void;
  /**
   * The routes of a hostname of a zone (lowercase, no port), for the fast path; undefined when the hostname is
   * not in a zone (a workers-subdomain or public bucket hostname: the slow path serves it). Optional: without it
   * the edge has no fast path.
   */
  hostRoutes?(host: string): Promise<HostRoutePlan | undefined>;
  /**
   * Which hostnames' routes may have changed since `cursor` (a previous answer's; undefined: the first call):
   * the zones whose routes or routed scripts' deployments changed, or `all`. Optional: without it every learned
   * hostname's routes are read again on every change.
   */
  routeChanges?(cursor: string | undefined): Promise<RouteChanges>;
}

/** An answer of {@link EdgeCatalog.routeChanges}. */
export interface RouteChanges {
  /** What to pass next time. */
  cursor: string;
  /** The zones touched, or `all` (anything may have changed: zones, records, bucket domains, settings). */
  zones: ReadonlySet<string> | 'all';
}
