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
 *
 * Passing a request on (to the origin, when no listener answered or the script threw after
 * `passThroughOnException()`): the supervisor gives each request to a script a fresh random nonce in
 * {@link PASS_NONCE_HEADER}; the entry takes it off the request before the script sees it, and marks its own
 * pass-on answer with it (`x-stratus-pass`). The nonce lives only in the entry's closures for that request, and
 * every built-in the entry touches it with is captured by the setup module, which evaluates before any module
 * of the script (so a script that replaces `Headers.prototype.get`, `Request`, `Object.prototype.then`… never
 * sees it). No module holds a secret: a script that reads the bundle's files or imports these modules finds
 * nothing that makes an answer pass, and a `Response` fetched from elsewhere cannot carry the right nonce.
 */
import type { ScriptLimits } from '../../edge/types.js';
import { errorPage } from '../../edge/error-page.js';

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
/** The request header carrying the supervisor's per-request nonce to the entry (taken off before the script runs). */
export const PASS_NONCE_HEADER = 'x-stratus-pass-nonce';
/** The answer headers of a pass-on: the request's nonce, and why (`no-respond-with`, `exception`, `body-used`). */
export const PASS_HEADER = 'x-stratus-pass';
export const PASS_REASON_HEADER = 'x-stratus-pass-reason';
/**
 * The access record's supervisor-only fields (behind the nginx front, which logs it from the runtime's answer and
 * removes it): the supervisor sends it with the request, the entry takes it off before the script runs and sets
 * it on the script's answer (overwriting one the script set), sparing the supervisor a copy of the answer.
 */
export const RECORD_HEADER = 'x-stratus-record';

/**
 * Part of both setup modules: the built-ins the pass-through mark is handled with, captured before any module of
 * the script evaluates (the setup module is the entry's first import), and the two functions that touch the
 * nonce. Objects handed to built-ins have no prototype, so no getter a script puts on `Object.prototype` runs;
 * the marked answer has its own `then`, so resolving a promise with it looks nothing up. Scripts may import these
 * functions: without the request's nonce they can do nothing a script cannot do itself.
 */
const PASS_GUARD = String.raw`
const uncurry = (f) => Function.prototype.call.bind(f);
const HeadersCtor = Headers;
const RequestCtor = Request;
const ResponseCtor = Response;
const headersGet = uncurry(Headers.prototype.get);
const headersDelete = uncurry(Headers.prototype.delete);
const defineProperty = Object.defineProperty;
/** A getter of Request objects found on the prototype chain now (an instance property on old compatibility dates). */
function getter(proto, name) {
  for (let p = proto; p !== null; p = Object.getPrototypeOf(p)) {
    const d = Object.getOwnPropertyDescriptor(p, name);
    if (d) return d.get ? uncurry(d.get) : (o) => o[name];
  }
  return (o) => o[name];
}
const headersOf = getter(Request.prototype, 'headers');
const bodyOf = getter(Request.prototype, 'body');
const bodyUsedOf = getter(Request.prototype, 'bodyUsed');
const lockedOf = getter(ReadableStream.prototype, 'locked');
/** The request's body when the script left it unread (undefined when it read or locked it). */
export function unreadBody(request) {
  const body = bodyOf(request);
  return body === null || (!bodyUsedOf(request) && !lockedOf(body)) ? body : undefined;
}
/** The request's pass-through nonce (null if none) and the request without it, which is all the script gets. */
export function takeNonce(request) {
  const headers = headersOf(request);
  const nonce = headersGet(headers, '${PASS_NONCE_HEADER}');
  if (nonce === null) return { __proto__: null, nonce: null, record: null, request };
  const record = headersGet(headers, '${RECORD_HEADER}');
  const rest = new HeadersCtor(headers);
  headersDelete(rest, '${PASS_NONCE_HEADER}');
  if (record !== null) headersDelete(rest, '${RECORD_HEADER}');
  return { __proto__: null, nonce, record, request: new RequestCtor(request, { __proto__: null, headers: rest }) };
}
const errorPage = __ERROR_PAGE__;
/** The request's ray id (the edge's cf-ray request header), read with the captured built-ins. */
export function rayOf(request) {
  return headersGet(headersOf(request), 'cf-ray') || '';
}
/** Production's error page as an answer (the entry answers it itself when no supervisor is behind it: the fast path). */
export function pageAnswer(status, code, title, detail, ray) {
  return new ResponseCtor(errorPage(status, code, title, detail, ray), { __proto__: null, status, headers: { __proto__: null,
    'content-type': 'text/html; charset=UTF-8', 'cf-ray': ray, 'cache-control': 'private, max-age=0, no-store, no-cache, must-revalidate' } });
}
/** The answer that tells the supervisor to pass the request on: marked with the request's nonce, carrying its unread body. */
export function passAnswer(body, nonce, reason) {
  if (nonce === null) throw new Error('this request cannot be passed on');
  const res = new ResponseCtor(body, { __proto__: null, headers: { __proto__: null, '${PASS_HEADER}': nonce, '${PASS_REASON_HEADER}': reason } });
  defineProperty(res, 'then', { __proto__: null, value: undefined });
  return res;
}
`;

const SETUP = String.raw`
import { AsyncLocalStorage } from 'node:async_hooks';
__PASS_GUARD__
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
__PASS_GUARD__
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
    if (!event._answered) resolve(NO_RESPOND_WITH);
  });
}
`;

const ENTRY = String.raw`
import { requests, withCountedBuckets, takeNonce, passAnswer, unreadBody, rayOf, pageAnswer } from './${LIMITS_SETUP_MODULE}';
__LISTENERS__
import * as script from __MAIN__;
export * from __MAIN__;
const fresh = () => ({ fetch: 0, bucket: 0 });
/** What a Service Worker dispatch resolves with when no listener answered (no prototype: resolving looks nothing up). */
const NO_RESPOND_WITH = Object.freeze({ __proto__: null });

/**
 * The answer that sends the request on to what the hostname serves without the script (the supervisor does it):
 * marked with the request's nonce, carrying the request's body when the script left it unread.
 */
function passOn(request, reason, nonce) {
  const body = unreadBody(request);
  if (nonce === null) return fastPassOn(request, body === undefined ? 'body-used' : reason);
  return passAnswer(body === undefined ? null : body, nonce, body === undefined ? 'body-used' : reason);
}

// The fast path (nginx straight to this version's socket, no supervisor, hence no nonce): it carries only
// requests of hostnames with nothing behind the script (edge-runtime's fast routes), so a request passed on gets
// the supervisor's 1101 page, and a script that throws the supervisor's 1101 page too, rendered here.
const PASS_DETAIL = {
  'no-respond-with': 'No fetch event listener called respondWith(), and this hostname has no origin to pass the request to.',
  exception: 'The script threw after passThroughOnException(), and this hostname has no origin to pass the request to.',
  'body-used': 'The script passed the request on after reading its body, which can no longer be sent to the origin.',
};
function fastPassOn(request, reason) {
  return pageAnswer(500, 1101, 'Worker threw exception', PASS_DETAIL[reason] || PASS_DETAIL['no-respond-with'], rayOf(request));
}
function threwPage(request, err) {
  console.error('script threw: ' + (err && err.stack || err));
  return pageAnswer(500, 1101, 'Worker threw exception', 'The script threw an exception while handling the request.', rayOf(request));
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
 * after passThroughOnException(), or a Service Worker none of whose listeners answered, passes the request on.
 */
async function stamped(request, ctx, answer, pass, nonce, record) {
  let res;
  try {
    res = await answer;
  } catch (err) {
    if (pass.onException) return passOn(request, 'exception', nonce);
    throw err;
  }
  if (res === NO_RESPOND_WITH) return passOn(request, 'no-respond-with', nonce); // the body travels in it
  const unread = unreadBody(request);
  if (unread) await unread.pipeTo(new WritableStream()).catch(() => undefined);
  const ray = request.headers.get('cf-ray');
  if (ray !== null && res instanceof Response) {
    try {
      res.headers.set('cf-ray', ray);
      if (record !== null) res.headers.set('${RECORD_HEADER}', record);
    } catch { /* immutable headers (a fetch() result): the supervisor copies it */ }
  }
  return res;
}

/** Runs one request through a handler (call(request)), the nonce taken off first and kept here. */
function handle(request, ctx, pass, call) {
  const taken = takeNonce(request);
  const inner = taken.request;
  if (taken.nonce !== null) return stamped(inner, ctx, requests.run(fresh(), () => call(inner)), pass, taken.nonce, taken.record);
  // the fast path: what the supervisor does with an exception is done here
  let answer;
  try { answer = requests.run(fresh(), () => call(inner)); } catch (err) { return Promise.resolve(threwPage(inner, err)); }
  return stamped(inner, ctx, answer, pass, null, null).catch((err) => threwPage(inner, err));
}

const base = script.default;
const PASS = Symbol('pass-through');
let entry = base;
if (typeof dispatch === 'function' && listeners.length > 0) {
  entry = { fetch(request, env, ctx) { const pass = { onException: false }; return handle(request, ctx, pass, (r) => dispatch(r, ctx, pass)); } };
} else if (typeof base === 'function') {
  entry = class extends base {
    constructor(ctx, env) {
      const pass = { onException: false };
      super(passingCtx(ctx, pass), withCountedBuckets(env));
      this[PASS] = pass;
      // a fetch defined as an instance field shadows the prototype's wrapper: wrapped here
      const own = Object.getOwnPropertyDescriptor(this, 'fetch');
      if (own && typeof own.value === 'function') this.fetch = (request) => handle(request, this.ctx, pass, (r) => own.value.call(this, r));
    }
  };
  if (typeof base.prototype.fetch === 'function') {
    entry.prototype.fetch = function (request) { return handle(request, this.ctx, this[PASS], (r) => base.prototype.fetch.call(this, r)); };
  }
} else if (base && typeof base.fetch === 'function') {
  entry = { ...base, fetch(request, env, ctx) { const pass = { onException: false }; return handle(request, ctx, pass, (r) => base.fetch.call(base, r, withCountedBuckets(env), passingCtx(ctx, pass))); } };
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
 * The modules hold no secret (the pass-through mark is a nonce per request, see the module comment).
 */
export function limitModules(mainModule: string, mainType: string | undefined, bucketBindings: string[], limits: SubrequestLimits, flags: string[]): LimitModules {
  const specifier = JSON.stringify(`./${mainModule}`);
  const counting = limits.fetch > 0 || limits.bucket > 0;
  const serviceWorker = mainType === 'commonjs';
  const buckets = counting && limits.bucket > 0 ? bucketBindings : [];
  const entry = ENTRY.replaceAll('__MAIN__', specifier)
    .replace('__LISTENERS__', serviceWorker ? `import { listeners } from './${SERVICE_WORKER_MODULE}';\n${DISPATCH}` : '');
  const modules = [
    { name: LIMITS_ENTRY_MODULE, source: entry },
    { name: LIMITS_SETUP_MODULE, source: (counting ? SETUP.replace('__LIMITS__', JSON.stringify(limits)).replace('__BUCKETS__', JSON.stringify(buckets)) : SETUP_NONE).replace('__PASS_GUARD__', () => PASS_GUARD.replace('__ERROR_PAGE__', () => errorPage.toString())) },
    ...(serviceWorker ? [{ name: SERVICE_WORKER_MODULE, source: SERVICE_WORKER }] : []),
  ];
  const als = counting && !flags.includes('nodejs_compat') && !flags.includes('nodejs_als');
  return { modules, flags: als ? [...flags, 'nodejs_als'] : flags };
}
