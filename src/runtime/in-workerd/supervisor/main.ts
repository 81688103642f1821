/**
 * The supervisor worker: the entry of every request on the edge socket (or from the front), inside workerd. It
 * routes by Host and path (answers of the control service in Node, cached per generation and flushed on change:
 * routes.ts), runs the script version's static worker through its service binding, hands requests for versions
 * this generation does not have to the generation that does (run-script.ts), sends origin traffic to Node's
 * origin proxy (upstreams.ts), and renders production's error pages. Its settings are the generation's
 * `config.json` module (config.ts).
 */
import CONFIG from 'stratus:supervisor-config';
import { errorPage } from '../../../edge/error-page.js';
import { clientAddress, fastFallbackRay, forwardingHeaders, newRayId } from '../../../edge/forwarding.js';
import { closingAnswer, framingFault } from '../../../edge/framing.js';
import { INTERNAL_HEADER as INTERNAL, RECORD_HEADER as RECORD } from '../headers.js';
import { cfClientIp } from '../cf.js';
import { errorPageHeaders, page } from '../error-answer.js';
import type { SupervisorEnv, Target } from './types.js';
import { frontFacts } from './front-facts.js';
import { internal } from './internal.js';
import { withRecord } from './answer-copy.js';
import { recordText, type Seen } from './record.js';
import { pathOf, report } from './reports.js';
import { resolve } from './routes.js';
import { runScript } from './run-script.js';
import { toBucket, toOrigin } from './upstreams.js';

// Production's pages for hostnames the edge does not serve: status -> [error code, title].
const UNKNOWN_PAGES: Record<number, [number, string]> = { 530: [1001, 'DNS resolution error'], 403: [1003, 'Direct IP access not allowed'], 409: [1014, 'CNAME Cross-User Banned'], 404: [1001, 'DNS resolution error'] };

async function serve(original: Request, env: SupervisorEnv, ray: string, seen: Seen): Promise<Response> {
  const front = frontFacts(original, CONFIG.secret, seen.fastFallback === true);
  const request = front.request || original;
  seen.front = front;
  const url = new URL(request.url);
  const host = (request.headers.get('host') || '').toLowerCase().replace(/:\d+$/, '').replace(/^\[|\]$/g, '');
  const length = Number(request.headers.get('content-length') || 0);
  if (length > CONFIG.maxRequestBytes) return page(413, 413, 'Request entity too large', 'The request body exceeds the size this zone accepts.', ray);
  let target: Target;
  try {
    target = host ? await resolve(env, host, url.pathname, front.scheme!) : { kind: 'unknown', status: 400, reason: 'no host' };
  } catch (err) {
    console.error('route lookup failed: ' + (err && (err as Error).message));
    return page(503, 1000, 'Service temporarily unavailable', 'The edge could not look up this hostname.', ray);
  }
  if (target.kind === 'redirect') {
    seen.route = 'redirect';
    return new Response(null, { status: target.status, headers: { location: target.location + url.pathname + url.search, 'cf-ray': ray } });
  }
  const forwarded = forwardingHeaders(request.headers, front.clientIp!, front.scheme!, ray, seen.fastFallback === true);
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
    const seen: Seen = { route: 'unmatched', fastFallback: fastRay !== null };
    const record = (status: number, bytesOut?: number, ms?: number) => report(ctx, env, {
      method: request.method, path: pathOf(request.url), route: seen.route, status, ms, accountId: seen.accountId, requestId: ray,
      bytesIn: Number(request.headers.get('content-length')) || 0, bytesOut,
      remote: request.headers.get('x-stratus-front') === CONFIG.secret ? request.headers.get('x-stratus-client-ip') : clientAddress(cfClientIp(request)),
      scheme: request.headers.get('x-stratus-front') === CONFIG.secret && request.headers.get('x-stratus-scheme') === 'https' ? 'https' : 'http',
    });
    if (CONFIG.recordHeader) {
      const res = await serve(request, env, ray, seen);
      return withRecord(res, recordText(seen, ray, seen.front || {}));
    }
    let res: Response;
    // Without the front process (--edge-front off) this worker is the first to see the request: it refuses
    // ambiguous framing as the front does (edge/framing.ts).
    const fault = framingFault(request.headers);
    if (fault) {
      seen.route = 'refused';
      record(400);
      return closingAnswer(errorPage(400, 400, 'Bad request', 'The request framing is ambiguous: ' + fault + ' (RFC 9112).', ray), 400,
        errorPageHeaders(ray), (p) => ctx.waitUntil(p));
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
    const counter = new TransformStream<Uint8Array, Uint8Array>({
      transform(chunk, controller) { bytes += chunk.byteLength; controller.enqueue(chunk); },
      flush() { return finish(); },
    });
    ctx.waitUntil(res.body.pipeTo(counter.writable).catch(() => finish()));
    return new Response(counter.readable, res);
  },
} satisfies ExportedHandler<SupervisorEnv>;
