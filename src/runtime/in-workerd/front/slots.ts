/**
 * Which runtime slot serves a request: Node decides on a miss (`/route`), and the answer is cached per scheme +
 * Host + path like the supervisor's route cache, dropped on every catalog change. A cached answer is returned as
 * it is (no promise to wait for on the hot path).
 */
import CONFIG from 'stratus:front-config';
import type { FrontEnv } from './types.js';
import { routeQuery } from './route-query.js';

const ROUTE_LIMIT = 10000;

// scheme + host + path -> { slot, expires }: which runtime slot serves a request (Node decides, on a miss).
const routes = new Map<string, { slot: number; expires: number }>();

/** The slot serving the request (0, the shared slot, when the front is not routed or the request has no Host). */
export function slotOf(request: Request, env: FrontEnv): number | Promise<number> {
  if (!CONFIG.routed) return 0;
  const q = routeQuery(request, CONFIG.secret);
  if (!q) return 0;
  const key = q.scheme + ' ' + q.host + ' ' + q.path;
  const hit = routes.get(key);
  if (hit && hit.expires > Date.now()) return hit.slot;
  return lookUp(env, key, q.host, q.path, q.scheme);
}
async function lookUp(env: FrontEnv, key: string, host: string, path: string, scheme: string): Promise<number> {
  try {
    const res = await env.CONTROL.fetch('http://control/route', { headers: { 'x-host': host, 'x-path': path, 'x-scheme': scheme } });
    if (!res.ok) { await res.arrayBuffer(); return 0; }
    const slot = (await res.json<{ slot: number }>()).slot;
    if (routes.size >= ROUTE_LIMIT) routes.delete(routes.keys().next().value!);
    routes.set(key, { slot, expires: Date.now() + CONFIG.cacheMs });
    return slot;
  } catch (err) {
    // The shared slot answers it (its supervisor asks the catalog itself, and shows the 1000 page if that fails).
    console.error('route lookup failed: ' + (err && (err as Error).message));
    return 0;
  }
}

/** Drops every cached answer (Node's `flush` after a catalog change). */
export function flushSlots(): void {
  routes.clear();
}
