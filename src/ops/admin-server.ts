/**
 * The admin listener (`--admin HOST:PORT`, default 127.0.0.1:9464, never one of the public listeners):
 * `GET /healthz` (the process serves: 200 while it runs), `GET /readyz` (readiness.ts: 200, or 503 naming the
 * failing parts), `GET /metrics` (Prometheus text format). It answers only these, takes no credentials and
 * shows no tenant data: operators keep it on a private address (docs/operations.md).
 */
import type { ListenAddress } from '../config/config.js';
import { listenHttp, type HttpListener } from '../http/http-listener.js';
import type { Readiness } from './readiness.js';
import { metricsExposition } from './metrics.js';

const PATHS = ['/healthz', '/readyz', '/metrics'];

/** Starts the admin listener. */
export function startAdminServer(listen: ListenAddress, readiness: Readiness): Promise<HttpListener> {
  return listenHttp((req) => adminResponse(req, readiness), listen);
}

/** The admin listener's answer to one request. */
export async function adminResponse(req: Request, readiness: Readiness): Promise<Response> {
  const path = new URL(req.url).pathname;
  if (!PATHS.includes(path)) return json(404, { error: `no such path; the admin listener serves ${PATHS.join(', ')}` });
  if (req.method !== 'GET' && req.method !== 'HEAD') return json(405, { error: 'only GET and HEAD' }, { allow: 'GET, HEAD' });
  if (path === '/healthz') return json(200, { status: 'ok' });
  if (path === '/readyz') {
    const report = await readiness.evaluate();
    return json(report.ready ? 200 : 503, { status: report.ready ? 'ready' : 'not ready', ...report });
  }
  const { body, contentType } = await metricsExposition();
  return new Response(body, { headers: { 'content-type': contentType, 'cache-control': 'no-store' } });
}

function json(status: number, body: unknown, headers: Record<string, string> = {}): Response {
  return new Response(`${JSON.stringify(body)}\n`, { status, headers: { 'content-type': 'application/json', 'cache-control': 'no-store', ...headers } });
}
