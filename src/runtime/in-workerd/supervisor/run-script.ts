/**
 * Running a script version for a request: through its worker's service binding when this generation has it,
 * else handed to the generation that does (Node starts one: `/ensure`). The version's entry (limits/) marks a
 * request it passes on with the request's nonce; such a request goes on to what the hostname serves without the
 * script, as production does.
 */
import CONFIG from 'stratus:supervisor-config';
import { INTERNAL_HEADER as INTERNAL, PASS_HEADER as PASS, PASS_NONCE_HEADER as PASS_NONCE, PASS_REASON_HEADER as PASS_REASON, RECORD_HEADER as RECORD } from '../headers.js';
import { page, PASS_DETAIL } from '../error-answer.js';
import type { ScriptTarget, SupervisorEnv } from './types.js';
import { copied } from './answer-copy.js';
import { toBucket, toOrigin } from './upstreams.js';

function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  if (!ms) return promise;
  let timer: number | undefined;
  return Promise.race([promise, new Promise<never>((_, reject) => { timer = setTimeout(() => reject(new LimitError()), ms); })]).finally(() => clearTimeout(timer as number));
}
class LimitError extends Error {}

/** The script's answer to the request (or its error page); `forwarded` are the headers for the next hop. */
export async function runScript(request: Request, env: SupervisorEnv, target: ScriptTarget, ray: string, forwarded: Headers): Promise<Response> {
  const binding = CONFIG.versions[target.versionId];
  if (!binding) return handOff(request, env, target, ray, forwarded);
  try {
    // A version with its own CPU limit: Node's watchdog holds the generation to it while the request runs.
    const cpuMs = CONFIG.cpuMs && CONFIG.cpuMs[target.versionId];
    if (cpuMs) await (await env.CONTROL.fetch('http://control/cpu', { method: 'POST', headers: { 'x-ray': ray, 'x-ms': String(cpuMs), 'x-slot': String(CONFIG.slot || 0), 'x-generation': String(CONFIG.generation || 0) } })).arrayBuffer();
    // A fresh nonce per request marks the entry's pass-on answer (limits/): the entry takes it off the request
    // before the script runs, so no script, and no response fetched from elsewhere, can carry it.
    const nonce = crypto.randomUUID();
    forwarded.set(PASS_NONCE, nonce);
    const toScript = new Request(request, { headers: forwarded });
    forwarded.delete(PASS_NONCE);
    const res = await withTimeout(env[binding]!.fetch(toScript), CONFIG.wallMs);
    if (res.headers.get(PASS) === nonce) return passOn(request, env, target, ray, forwarded, res);
    // The version's entry stamps the ray on a response it may change (limits/); copying a response costs more
    // than the rest of this worker's work together, so only one with immutable headers is copied.
    const record = forwarded.get(RECORD);
    if (res.headers.get('cf-ray') === ray && (record === null || res.headers.get(RECORD) === record)) return res;
    const out = copied(res);
    out.headers.set('cf-ray', ray);
    if (record !== null) out.headers.set(RECORD, record);
    return out;
  } catch (err) {
    if (err instanceof LimitError) return page(503, 1102, 'Worker exceeded resource limits', 'The script exceeded its time limit.', ray);
    console.error('script ' + target.scriptName + ' (version ' + target.versionId + ') threw: ' + (errorText(err)));
    return page(500, 1101, 'Worker threw exception', CONFIG.exposeErrors ? String(errorText(err)) : 'The script threw an exception while handling the request.', ray);
  }
}

/** An exception's stack, or the exception itself. */
function errorText(err: unknown): unknown {
  return (err && (err as Error).stack) || err;
}

// Production sends a request its script passed on (no listener called respondWith(), or it threw after
// passThroughOnException()) to the origin as if no Worker existed; without one (a workers-subdomain hostname),
// or when the script had read the body, the client gets the script's error page.
function passOn(request: Request, env: SupervisorEnv, target: ScriptTarget, ray: string, forwarded: Headers, res: Response): Response | Promise<Response> {
  const reason = res.headers.get(PASS_REASON);
  const next = target.passThrough;
  if (!next || reason === 'body-used' || (next.kind !== 'origin' && next.kind !== 'bucket')) {
    return page(500, 1101, 'Worker threw exception', PASS_DETAIL[reason!] || PASS_DETAIL['no-respond-with']!, ray);
  }
  const method = request.method;
  forwarded.delete(RECORD);
  const passed = new Request(request.url, { method, headers: forwarded, body: method === 'GET' || method === 'HEAD' ? null : res.body, redirect: 'manual' });
  return next.kind === 'origin' ? toOrigin(passed, env, next, ray, forwarded) : toBucket(passed, env, next, ray, forwarded);
}

async function handOff(request: Request, env: SupervisorEnv, target: ScriptTarget, ray: string, forwarded: Headers): Promise<Response> {
  const res = await env.CONTROL.fetch('http://control/ensure', { headers: { 'x-version': target.versionId } });
  if (res.status === 404) return page(500, 1101, 'Worker threw exception', 'The script version no longer exists.', ray);
  if (!res.ok) return page(500, 1101, 'Worker threw exception', CONFIG.exposeErrors ? await res.text() : 'The script failed to load.', ray);
  const { port } = await res.json<{ port: number }>();
  const url = new URL(request.url);
  forwarded.set(INTERNAL, CONFIG.secret);
  forwarded.set('x-stratus-op', 'handoff');
  forwarded.set('x-stratus-target', JSON.stringify(target));
  forwarded.set('x-stratus-url', request.url);
  forwarded.set('x-stratus-ray', ray);
  try {
    return await fetch('http://127.0.0.1:' + port + url.pathname + url.search, { method: request.method, headers: forwarded, body: request.body, redirect: 'manual' });
  } catch {
    // The generation serving the version went away with the request in flight (killed over a limit, or crashed).
    return page(503, 1102, 'Worker exceeded resource limits', 'The script runtime serving this request exceeded its resource limits and was restarted.', ray);
  }
}
