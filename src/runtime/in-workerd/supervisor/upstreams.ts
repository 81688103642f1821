/**
 * Requests the supervisor sends past the scripts, to Node (the `ORIGIN` binding): to a zone's origin through the
 * origin proxy, or to a public bucket. Only the catalog names an origin or a bucket: the headers that do are set
 * here, and a client's own are dropped.
 */
import type { BucketTarget, OriginTarget, SupervisorEnv } from './types.js';

/** The request to a public bucket's objects. */
export async function toBucket(request: Request, env: SupervisorEnv, target: BucketTarget, ray: string, forwarded: Headers): Promise<Response> {
  forwarded.delete('x-stratus-origin');
  forwarded.set('x-stratus-bucket', JSON.stringify({ accountId: target.accountId, bucket: target.bucket }));
  forwarded.set('x-stratus-ray', ray);
  return env.ORIGIN.fetch(new Request(request.url, { method: request.method, headers: forwarded, body: request.body, redirect: 'manual' }));
}

/** The request to the zone's origin. */
export async function toOrigin(request: Request, env: SupervisorEnv, target: OriginTarget, ray: string, forwarded: Headers): Promise<Response> {
  forwarded.delete('x-stratus-bucket'); // only the catalog names a bucket
  forwarded.set('x-stratus-origin', target.origin);
  if (target.ssl) forwarded.set('x-stratus-origin-ssl', target.ssl);
  else forwarded.delete('x-stratus-origin-ssl');
  forwarded.set('x-stratus-ray', ray);
  const res = await env.ORIGIN.fetch(new Request(request.url, { method: request.method, headers: forwarded, body: request.body, redirect: 'manual' }));
  return res;
}
