/**
 * The supervisor's route cache: Node's control service answers which target serves scheme + Host + path
 * (`/resolve`); answers are reused for `cacheMs`, and all are dropped when Node flushes after a catalog change.
 */
import CONFIG from 'stratus:supervisor-config';
import type { SupervisorEnv, Target } from './types.js';

const cache = new Map<string, { target: Target; expires: number }>();
const CACHE_LIMIT = 10000;

/** The target serving a request (cached answer of the control service). */
export async function resolve(env: SupervisorEnv, host: string, path: string, scheme: string): Promise<Target> {
  const key = scheme + ' ' + host + ' ' + path;
  const hit = cache.get(key);
  if (hit && hit.expires > Date.now()) return hit.target;
  const res = await env.CONTROL.fetch('http://control/resolve', { headers: { 'x-host': host, 'x-path': path, 'x-scheme': scheme } });
  if (!res.ok) throw new Error('control service answered ' + res.status);
  const target = await res.json<Target>();
  if (cache.size >= CACHE_LIMIT) cache.delete(cache.keys().next().value!);
  cache.set(key, { target, expires: Date.now() + CONFIG.cacheMs });
  return target;
}

/** Drops every cached answer (Node's `flush` after a catalog change). */
export function flushRoutes(): void {
  cache.clear();
}
