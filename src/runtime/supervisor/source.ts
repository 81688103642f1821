/**
 * The supervisor worker's source: the entry of every request on the edge socket, inside workerd. It routes by
 * Host and path (answers of the control service in Node, cached per generation and flushed on change), runs
 * the script version's static worker through its service binding, hands requests for versions this
 * generation does not have to the generation that does, sends origin traffic to Node's origin proxy, and
 * renders production's error pages. The pure helpers are shared with Node (`edge/forwarding.ts`,
 * `edge/error-page.ts`) and embedded here by their source text.
 */
import { errorPage } from '../../edge/error-page.js';
import { clientAddress, fastFallbackRay, forwardingHeaders, newRayId } from '../../edge/forwarding.js';
import { PASS_HEADER, PASS_NONCE_HEADER, PASS_REASON_HEADER, RECORD_HEADER } from '../workerd/limits-shim.js';
import { closingAnswer, framingFault } from '../../edge/framing.js';

const MAIN = String.raw`
const cache = new Map();
const CACHE_LIMIT = 10000;
const INTERNAL = 'x-stratus-internal';
const PASS_NONCE = '${PASS_NONCE_HEADER}';
const PASS = '${PASS_HEADER}';
const PASS_REASON = '${PASS_REASON_HEADER}';
const RECORD = '${RECORD_HEADER}';
// Production's pages for hostnames the edge does not serve: status -> [error code, title].
const UNKNOWN_PAGES = { 530: [1001, 'DNS resolution error'], 403: [1003, 'Direct IP access not allowed'], 409: [1014, 'CNAME Cross-User Banned'], 404: [1001, 'DNS resolution error'] };

function page(status, code, title, detail, ray) {
  return new Response(errorPage(status, code, title, detail, ray), {
    status, headers: { 'content-type': 'text/html; charset=UTF-8', 'cf-ray': ray, 'cache-control': 'private, max-age=0, no-store, no-cache, must-revalidate' },
  });
}

async function resolve(env, host, path, scheme) {
  const key = scheme + ' ' + host + ' ' + path;
  const hit = cache.get(key);
  if (hit && hit.expires > Date.now()) return hit.target;
  const res = await env.CONTROL.fetch('http://control/resolve', { headers: { 'x-host': host, 'x-path': path, 'x-scheme': scheme } });
  if (!res.ok) throw new Error('control service answered ' + res.status);
  const target = await res.json();
  if (cache.size >= CACHE_LIMIT) cache.delete(cache.keys().next().value);
  cache.set(key, { target, expires: Date.now() + CONFIG.cacheMs });
  return target;
}

function withTimeout(promise, ms) {
  if (!ms) return promise;
  let timer;
  return Promise.race([promise, new Promise((_, reject) => { timer = setTimeout(() => reject(new LimitError()), ms); })]).finally(() => clearTimeout(timer));
}
class LimitError extends Error {}

async function runScript(request, env, target, ray, forwarded) {
  const binding = CONFIG.versions[target.versionId];
  if (!binding) return handOff(request, env, target, ray, forwarded);
  try {
    // A version with its own CPU limit: Node's watchdog holds the generation to it while the request runs.
    const cpuMs = CONFIG.cpuMs && CONFIG.cpuMs[target.versionId];
    if (cpuMs) await (await env.CONTROL.fetch('http://control/cpu', { method: 'POST', headers: { 'x-ray': ray, 'x-ms': String(cpuMs), 'x-slot': String(CONFIG.slot || 0) } })).arrayBuffer();
    // A fresh nonce per request marks the entry's pass-on answer (limits-shim.ts): the entry takes it off the
    // request before the script runs, so no script, and no response fetched from elsewhere, can carry it.
    const nonce = crypto.randomUUID();
    forwarded.set(PASS_NONCE, nonce);
    const toScript = new Request(request, { headers: forwarded });
    forwarded.delete(PASS_NONCE);
    const res = await withTimeout(env[binding].fetch(toScript), CONFIG.wallMs);
    if (res.headers.get(PASS) === nonce) return passOn(request, env, target, ray, forwarded, res);
    // The version's entry stamps the ray on a response it may change (limits-shim.ts); copying a response costs
    // more than the rest of this worker's work together, so only one with immutable headers is copied.
    const record = forwarded.get(RECORD);
    if (res.headers.get('cf-ray') === ray && (record === null || res.headers.get(RECORD) === record)) return res;
    const out = copied(res);
    out.headers.set('cf-ray', ray);
    if (record !== null) out.headers.set(RECORD, record);
    return out;
  } catch (err) {
    if (err instanceof LimitError) return page(503, 1102, 'Worker exceeded resource limits', 'The script exceeded its time limit.', ray);
    console.error('script ' + target.scriptName + ' (version ' + target.versionId + ') threw: ' + (err && err.stack || err));
    return page(500, 1101, 'Worker threw exception', CONFIG.exposeErrors ? String(err && err.stack || err) : 'The script threw an exception while handling the request.', ray);
  }
}

// Production sends a request its script passed on (no listener called respondWith(), or it threw after
// passThroughOnException()) to the origin as if no Worker existed; without one (a workers-subdomain hostname),
// or when the script had read the body, the client gets the script's error page.
const PASS_DETAIL = {
  'no-respond-with': 'No fetch event listener called respondWith(), and this hostname has no origin to pass the request to.',
  exception: 'The script threw after passThroughOnException(), and this hostname has no origin to pass the request to.',
  'body-used': 'The script passed the request on after reading its body, which can no longer be sent to the origin.',
};
function passOn(request, env, target, ray, forwarded, res) {
  const reason = res.headers.get(PASS_REASON);
  const next = target.passThrough;
  if (!next || reason === 'body-used' || (next.kind !== 'origin' && next.kind !== 'bucket')) {
    return page(500, 1101, 'Worker threw exception', PASS_DETAIL[reason] || PASS_DETAIL['no-respond-with'], ray);
  }
  const method = request.method;
  forwarded.delete(RECORD);
  const passed = new Request(request.url, { method, headers: forwarded, body: method === 'GET' || method === 'HEAD' ? null : res.body, redirect: 'manual' });
  return next.kind === 'origin' ? toOrigin(passed, env, next, ray, forwarded) : toBucket(passed, env, next, ray, forwarded);
}

async function handOff(request, env, target, ray, forwarded) {
  const res = await env.CONTROL.fetch('http://control/ensure', { headers: { 'x-version': target.versionId } });
  if (res.status === 404) return page(500, 1101, 'Worker threw exception', 'The script version no longer exists.', ray);
  if (!res.ok) return page(500, 1101, 'Worker threw exception', CONFIG.exposeErrors ? await res.text() : 'The script failed to load.', ray);
  const { port } = await res.json();
  const url = new URL(request.url);
  forwarded.set(INTERNAL, CONFIG.secret);
  forwarded.set('x-stratus-op', 'handoff');
  forwarded.set('x-stratus-target', JSON.stringify(target));
  forwarded.set('x-stratus-url', request.url);
  forwarded.set('x-stratus-ray', ray);
  try {
    return await fetch('http://127.0.0.1:' + port + url.pathname + url.search, { method: request.method, headers: forwarded, body: request.body, redirect: 'manual' });
  } catch (err) {
    // The generation serving the version went away with the request in flight (killed over a limit, or crashed).
    return page(503, 1102, 'Worker exceeded resource limits', 'The script runtime serving this request exceeded its resource limits and was restarted.', ray);
  }
}

async function toBucket(request, env, target, ray, forwarded) {
  forwarded.delete('x-stratus-origin');
  forwarded.set('x-stratus-bucket', JSON.stringify({ accountId: target.accountId, bucket: target.bucket }));
  forwarded.set('x-stratus-ray', ray);
  return env.ORIGIN.fetch(new Request(request.url, { method: request.method, headers: forwarded, body: request.body, redirect: 'manual' }));
}

async function toOrigin(request, env, target, ray, forwarded) {
  forwarded.delete('x-stratus-bucket'); // only the catalog names a bucket
  forwarded.set('x-stratus-origin', target.origin);
  if (target.ssl) forwarded.set('x-stratus-origin-ssl', target.ssl);
  else forwarded.delete('x-stratus-origin-ssl');
  forwarded.set('x-stratus-ray', ray);
  const res = await env.ORIGIN.fetch(new Request(request.url, { method: request.method, headers: forwarded, body: request.body, redirect: 'manual' }));
  return res;
}

async function internal(request, env, ctx) {
  if (request.headers.get(INTERNAL) !== CONFIG.secret) return new Response('forbidden', { status: 403 });
  const op = request.headers.get('x-stratus-op');
  if (op === 'ping') {
    flushReports(ctx, env);
    return new Response('pong');
  }
  if (op === 'drain') {
    draining = true;
    await sendReports(env);
    return new Response('draining');
  }
  if (op === 'flush') { cache.clear(); return new Response('flushed'); }
  if (op === 'handoff') {
    const target = JSON.parse(request.headers.get('x-stratus-target'));
    const ray = request.headers.get('x-stratus-ray');
    const url = request.headers.get('x-stratus-url');
    const headers = new Headers(request.headers);
    for (const h of [INTERNAL, 'x-stratus-op', 'x-stratus-target', 'x-stratus-url', 'x-stratus-ray']) headers.delete(h);
    headers.set('host', new URL(url).host); // the hand-off's own fetch named the internal socket
    const inner = new Request(url, { method: request.method, headers, body: request.body, redirect: 'manual' });
    if (!CONFIG.versions[target.versionId]) return page(500, 1101, 'Worker threw exception', 'The script failed to load.', ray);
    return runScript(inner, env, target, ray, headers);
  }
  return new Response('unknown operation', { status: 400 });
}

// Access records of finished requests, sent to Node's control service in batches (its access log and metrics).
// A quiet edge sends each record at once; a busy one sends a batch once REPORT_BATCH records wait or REPORT_MS
// passed since the last, rather than one report for every few requests (a report costs both processes far more
// than a record). Records left waiting when requests stop are sent on the watchdog's next ping (at most 250 ms
// later). A generation told it is draining (Node stops it next, and workerd does not wait for work left after
// the last answer) sends what it holds before answering that, and each later record before its request's answer.
const REPORT_BATCH = 100;
const REPORT_MS = 50;
function pathOf(url) {
  const start = url.indexOf('/', url.indexOf('//') + 2);
  return start < 0 ? '/' : url.slice(start);
}
const reports = [];
let reportingSince = 0;
let lastReport = 0;
let draining = false;
/** Keeps a record; returns a promise to await before answering when the record must be sent first (draining). */
function report(ctx, env, record) {
  if (reports.length < 10000) reports.push(record);
  if (draining) return sendReports(env);
  if (reports.length < REPORT_BATCH && Date.now() - lastReport < REPORT_MS) return undefined;
  flushReports(ctx, env);
  return undefined;
}
/** Sends the waiting records in the background unless a sender runs; one whose request context went away without finishing is replaced after 10 s. */
function flushReports(ctx, env) {
  if (reports.length === 0 || (reportingSince && Date.now() - reportingSince < 10000)) return;
  reportingSince = Date.now();
  ctx.waitUntil(sendReports(env).finally(() => { reportingSince = 0; }));
}
/** Sends the waiting records; records that arrive meanwhile follow at once only as a full batch (or when draining). */
async function sendReports(env) {
  try {
    do {
      lastReport = Date.now();
      const batch = reports.splice(0, 500);
      if (batch.length === 0) break;
      const res = await env.CONTROL.fetch('http://control/access', { method: 'POST', body: JSON.stringify(batch) });
      await res.arrayBuffer();
    } while (reports.length >= REPORT_BATCH || (draining && reports.length > 0));
  } catch (err) {
    console.error('access report failed: ' + (err && err.message));
  }
}

// The HTTPS edge listener (Node, runtime/https-edge.ts) forwards decrypted requests here with the client's
// address and scheme, vouched for by the secret; from anyone else these headers are dropped.
const FRONT = ['x-stratus-front', 'x-stratus-client-ip', 'x-stratus-scheme'];
function frontFacts(request) {
  const trusted = request.headers.get('x-stratus-front') === CONFIG.secret;
  const facts = trusted
    ? { trusted, scheme: request.headers.get('x-stratus-scheme') === 'https' ? 'https' : 'http', clientIp: request.headers.get('x-stratus-client-ip') || '0.0.0.0' }
    : { trusted, scheme: 'http', clientIp: clientAddress(request.cf && request.cf.clientIp) };
  if (request.headers.has('x-stratus-front') || request.headers.has('x-stratus-scheme') || request.headers.has('x-stratus-client-ip')) {
    const headers = new Headers(request.headers);
    for (const h of FRONT) headers.delete(h);
    // scripts see the URL the client asked for: https:// when it came through the HTTPS listener
    const url = facts.scheme === 'https' ? 'https:' + request.url.slice(request.url.indexOf(':') + 1) : request.url;
    facts.request = new Request(url, { method: request.method, headers, body: request.body, redirect: 'manual' });
  }
  return facts;
}

// Behind the nginx front (CONFIG.recordHeader) nginx writes the access records: what only this worker knows
// travels in the RECORD header of every answer it gives (nginx logs it from the runtime's answer only, and
// removes it from the client's), and nothing is reported to Node.
function recordText(seen, ray, front) {
  const r = { route: seen.route, requestId: ray };
  if (seen.accountId) r.accountId = seen.accountId;
  if (front.trusted) r.remote = front.clientIp;
  return JSON.stringify(r);
}
/** A response whose headers may change (a WebSocket upgrade keeps its socket). */
function copied(res) {
  if (res.webSocket) return new Response(null, { status: res.status, statusText: res.statusText, headers: new Headers(res.headers), webSocket: res.webSocket });
  return new Response(res.body, res);
}
function withRecord(res, text) {
  if (res.headers.get(RECORD) === text) return res;
  try {
    res.headers.set(RECORD, text);
    return res;
  } catch {
    const out = copied(res);
    out.headers.set(RECORD, text);
    return out;
  }
}

async function serve(original, env, ray, seen) {
  const front = frontFacts(original);
  const request = front.request || original;
  seen.front = front;
  const url = new URL(request.url);
  const host = (request.headers.get('host') || '').toLowerCase().replace(/:\d+$/, '').replace(/^\[|\]$/g, '');
  const length = Number(request.headers.get('content-length') || 0);
  if (length > CONFIG.maxRequestBytes) return page(413, 413, 'Request entity too large', 'The request body exceeds the size this zone accepts.', ray);
  let target;
  try {
    target = host ? await resolve(env, host, url.pathname, front.scheme) : { kind: 'unknown', status: 400, reason: 'no host' };
  } catch (err) {
    console.error('route lookup failed: ' + (err && err.message));
    return page(503, 1000, 'Service temporarily unavailable', 'The edge could not look up this hostname.', ray);
  }
  if (target.kind === 'redirect') {
    seen.route = 'redirect';
    return new Response(null, { status: target.status, headers: { location: target.location + url.pathname + url.search, 'cf-ray': ray } });
  }
  const forwarded = forwardingHeaders(request.headers, front.clientIp, front.scheme, ray, seen.fastFallback === true);
  if (target.kind === 'script') {
    seen.route = 'script:' + target.scriptName;
    seen.accountId = target.accountId;
    if (CONFIG.recordHeader) forwarded.set(RECORD, recordText(seen, ray, front));
    return runScript(request, env, target, ray, forwarded);
  }
  if (target.kind === 'origin') {
    seen.route = 'origin';
    return toOrigin(request, env, target, ray, forwarded);
  }
  if (target.kind === 'bucket') {
    seen.route = 'bucket';
    return toBucket(request, env, target, ray, forwarded);
  }
  seen.route = 'unserved';
  const known = UNKNOWN_PAGES[target.status] || [target.status, 'Error'];
  return page(target.status, known[0], known[1], target.reason, ray);
}

export default {
  async fetch(request, env, ctx) {
    if (request.headers.has(INTERNAL)) return internal(request, env, ctx);
    const started = Date.now();
    // A fast request nginx sent here (its version's socket refused it) keeps nginx's ray and forwarding headers.
    const fastRay = fastFallbackRay(request.headers, CONFIG.recordHeader === true);
    const ray = fastRay || newRayId(CONFIG.colo);
    // What the request turned out to be: route label (script:NAME, origin, unserved) and the script's account.
    const seen = { route: 'unmatched', fastFallback: fastRay !== null };
    const record = (status, bytesOut, ms) => report(ctx, env, {
      method: request.method, path: pathOf(request.url), route: seen.route, status, ms, accountId: seen.accountId, requestId: ray,
      bytesIn: Number(request.headers.get('content-length')) || 0, bytesOut,
      remote: request.headers.get('x-stratus-front') === CONFIG.secret ? request.headers.get('x-stratus-client-ip') : clientAddress(request.cf && request.cf.clientIp),
    });
    if (CONFIG.recordHeader) {
      const res = await serve(request, env, ray, seen);
      return withRecord(res, recordText(seen, ray, seen.front || {}));
    }
    let res;
    // Without the front process (--edge-front off) this worker is the first to see the request: it refuses
    // ambiguous framing as the front does (edge/framing.ts).
    const fault = framingFault(request.headers);
    if (fault) {
      seen.route = 'refused';
      record(400);
      return closingAnswer(errorPage(400, 400, 'Bad request', 'The request framing is ambiguous: ' + fault + ' (RFC 9112).', ray), 400,
        { 'content-type': 'text/html; charset=UTF-8', 'cf-ray': ray, 'cache-control': 'private, max-age=0, no-store, no-cache, must-revalidate' }, (p) => ctx.waitUntil(p));
    }
    try {
      res = await serve(request, env, ray, seen);
    } catch (err) {
      record(500, 0, Date.now() - started);
      throw err;
    }
    const length = res.headers.get('content-length');
    if (res.body === null || length !== null || res.webSocket) {
      const sending = record(res.status, res.body === null ? 0 : Number(length) || 0, Date.now() - started);
      if (sending) await sending;
      return res;
    }
    // A streamed body (no Content-Length): its bytes are counted as they pass, and the request is recorded when
    // the body ends (or the client goes away); the time stays that of the headers.
    const ms = Date.now() - started;
    let bytes = 0;
    let recorded = false;
    const finish = () => {
      if (recorded) return undefined;
      recorded = true;
      return record(res.status, bytes, ms);
    };
    const counter = new TransformStream({
      transform(chunk, controller) { bytes += chunk.byteLength; controller.enqueue(chunk); },
      flush() { return finish(); },
    });
    ctx.waitUntil(res.body.pipeTo(counter.writable).catch(() => finish()));
    return new Response(counter.readable, res);
  },
};
`;

/** The supervisor module's source text (an ES module importing its settings from `config.json`). */
export function supervisorSource(): string {
  return [
    "import CONFIG from './config.json';",
    `const errorPage = ${errorPage.toString()};`,
    `const forwardingHeaders = ${forwardingHeaders.toString()};`,
    `const fastFallbackRay = ${fastFallbackRay.toString()};`,
    `const clientAddress = ${clientAddress.toString()};`,
    `const newRayId = ${newRayId.toString()};`,
    `const framingFault = ${framingFault.toString()};`,
    `const closingAnswer = ${closingAnswer.toString()};`,
    MAIN,
  ].join('\n');
}

/** Settings of one generation's supervisor (its `config.json`). */
export interface SupervisorConfig {
  /** Version id -> binding name of its worker in this generation. */
  versions: Record<string, string>;
  /** Shared secret of internal requests (hand-off, ping, flush). */
  secret: string;
  /** How long a route answer is reused without a change notice (ms). */
  cacheMs: number;
  /** Wall-time limit of a script's answer (ms); 0 for none. */
  wallMs: number;
  /** Largest request body accepted (bytes). */
  maxRequestBytes: number;
  /** The ray id's location suffix. */
  colo: string;
  /** Error pages carry the script's exception (`stratus dev`). */
  exposeErrors: boolean;
  /** Version id -> its own CPU limit (ms), for versions whose limit is below the node's (cpu-budgets.ts). */
  cpuMs?: Record<string, number>;
  /** The runtime slot this generation belongs to (runtime-slot.ts), named in its `/cpu` reports. */
  slot?: number;
  /** Behind the nginx front: no access reports; each answer carries its record's fields in `x-stratus-record`. */
  recordHeader?: boolean;
}
