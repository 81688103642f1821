/**
 * Node's own requests to the supervisor, marked with the per-process secret: the watchdog's ping (which also
 * sends waiting access records), drain (before the generation stops), flush (the route cache, after a catalog
 * change), and a request handed off by another generation for a version only this one has.
 */
import CONFIG from 'stratus:supervisor-config';
import { INTERNAL_HEADER as INTERNAL } from '../headers.js';
import { page } from '../error-answer.js';
import type { ScriptTarget, SupervisorEnv } from './types.js';
import { flushReports, sendReports, startDraining } from './reports.js';
import { flushRoutes } from './routes.js';
import { runScript } from './run-script.js';

/** The answer to a request carrying the internal header (403 without the secret). */
export async function internal(request: Request, env: SupervisorEnv, ctx: ExecutionContext): Promise<Response> {
  if (request.headers.get(INTERNAL) !== CONFIG.secret) return new Response('forbidden', { status: 403 });
  const op = request.headers.get('x-stratus-op');
  if (op === 'ping') {
    flushReports(ctx, env);
    return new Response('pong');
  }
  if (op === 'drain') {
    startDraining();
    await sendReports(env);
    return new Response('draining');
  }
  if (op === 'flush') { flushRoutes(); return new Response('flushed'); }
  if (op === 'handoff') {
    const target = JSON.parse(request.headers.get('x-stratus-target')!) as ScriptTarget;
    const ray = request.headers.get('x-stratus-ray')!;
    const url = request.headers.get('x-stratus-url')!;
    const headers = new Headers(request.headers);
    for (const h of [INTERNAL, 'x-stratus-op', 'x-stratus-target', 'x-stratus-url', 'x-stratus-ray']) headers.delete(h);
    headers.set('host', new URL(url).host); // the hand-off's own fetch named the internal socket
    const inner = new Request(url, { method: request.method, headers, body: request.body, redirect: 'manual' });
    if (!CONFIG.versions[target.versionId]) return page(500, 1101, 'Worker threw exception', 'The script failed to load.', ray);
    return runScript(inner, env, target, ray, headers);
  }
  return new Response('unknown operation', { status: 400 });
}
