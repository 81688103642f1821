/**
 * The front worker's source: the first hop of every edge request, in its own workerd process that runs no
 * tenant code and lives as long as the runtime. It holds the client's connection and forwards the request to
 * the live script generation over a Unix socket that every generation accepts on. So when a generation is
 * killed (a script over the memory or CPU limit, or a crash), the requests in flight on it get production's
 * 1102 page (503) here instead of a dropped connection, and new requests wait in the socket's backlog until
 * the replacement accepts.
 *
 * It also enforces the request body limit on the stream: a `Content-Length` over the limit is refused at once,
 * and a chunked body is counted as it passes; past the limit the stream to the generation is cut (the script
 * sees its body fail, never a clean end, because the hop is real HTTP and the chunked framing is never closed)
 * and the client gets production's 413.
 */
import { errorPage } from '../../edge/error-page.js';
import { newRayId } from '../../edge/forwarding.js';

const MAIN = String.raw`
const INTERNAL = 'x-stratus-internal';

function page(status, code, title, detail) {
  const ray = newRayId(CONFIG.colo);
  return new Response(errorPage(status, code, title, detail, ray), {
    status, headers: { 'content-type': 'text/html; charset=UTF-8', 'cf-ray': ray, 'cache-control': 'private, max-age=0, no-store, no-cache, must-revalidate' },
  });
}
const tooLarge = () => page(413, 413, 'Request entity too large', 'The request body exceeds the size this zone accepts.');

/** The body counted as it streams; state.over is set once it passes the limit (the stream then errors). */
function counted(body, state) {
  let seen = 0;
  return body.pipeThrough(new TransformStream({
    transform(chunk, controller) {
      seen += chunk.byteLength;
      if (seen > CONFIG.maxRequestBytes) {
        state.over = true;
        controller.error(new Error('request body over the limit of ' + CONFIG.maxRequestBytes + ' bytes'));
        return;
      }
      controller.enqueue(chunk);
    },
  }));
}

export default {
  async fetch(request, env) {
    if (request.headers.get(INTERNAL) === CONFIG.secret && request.headers.get('x-stratus-op') === 'ping') return new Response('pong');
    const declared = request.headers.get('content-length');
    if (declared !== null && Number(declared) > CONFIG.maxRequestBytes) return tooLarge();
    const state = { over: false };
    let forward = request;
    if (declared === null && request.body) forward = new Request(request, { body: counted(request.body, state) });
    try {
      const res = await env.GENERATION.fetch(forward);
      return state.over ? tooLarge() : res;
    } catch (err) {
      if (state.over) return tooLarge();
      // The generation went away with this request in flight: it was killed over a limit, or crashed.
      return page(503, 1102, 'Worker exceeded resource limits', 'The script runtime serving this request exceeded its resource limits and was restarted.');
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
}
