/**
 * The front worker's source: the first hop of every edge request, in its own workerd process that runs no
 * tenant code and lives as long as the runtime. It holds the client's connection and forwards the request to
 * the runtime slot serving it (`runtime-slot.ts`) over that slot's Unix socket: the slot of the account whose
 * script the request runs, or the shared slot 0 for everything else. Which slot is Node's answer (`/route` of
 * the control service), cached per scheme + Host + path like the supervisor's route cache and dropped on every
 * catalog change. So a slot stalled by a looping script holds up only its own requests, and when a generation
 * is killed (a script over the memory or CPU limit, or a crash), the requests in flight on it get production's
 * 1102 page (503) here instead of a dropped connection, and new requests wait in the slot socket's backlog
 * until the replacement accepts.
 *
 * It also enforces the request body limit on the stream: a `Content-Length` over the limit is refused at once,
 * and a chunked body is counted as it passes; past the limit the request to the generation is aborted (its
 * connection dropped before the chunked body's last chunk, so the script sees its body fail, never a clean
 * end) and the client gets production's 413.
 */
import { errorPage } from '../../edge/error-page.js';
import { clientAddress, newRayId } from '../../edge/forwarding.js';
import { closingAnswer, framingFault } from '../../edge/framing.js';

const MAIN = String.raw`
const INTERNAL = 'x-stratus-internal';
const RETRY_WITHIN_MS = 100;
const ROUTE_LIMIT = 10000;

// scheme + host + path -> { slot, expires }: which runtime slot serves a request (Node decides, on a miss).
const routes = new Map();
// A cached answer is returned as it is (no promise to wait for on the hot path).
function slotOf(request, env) {
  if (!CONFIG.routed) return 0;
  const host = (request.headers.get('host') || '').toLowerCase().replace(/:\d+$/, '').replace(/^\[|\]$/g, '');
  if (!host) return 0;
  const url = request.url;
  const start = url.indexOf('/', url.indexOf('//') + 2);
  const query = start < 0 ? -1 : url.indexOf('?', start);
  const path = start < 0 ? '/' : query < 0 ? url.slice(start) : url.slice(start, query);
  // The HTTPS listener vouches for the scheme with the secret (the supervisor reads the same headers).
  const scheme = request.headers.get('x-stratus-scheme') === 'https' && request.headers.get('x-stratus-front') === CONFIG.secret ? 'https' : 'http';
  const key = scheme + ' ' + host + ' ' + path;
  const hit = routes.get(key);
  if (hit && hit.expires > Date.now()) return hit.slot;
  return lookUp(env, key, host, path, scheme);
}
async function lookUp(env, key, host, path, scheme) {
  try {
    const res = await env.CONTROL.fetch('http://control/route', { headers: { 'x-host': host, 'x-path': path, 'x-scheme': scheme } });
    if (!res.ok) { await res.arrayBuffer(); return 0; }
    const slot = (await res.json()).slot;
    if (routes.size >= ROUTE_LIMIT) routes.delete(routes.keys().next().value);
    routes.set(key, { slot, expires: Date.now() + CONFIG.cacheMs });
    return slot;
  } catch (err) {
    // The shared slot answers it (its supervisor asks the catalog itself, and shows the 1000 page if that fails).
    console.error('route lookup failed: ' + (err && err.message));
    return 0;
  }
}

function page(status, code, title, detail, ray) {
  return new Response(errorPage(status, code, title, detail, ray), {
    status, headers: { 'content-type': 'text/html; charset=UTF-8', 'cf-ray': ray, 'cache-control': 'private, max-age=0, no-store, no-cache, must-revalidate' },
  });
}

// Access records of the answers this worker gives itself, sent to Node's control service in batches (the same
// path and shape as the generations' supervisor reports; the generations report every other request).
const reports = [];
let reportingSince = 0;
function report(ctx, env, request, started, status, route, ray, bytesOut) {
  if (reports.length < 10000) {
    reports.push({ method: request.method, route, status, ms: Date.now() - started, requestId: ray,
      bytesIn: Number(request.headers.get('content-length')) || 0, bytesOut, remote: clientAddress(request.cf && request.cf.clientIp) });
  }
  if (reportingSince && Date.now() - reportingSince < 10000) return;
  reportingSince = Date.now();
  ctx.waitUntil(sendReports(env));
}
async function sendReports(env) {
  try {
    while (reports.length > 0) {
      const res = await env.CONTROL.fetch('http://control/access', { method: 'POST', body: JSON.stringify(reports.splice(0, 500)) });
      await res.arrayBuffer();
    }
  } catch (err) {
    console.error('access report failed: ' + (err && err.message));
  } finally {
    reportingSince = 0;
  }
}

/** The front's own answer: an error page, reported to the access log under its route label. */
function answer(ctx, env, request, started, route, status, code, title, detail) {
  const ray = newRayId(CONFIG.colo);
  report(ctx, env, request, started, status, route, ray, new TextEncoder().encode(errorPage(status, code, title, detail, ray)).byteLength);
  return page(status, code, title, detail, ray);
}
/** A request whose framing is ambiguous (edge/framing.ts): production's page with status 400, then the connection closed (RFC 9112 §6.1). */
function badFraming(ctx, env, request, started, fault) {
  const ray = newRayId(CONFIG.colo);
  report(ctx, env, request, started, 400, 'refused', ray);
  return closingAnswer(errorPage(400, 400, 'Bad request', 'The request framing is ambiguous: ' + fault + ' (RFC 9112).', ray), 400,
    { 'content-type': 'text/html; charset=UTF-8', 'cf-ray': ray, 'cache-control': 'private, max-age=0, no-store, no-cache, must-revalidate' }, (p) => ctx.waitUntil(p));
}

const tooLarge = (ctx, env, request, started) => answer(ctx, env, request, started, 'refused', 413, 413, 'Request entity too large', 'The request body exceeds the size this zone accepts.');

/**
 * The body counted as it streams. Past the limit, state.over is set and the request to the generation is
 * aborted (its connection dropped mid-body), so the script's body read fails; erroring the stream instead
 * can reach the generation as a clean end of a shorter body.
 */
function counted(body, state, abort) {
  let seen = 0;
  return body.pipeThrough(new TransformStream({
    transform(chunk, controller) {
      if (state.over) return;
      seen += chunk.byteLength;
      if (seen > CONFIG.maxRequestBytes) {
        state.over = true;
        abort.abort();
        return;
      }
      controller.enqueue(chunk);
    },
  }));
}

export default {
  async fetch(request, env, ctx) {
    if (request.headers.get(INTERNAL) === CONFIG.secret) {
      const op = request.headers.get('x-stratus-op');
      if (op === 'ping') return new Response('pong');
      if (op === 'flush') { routes.clear(); return new Response('flushed'); }
    }
    const started = Date.now();
    const fault = framingFault(request.headers);
    if (fault) return badFraming(ctx, env, request, started, fault);
    const declared = request.headers.get('content-length');
    if (declared !== null && Number(declared) > CONFIG.maxRequestBytes) return tooLarge(ctx, env, request, started);
    const state = { over: false };
    let forward = request;
    let init;
    if (declared === null && request.body) {
      const abort = new AbortController();
      forward = new Request(request, { body: counted(request.body, state, abort) });
      init = { signal: abort.signal };
    }
    let index = slotOf(request, env);
    if (typeof index !== 'number') index = await index;
    const slot = env['SLOT' + index] || env.SLOT0;
    try {
      const res = await slot.fetch(forward, init);
      return state.over ? tooLarge(ctx, env, request, started) : res;
    } catch (err) {
      if (state.over) return tooLarge(ctx, env, request, started);
      // A pooled connection the generation had just closed (it drained after a deploy, or dropped a connection
      // whose request body a script left unread) fails at once; a request without a body is sent again, once.
      // One that failed later may have been running when its generation was killed: never repeated.
      if (!request.body && Date.now() - started < RETRY_WITHIN_MS) {
        try { return await slot.fetch(request); } catch { /* the page below */ }
      }
      console.error('request lost with its generation: ' + (err && err.message));
      // The generation went away with this request in flight: it was killed over a limit, or crashed.
      return answer(ctx, env, request, started, 'lost', 503, 1102, 'Worker exceeded resource limits', 'The script runtime serving this request exceeded its resource limits and was restarted.');
    }
  },
};
`;

/** The front module's source text (an ES module importing its settings from `config.json`). */
export function frontSource(): string {
  return [
    "import CONFIG from './config.json';",
    `const errorPage = ${errorPage.toString()};`,
    `const newRayId = ${newRayId.toString()};`,
    `const clientAddress = ${clientAddress.toString()};`,
    `const framingFault = ${framingFault.toString()};`,
    `const closingAnswer = ${closingAnswer.toString()};`,
    MAIN,
  ].join('\n');
}

/** Settings of the front worker (its `config.json`). */
export interface FrontConfig {
  /** Shared secret of the ping the watchdog sends. */
  secret: string;
  /** Largest request body accepted (bytes). */
  maxRequestBytes: number;
  /** The ray id's location suffix. */
  colo: string;
  /** Requests go to their account's runtime slot (asked of Node, cached); false: every request to slot 0. */
  routed: boolean;
  /** How long a route answer is reused without a change notice (ms). */
  cacheMs: number;
}
