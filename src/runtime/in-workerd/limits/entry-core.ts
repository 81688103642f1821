/**
 * The entry module's work (`__stratus_limits_entry__.mjs`; entry-module.ts and entry-service-worker.ts are its two
 * forms): each request's handler runs inside that request's counters (the setup module's `requests`), with its
 * bucket bindings counted; the request's pass-through nonce is taken off before the script sees it and kept here;
 * the edge's `CF-Ray` is set on the script's response when its headers may change, which spares the supervisor a
 * copy; and a request body the script did not read is read before answering.
 *
 * Passing a request on (to the origin, when no listener answered or the script threw after
 * `passThroughOnException()`): the entry answers with a response marked with the request's nonce
 * (`passAnswer`), which only the supervisor that made the nonce recognises. On the fast path (nginx straight to
 * the version's socket, no supervisor, hence no nonce) the entry renders the supervisor's 1101 page itself.
 */
import { pageAnswer, passAnswer, rayOf, requests, takeNonce, unreadBody, withCountedBuckets } from 'stratus:limits-setup';
import { PASS_DETAIL } from '../error-answer.js';
import { RECORD_HEADER } from '../headers.js';
import type { FetchListener } from './dispatch.js';
import { NO_RESPOND_WITH, type PassState } from './pass-state.js';

/** A Service Worker script's listeners and the dispatch of a request to them (dispatch.ts). */
export interface ServiceWorkerListeners {
  listeners: FetchListener[];
  dispatch(listeners: FetchListener[], request: Request, ctx: ExecutionContext, pass: PassState): Promise<unknown>;
}

type Handler = (request: Request) => unknown;
/** The Response constructor as it was before any module of the script ran. */
const ResponseCtor = Response;
type ScriptFetch = (request: Request, env: unknown, ctx: ExecutionContext) => unknown;
type EntrypointClass = (new (ctx: ExecutionContext, env: unknown) => { ctx: ExecutionContext; fetch?: Handler }) & { prototype: { fetch?: Handler } };

const fresh = () => ({ fetch: 0, bucket: 0 });

/**
 * The answer that sends the request on to what the hostname serves without the script (the supervisor does it):
 * marked with the request's nonce, carrying the request's body when the script left it unread.
 */
function passOn(request: Request, reason: string, nonce: string | null): Response {
  const body = unreadBody(request);
  if (nonce === null) return fastPassOn(request, body === undefined ? 'body-used' : reason);
  return passAnswer(body === undefined ? null : body, nonce, body === undefined ? 'body-used' : reason);
}

// The fast path (nginx straight to this version's socket, no supervisor, hence no nonce): it carries only
// requests of hostnames with nothing behind the script (edge-runtime's fast routes), so a request passed on gets
// the supervisor's 1101 page, and a script that throws the supervisor's 1101 page too, rendered here.
function fastPassOn(request: Request, reason: string): Response {
  return pageAnswer(500, 1101, 'Worker threw exception', PASS_DETAIL[reason] || PASS_DETAIL['no-respond-with']!, rayOf(request));
}
function threwPage(request: Request, err: unknown): Response {
  console.error('script threw: ' + ((err && (err as Error).stack) || err));
  return pageAnswer(500, 1101, 'Worker threw exception', 'The script threw an exception while handling the request.', rayOf(request));
}

/** The ctx a script gets: its passThroughOnException() sets the request's pass-through state. */
function passingCtx(ctx: ExecutionContext, pass: PassState): ExecutionContext {
  return ctx && new Proxy(ctx, {
    get(target, prop) {
      if (prop === 'passThroughOnException') return () => { pass.onException = true; };
      const value = Reflect.get(target, prop) as unknown;
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
async function stamped(request: Request, ctx: ExecutionContext, answer: unknown, pass: PassState, nonce: string | null, record: string | null): Promise<unknown> {
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
  // on the fast path (no nonce) nginx sets the answer's cf-ray itself (fast location: proxy_hide_header, add_header)
  const ray = nonce === null ? null : request.headers.get('cf-ray');
  if (ray !== null && res instanceof Response) {
    try {
      res.headers.set('cf-ray', ray);
      if (record !== null) res.headers.set(RECORD_HEADER, record);
    } catch { /* immutable headers (a fetch() result): the supervisor copies it */ }
  }
  return res;
}

/** Runs one request through a handler (call(request)), the nonce taken off first and kept here: its answer, or a promise of it. */
function handle(request: Request, ctx: ExecutionContext, pass: PassState, call: Handler): unknown {
  const taken = takeNonce(request);
  const inner = taken.request;
  if (taken.nonce !== null) return stamped(inner, ctx, requests.run(fresh(), () => call(inner)), pass, taken.nonce, taken.record);
  // the fast path: what the supervisor does with an exception is done here
  let answer;
  try { answer = requests.run(fresh(), () => call(inner)); } catch (err) { return Promise.resolve(threwPage(inner, err)); }
  // a Response made at once, for a request without a body: nothing for stamped() to do (no body to drain, no
  // pass-on, the ray nginx's), so no promise or await per request
  if (answer instanceof ResponseCtor && unreadBody(inner) === null) return answer as Response;
  return stamped(inner, ctx, answer, pass, null, null).catch((err) => threwPage(inner, err));
}

const PASS = Symbol('pass-through');

/**
 * The entry's default export for the script's `base` default export: a Service Worker's listeners (when it added
 * any), a `WorkerEntrypoint`-style class, or an object with `fetch`, each wrapped; anything else as it is.
 */
export function entryOf(base: unknown, serviceWorker?: ServiceWorkerListeners): unknown {
  let entry = base;
  if (serviceWorker && serviceWorker.listeners.length > 0) {
    const { listeners, dispatch } = serviceWorker;
    entry = { fetch(request: Request, env: unknown, ctx: ExecutionContext) { const pass = { onException: false }; return handle(request, ctx, pass, (r) => dispatch(listeners, r, ctx, pass)); } };
  } else if (typeof base === 'function') {
    const Base = base as EntrypointClass;
    const Wrapped = entry = class extends Base {
      constructor(ctx: ExecutionContext, env: unknown) {
        const pass = { onException: false };
        super(passingCtx(ctx, pass), withCountedBuckets(env));
        (this as unknown as Record<symbol, PassState>)[PASS] = pass;
        // a fetch defined as an instance field shadows the prototype's wrapper: wrapped here
        const own = Object.getOwnPropertyDescriptor(this, 'fetch');
        if (own && typeof own.value === 'function') this.fetch = (request: Request) => handle(request, this.ctx, pass, (r) => own.value.call(this, r));
      }
    };
    if (typeof Base.prototype.fetch === 'function') {
      Wrapped.prototype.fetch = function (this: InstanceType<EntrypointClass>, request: Request) { return handle(request, this.ctx, (this as unknown as Record<symbol, PassState>)[PASS]!, (r) => Base.prototype.fetch!.call(this, r)); };
    }
  } else if (base && typeof (base as { fetch?: unknown }).fetch === 'function') {
    const handlers = base as { fetch: ScriptFetch };
    entry = { ...handlers, fetch(request: Request, env: unknown, ctx: ExecutionContext) { const pass = { onException: false }; return handle(request, ctx, pass, (r) => handlers.fetch.call(handlers, r, withCountedBuckets(env), passingCtx(ctx, pass))); } };
  }
  return entry;
}
