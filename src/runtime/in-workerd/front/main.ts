/**
 * The front worker: the first hop of every edge request, in its own workerd process that runs no tenant code and
 * lives as long as the runtime. It holds the client's connection and forwards the request to the runtime slot
 * serving it (`runtime-slot.ts`) over that slot's Unix socket: the slot of the account whose script the request
 * runs, or the shared slot 0 for everything else (slots.ts). So a slot stalled by a looping script holds up only
 * its own requests, and when a generation is killed (a script over the memory or CPU limit, or a crash), the
 * requests in flight on it get production's 1102 page (503) here instead of a dropped connection, and new
 * requests wait in the slot socket's backlog until the replacement accepts.
 *
 * It also enforces the request body limit on the stream: a `Content-Length` over the limit is refused at once,
 * and a chunked body is counted as it passes (body-limit.ts); past the limit the request to the generation is
 * aborted (its connection dropped before the chunked body's last chunk, so the script sees its body fail, never a
 * clean end) and the client gets production's 413. Its settings are its `config.json` module (config.ts).
 */
import CONFIG from 'stratus:front-config';
import { errorPage } from '../../../edge/error-page.js';
import { newRayId } from '../../../edge/forwarding.js';
import { closingAnswer, framingFault } from '../../../edge/framing.js';
import { INTERNAL_HEADER as INTERNAL } from '../headers.js';
import { errorPageHeaders, page } from '../error-answer.js';
import { counted } from './body-limit.js';
import type { FrontEnv } from './types.js';
import { report } from './reports.js';
import { flushSlots, slotOf } from './slots.js';

const RETRY_WITHIN_MS = 100;

/** The front's own answer: an error page, reported to the access log under its route label. */
function answer(ctx: ExecutionContext, env: FrontEnv, request: Request, started: number, route: string, status: number, code: number, title: string, detail: string): Response {
  const ray = newRayId(CONFIG.colo);
  report(ctx, env, request, started, status, route, ray, new TextEncoder().encode(errorPage(status, code, title, detail, ray)).byteLength);
  return page(status, code, title, detail, ray);
}
/** A request whose framing is ambiguous (edge/framing.ts): production's page with status 400, then the connection closed (RFC 9112 §6.1). */
function badFraming(ctx: ExecutionContext, env: FrontEnv, request: Request, started: number, fault: string): Response {
  const ray = newRayId(CONFIG.colo);
  report(ctx, env, request, started, 400, 'refused', ray);
  return closingAnswer(errorPage(400, 400, 'Bad request', 'The request framing is ambiguous: ' + fault + ' (RFC 9112).', ray), 400,
    errorPageHeaders(ray), (p) => ctx.waitUntil(p));
}

const tooLarge = (ctx: ExecutionContext, env: FrontEnv, request: Request, started: number) => answer(ctx, env, request, started, 'refused', 413, 413, 'Request entity too large', 'The request body exceeds the size this zone accepts.');

export default {
  async fetch(request, env, ctx) {
    if (request.headers.get(INTERNAL) === CONFIG.secret) {
      const op = request.headers.get('x-stratus-op');
      if (op === 'ping') return new Response('pong');
      if (op === 'flush') { flushSlots(); return new Response('flushed'); }
    }
    const started = Date.now();
    const fault = framingFault(request.headers);
    if (fault) return badFraming(ctx, env, request, started, fault);
    const declared = request.headers.get('content-length');
    if (declared !== null && Number(declared) > CONFIG.maxRequestBytes) return tooLarge(ctx, env, request, started);
    const state = { over: false };
    let forward = request;
    let init: RequestInit | undefined;
    if (declared === null && request.body) {
      const abort = new AbortController();
      forward = new Request(request, { body: counted(request.body, CONFIG.maxRequestBytes, state, abort) });
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
      console.error('request lost with its generation: ' + (err && (err as Error).message));
      // The generation went away with this request in flight: it was killed over a limit, or crashed.
      return answer(ctx, env, request, started, 'lost', 503, 1102, 'Worker exceeded resource limits', 'The script runtime serving this request exceeded its resource limits and was restarted.');
    }
  },
} satisfies ExportedHandler<FrontEnv>;
