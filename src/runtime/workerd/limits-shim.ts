/**
 * The modules put in front of each script version's own (their code: `runtime/in-workerd/limits/`), chosen and
 * configured per version here.
 *
 * Per-request subrequest limits, as production counts them (developers.cloudflare.com/workers/platform/limits/
 * #subrequests): every `fetch()` a script makes while handling a request counts against the external limit
 * (50 on the free plan), and every operation of a bucket binding against the limit of calls to the platform's
 * own services (1,000 on the free plan). Past a limit the call fails with production's exception,
 * `Error: Too many subrequests.`, and the calls within it work.
 *
 * workerd has no such limit, so each script version gets two extra modules in front of its own (and, when a
 * limit is on, a JSON module of its limits and counted bucket bindings, which the setup module imports):
 * - a setup module, evaluated before the script's modules, that replaces the global `fetch` with a counting one
 *   (a script that keeps a reference to `fetch` at load time gets the counting one too);
 * - the entry module, which re-exports the script and runs each request's handler inside an
 *   `AsyncLocalStorage` context holding that request's counters (so concurrent requests of one script never
 *   share a budget, and work the request starts with `ctx.waitUntil` counts against it, as in production), with
 *   its bucket bindings wrapped to count each operation.
 * The entry also sets the edge's `CF-Ray` on the script's response when its headers may change, which spares
 * the supervisor a copy of the response, and reads a request body the script did not read before answering.
 * `AsyncLocalStorage` needs workerd's `nodejs_als` flag, added when the script has neither it nor `nodejs_compat`.
 *
 * A CommonJS main module (a Service Worker script, what wrangler uploads as `body_part` for a script without ES
 * exports, or a `module.exports = { fetch }` main) cannot be workerd's main module, so it is always loaded behind
 * the entry, with a third module evaluated before it: the version's bindings become globals (counted like env's,
 * as production gives a Service Worker its bindings) and `addEventListener('fetch', …)` listeners are kept; the
 * entry dispatches each request to them as a `fetch` event (`respondWith`, `waitUntil`,
 * `passThroughOnException`), inside the same per-request counters.
 * https://developers.cloudflare.com/workers/reference/migrate-to-module-workers/
 *
 * Passing a request on (to the origin, when no listener answered or the script threw after
 * `passThroughOnException()`): the supervisor gives each request to a script a fresh random nonce in
 * `x-stratus-pass-nonce` (`in-workerd/headers.ts`); the entry takes it off the request before the script sees it, and marks its own
 * pass-on answer with it (`x-stratus-pass`). The nonce lives only in the entry's closures for that request, and
 * every built-in the entry touches it with is captured by the setup module, which evaluates before any module
 * of the script (so a script that replaces `Headers.prototype.get`, `Request`, `Object.prototype.then`… never
 * sees it). No module holds a secret: a script that reads the bundle's files or imports these modules finds
 * nothing that makes an answer pass, and a `Response` fetched from elsewhere cannot carry the right nonce.
 */
import type { ScriptLimits } from '../../edge/types.js';
import type { LimitsConfig, SubrequestLimits } from '../in-workerd/limits/counters.js';
import { LIMITS_CONFIG_MODULE, LIMITS_ENTRY_MODULE, LIMITS_SETUP_MODULE, SERVICE_WORKER_MODULE } from '../in-workerd/module-names.js';
import { withScriptMain, workerSource } from './worker-sources.js';

export type { SubrequestLimits } from '../in-workerd/limits/counters.js';

/** The limits a version runs with: the node's (`--script-subrequests`, …), lowered by the version's own `limits.subrequests`. */
export function effectiveLimits(node: SubrequestLimits, own: ScriptLimits | undefined): SubrequestLimits {
  const cap = (limit: number): number => {
    if (own?.subrequests === undefined) return limit;
    return limit <= 0 ? own.subrequests : Math.min(limit, own.subrequests);
  };
  return { fetch: cap(node.fetch), bucket: cap(node.bucket) };
}

/** One module put in front of a version's own: its name, its kind in workerd's config, and its text. */
export interface LimitModule {
  name: string;
  kind: 'esModule' | 'json';
  source: string;
}

/** The modules put in front of one script version's own, by name, and the compatibility flags it runs with. */
export interface LimitModules {
  modules: LimitModule[];
  flags: string[];
}

/**
 * The modules for one script version (the entry first: workerd runs the first module): `mainType` is its main
 * module's type (`commonjs` adds the Service Worker module), `limits` the effective limits (`effectiveLimits`),
 * counted in the version's limits config module (only when a limit is on: the setup without one counts nothing).
 * The modules hold no secret (the pass-through mark is a nonce per request, see the module comment).
 */
export function limitModules(mainModule: string, mainType: string | undefined, bucketBindings: string[], limits: SubrequestLimits, flags: string[]): LimitModules {
  const counting = limits.fetch > 0 || limits.bucket > 0;
  const serviceWorker = mainType === 'commonjs';
  const buckets = counting && limits.bucket > 0 ? bucketBindings : [];
  const entry = withScriptMain(workerSource(serviceWorker ? 'limits-entry-service-worker' : 'limits-entry'), mainModule);
  const config: LimitsConfig = { limits, buckets };
  const modules: LimitModule[] = [
    { name: LIMITS_ENTRY_MODULE, kind: 'esModule', source: entry },
    { name: LIMITS_SETUP_MODULE, kind: 'esModule', source: workerSource(counting ? 'limits-setup' : 'limits-setup-none') },
    ...(counting ? [{ name: LIMITS_CONFIG_MODULE, kind: 'json' as const, source: JSON.stringify(config) }] : []),
    ...(serviceWorker ? [{ name: SERVICE_WORKER_MODULE, kind: 'esModule' as const, source: workerSource('limits-service-worker') }] : []),
  ];
  const als = counting && !flags.includes('nodejs_compat') && !flags.includes('nodejs_als');
  return { modules, flags: als ? [...flags, 'nodejs_als'] : flags };
}
