/**
 * Per-request subrequest limits, as production counts them (developers.cloudflare.com/workers/platform/limits/
 * #subrequests): every `fetch()` a script makes while handling a request counts against the external limit
 * (50 on the free plan), and every operation of a bucket binding against the limit of calls to the platform's
 * own services (1,000 on the free plan). Past a limit the call fails with production's exception,
 * `Error: Too many subrequests.`, and the calls within it work.
 *
 * workerd has no such limit, so each script version gets two extra modules in front of its own:
 * - a setup module, evaluated before the script's modules, that replaces the global `fetch` with a counting one
 *   (a script that keeps a reference to `fetch` at load time gets the counting one too);
 * - the entry module, which re-exports the script and runs each request's handler inside an
 *   `AsyncLocalStorage` context holding that request's counters (so concurrent requests of one script never
 *   share a budget, and work the request starts with `ctx.waitUntil` counts against it, as in production), with
 *   its bucket bindings wrapped to count each operation.
 * The entry also sets the edge's `CF-Ray` on the script's response when its headers may change, which spares
 * the supervisor a copy of the response, and reads a request body the script did not read before answering.
 * `AsyncLocalStorage` needs workerd's `nodejs_als` flag, added when the script has neither it nor `nodejs_compat`.
 */

/** The limits per request (0: none). */
export interface SubrequestLimits {
  /** `fetch()` calls. */
  fetch: number;
  /** Bucket binding operations. */
  bucket: number;
}

/** Names of the two modules; chosen so they cannot be mistaken for a script's own. */
export const LIMITS_SETUP_MODULE = '__stratus_limits_setup__.mjs';
export const LIMITS_ENTRY_MODULE = '__stratus_limits_entry__.mjs';

const SETUP = String.raw`
import { AsyncLocalStorage } from 'node:async_hooks';
export const requests = new AsyncLocalStorage();
const LIMITS = __LIMITS__;
/** Counts one call of kind ('fetch' or 'bucket') for the request in progress; an Error past the limit. */
export function over(kind) {
  const counts = requests.getStore();
  if (counts === undefined || !LIMITS[kind]) return undefined;
  counts[kind] += 1;
  return counts[kind] > LIMITS[kind] ? new Error('Too many subrequests.') : undefined;
}
const realFetch = globalThis.fetch;
globalThis.fetch = function fetch(input, init) {
  const error = over('fetch');
  return error ? Promise.reject(error) : realFetch(input, init);
};
`;

/** The setup module when both limits are off: nothing is counted, no AsyncLocalStorage, no extra flag. */
const SETUP_NONE = String.raw`
export const requests = { run: (_counts, f) => f() };
export function over() { return undefined; }
`;

const ENTRY = String.raw`
import { requests, over } from './${LIMITS_SETUP_MODULE}';
import * as script from __MAIN__;
export * from __MAIN__;
const BUCKETS = __BUCKETS__;
const fresh = () => ({ fetch: 0, bucket: 0 });

function counting(target, wrapResult) {
  return new Proxy(target, {
    get(t, prop) {
      const value = Reflect.get(t, prop);
      if (typeof value !== 'function') return value;
      return function (...args) {
        if (prop === 'resumeMultipartUpload') return upload(value.apply(t, args)); // no call of its own
        const error = over('bucket');
        if (error) return Promise.reject(error);
        const result = value.apply(t, args);
        return wrapResult && prop === 'createMultipartUpload' ? result.then(upload) : result;
      };
    },
  });
}
const upload = (u) => counting(u, false);
const wrapped = new WeakMap();
function withCountedBuckets(env) {
  if (BUCKETS.length === 0 || env === null || typeof env !== 'object') return env;
  let out = wrapped.get(env);
  if (!out) {
    out = { ...env };
    for (const name of BUCKETS) if (env[name]) out[name] = counting(env[name], true);
    wrapped.set(env, out);
  }
  return out;
}

/**
 * The edge's ray id on the script's response, when its headers may change (the supervisor copies it otherwise);
 * and a request body the script left unread is read to its end before the answer goes out (workerd drops a
 * connection whose body was not read, which cut the answer short on its way to the client).
 */
async function stamped(request, ctx, answer) {
  const res = await answer;
  if (request.body !== null && !request.bodyUsed && !request.body.locked) {
    await request.body.pipeTo(new WritableStream()).catch(() => undefined);
  }
  const ray = request.headers.get('cf-ray');
  if (ray !== null && res instanceof Response) {
    try { res.headers.set('cf-ray', ray); } catch { /* immutable headers (a fetch() result): the supervisor copies it */ }
  }
  return res;
}

const base = script.default;
let entry = base;
if (typeof base === 'function') {
  entry = class extends base {
    constructor(ctx, env) { super(ctx, withCountedBuckets(env)); }
  };
  if (typeof base.prototype.fetch === 'function') {
    entry.prototype.fetch = function (request) { return stamped(request, this.ctx, requests.run(fresh(), () => base.prototype.fetch.call(this, request))); };
  }
} else if (base && typeof base.fetch === 'function') {
  entry = { ...base, fetch(request, env, ctx) { return stamped(request, ctx, requests.run(fresh(), () => base.fetch.call(base, request, withCountedBuckets(env), ctx))); } };
}
export default entry;
`;

/** The two modules for one script version, and the compatibility flags it runs with. */
export function limitModules(mainModule: string, bucketBindings: string[], limits: SubrequestLimits, flags: string[]): { setup: string; entry: string; flags: string[] } {
  const specifier = JSON.stringify(`./${mainModule}`);
  if (limits.fetch <= 0 && limits.bucket <= 0) {
    return { setup: SETUP_NONE, entry: ENTRY.replaceAll('__MAIN__', specifier).replace('__BUCKETS__', '[]'), flags };
  }
  if (limits.bucket <= 0) bucketBindings = [];
  return {
    setup: SETUP.replace('__LIMITS__', JSON.stringify({ fetch: limits.fetch, bucket: limits.bucket })),
    entry: ENTRY.replaceAll('__MAIN__', specifier).replace('__BUCKETS__', JSON.stringify(bucketBindings)),
    flags: flags.includes('nodejs_compat') || flags.includes('nodejs_als') ? flags : [...flags, 'nodejs_als'],
  };
}

/** Whether a version gets the entry modules: its main module is an ES module (whatever the limits). */
export function limitsApply(mainModuleType: string | undefined): boolean {
  return mainModuleType === 'esm';
}
