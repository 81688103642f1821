/**
 * Behind the nginx front (`recordHeader`) nginx writes the access records: what only the supervisor knows
 * travels in the RECORD header of every answer it gives (nginx logs it from the runtime's answer only, and
 * removes it from the client's), and nothing is reported to Node.
 */
import type { FrontFacts } from './front-facts.js';

/** What the request turned out to be: route label (script:NAME, origin, unserved) and the script's account. */
export interface Seen {
  route: string;
  accountId?: string;
  front?: FrontFacts;
  /** A fast request that nginx's backup sent here (its version's socket refused it): nginx's ray and forwarding headers stand. */
  fastFallback?: boolean;
}

/** The record header's value: the route, the ray, the script's account and the client's address and scheme when vouched for. */
export function recordText(seen: Seen, ray: string, front: FrontFacts): string {
  const r: { route: string; requestId: string; accountId?: string; remote?: string; scheme?: string } = { route: seen.route, requestId: ray };
  if (seen.accountId) r.accountId = seen.accountId;
  if (front.trusted) { r.remote = front.clientIp; r.scheme = front.scheme; }
  return JSON.stringify(r);
}
