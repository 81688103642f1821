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
 *
 * A CommonJS main module (a Service Worker script, what wrangler uploads as `body_part` for a script without ES
 * exports, or a `module.exports = { fetch }` main) cannot be workerd's main module, so it is always loaded behind
 * the entry, with a third module evaluated before it: the version's bindings become globals (counted like env's,
 * as production gives a Service Worker its bindings) and `addEventListener('fetch', …)` listeners are kept; the
 * entry dispatches each request to them as a `fetch` event (`respondWith`, `waitUntil`,
 * `passThroughOnException`), inside the same per-request counters.
 * https://developers.cloudflare.com/workers/reference/migrate-to-module-workers/
 */
import type { ScriptLimits } from '../../edge/types.js';

/** The limits per request (0: none). */
export interface SubrequestLimits {
  /** `fetch()` calls. */
  fetch: number;
  /** Bucket binding operations. */
  bucket: number;
}

/** The limits a version runs with: the node's (`--script-subrequests`, …), lowered by the version's own `limits.subrequests`. */
export function effectiveLimits(node: SubrequestLimits, own: ScriptLimits | undefined): SubrequestLimits {
  const cap = (limit: number): number => {
    if (own?.subrequests === undefined) return limit;
    return limit <= 0 ? own.subrequests : Math.min(limit, own.subrequests);
  };
  return { fetch: cap(node.fetch), bucket: cap(node.bucket) };
}

/** Names of the modules; chosen so they cannot be mistaken for a script's own. */
export const LIMITS_SETUP_MODULE = '__stratus_limits_setup__.mjs';
export const LIMITS_ENTRY_MODULE = '__stratus_limits_entry__.mjs';
export const SERVICE_WORKER_MODULE = '__stratus_service_worker__.mjs';

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
const BUCKETS = __BUCKETS__;
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
/** env with its bucket bindings counting each operation (one copy per env object). */
export function withCountedBuckets(env) {
  if (BUCKETS.length === 0 || env === null || typeof env !== 'object') return env;
  let out = wrapped.get(env);
  if (!out) {
    out = { ...env };
    for (const name of BUCKETS) if (env[name]) out[name] = counting(env[name], true);
    wrapped.set(env, out);
  }
  return out;
}
`;

/** The setup module when both limits are off: nothing is counted, no AsyncLocalStorage, no extra flag. */
const SETUP_NONE = String.raw`
export const requests = { run: (_counts, f) => f() };
export function over() { return undefined; }
export function withCountedBuckets(env) { return env; }
`;

/** Evaluated before a CommonJS main module: bindings as globals, `fetch` listeners kept for the entry. */
const SERVICE_WORKER = String.raw`
import { env } from 'cloudflare:workers';
import { withCountedBuckets } from './${LIMITS_SETUP_MODULE}';
export const listeners = [];
const bound = withCountedBuckets(env);
for (const name of Object.keys(bound)) globalThis[name] = bound[name];
const add = globalThis.addEventListener;
globalThis.addEventListener = function addEventListener(type, listener, options) {
  if (type === 'fetch') { listeners.push(listener); return; }
  return add?.call(globalThis, type, listener, options);
};
`;

/**
 * The entry's dispatch of a request to a Service Worker script's listeners, as a fetch event. When no listener
 * calls `respondWith()`, the request passes on to the origin, as production does.
 */
const DISPATCH = String.raw`
class StratusFetchEvent extends Event {
  constructor(request, ctx, pass, settle) { super('fetch'); this.request = request; this._ctx = ctx; this._pass = pass; this._settle = settle; }
  respondWith(answer) { if (this._answered) throw new Error('respondWith() was already called'); this._answered = true; this._settle(answer); }
  waitUntil(promise) { this._ctx.waitUntil(promise); }
  passThroughOnException() { this._pass.onException = true; }
}
function dispatch(request, ctx, pass) {
  return new Promise((resolve, reject) => {
    const event = new StratusFetchEvent(request, ctx, pass, (answer) => Promise.resolve(answer).then(resolve, reject));
    try { for (const l of listeners) typeof l === 'function' ? l.call(globalThis, event) : l.handleEvent(event); }
    catch (e) { reject(e); return; }
    if (!event._answered) resolve(passOn(request, 'no-respond-with'));
  });
}
`;

const ENTRY = String.raw`
import { requests, withCountedBuckets } from './${LIMITS_SETUP_MODULE}';
__LISTENERS__
import * as script from __MAIN__;
export * from __MAIN__;
const fresh = () => ({ fetch: 0, bucket: 0 });
const PASS_TOKEN = __PASS_TOKEN__;

/**
 * The answer that sends the request on to what the hostname serves without the script (the supervisor does it):
 * marked with this generation's token, carrying the request's body when the script left it unread.
 */
function passOn(request, reason) {
  const unread = request.body === null || (!request.bodyUsed && !request.body.locked);
  return new Response(unread ? request.body : null, { headers: { 'x-stratus-pass': PASS_TOKEN, 'x-stratus-pass-reason': unread ? reason : 'body-used' } });
}

/** The ctx a script gets: its passThroughOnException() sets the request's pass-through state. */
function passingCtx(ctx, pass) {
  return ctx && new Proxy(ctx, {
    get(target, prop) {
      if (prop === 'passThroughOnException') return () => { pass.onException = true; };
      const value = Reflect.get(target, prop);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}

/**
 * The edge's ray id on the script's response, when its headers may change (the supervisor copies it otherwise);
 * and a request body the script left unread is read to its end before the answer goes out (workerd drops a
 * connection whose body was not read, which cut the answer short on its way to the client). A script that threw
 * after passThroughOnException() passes the request on.
 */
async function stamped(request, ctx, answer, pass) {
  let res;
  try {
    res = await answer;
  } catch (err) {
    if (pass.onException) return passOn(request, 'exception');
    throw err;
  }
  if (res instanceof Response && res.headers.get('x-stratus-pass') === PASS_TOKEN) return res; // the body travels in it
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
const PASS = Symbol('pass-through');
let entry = base;
if (typeof dispatch === 'function' && listeners.length > 0) {
  entry = { fetch(request, env, ctx) { const pass = { onException: false }; return stamped(request, ctx, requests.run(fresh(), () => dispatch(request, ctx, pass)), pass); } };
} else if (typeof base === 'function') {
  entry = class extends base {
    constructor(ctx, env) { const pass = { onException: false }; super(passingCtx(ctx, pass), withCountedBuckets(env)); this[PASS] = pass; }
  };
  if (typeof base.prototype.fetch === 'function') {
    entry.prototype.fetch = function (request) { return stamped(request, this.ctx, requests.run(fresh(), () => base.prototype.fetch.call(this, request)), this[PASS]); };
  }
} else if (base && typeof base.fetch === 'function') {
  entry = { ...base, fetch(request, env, ctx) { const pass = { onException: false }; return stamped(request, ctx, requests.run(fresh(), () => base.fetch.call(base, request, withCountedBuckets(env), passingCtx(ctx, pass))), pass); } };
}
export default entry;
`;

/** The modules put in front of one script version's own, by name, and the compatibility flags it runs with. */
export interface LimitModules {
  modules: { name: string; source: string }[];
  flags: string[];
}

/**
 * The modules for one script version (the entry first: workerd runs the first module): `mainType` is its main
 * module's type (`commonjs` adds the Service Worker module), `limits` the effective limits (`effectiveLimits`),
 * `passToken` the generation's mark on an answer that passes the request on (never shown to the script).
 */
export function limitModules(mainModule: string, mainType: string | undefined, bucketBindings: string[], limits: SubrequestLimits, flags: string[], passToken: string): LimitModules {
  const specifier = JSON.stringify(`./${mainModule}`);
  const counting = limits.fetch > 0 || limits.bucket > 0;
  const serviceWorker = mainType === 'commonjs';
  const buckets = counting && limits.bucket > 0 ? bucketBindings : [];
  const entry = ENTRY.replaceAll('__MAIN__', specifier).replace('__PASS_TOKEN__', JSON.stringify(passToken))
    .replace('__LISTENERS__', serviceWorker ? `import { listeners } from './${SERVICE_WORKER_MODULE}';\n${DISPATCH}` : '');
  const modules = [
    { name: LIMITS_ENTRY_MODULE, source: entry },
    { name: LIMITS_SETUP_MODULE, source: counting ? SETUP.replace('__LIMITS__', JSON.stringify(limits)).replace('__BUCKETS__', JSON.stringify(buckets)) : SETUP_NONE },
    ...(serviceWorker ? [{ name: SERVICE_WORKER_MODULE, source: SERVICE_WORKER }] : []),
  ];
  const als = counting && !flags.includes('nodejs_compat') && !flags.includes('nodejs_als');
  return { modules, flags: als ? [...flags, 'nodejs_als'] : flags };
}
