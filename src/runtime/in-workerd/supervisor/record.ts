/**
 * Behind the nginx front (`recordHeader`) nginx writes the access records: what only the supervisor knows
 * travels in the RECORD header of every answer it gives (nginx logs it from the runtime's answer only, and
 * removes it from the client's), and nothing is reported to Node.
 */
import { RECORD_HEADER as RECORD } from '../headers.js';
import type { FrontFacts, Seen } from './types.js';

/** The record header's value: the route, the ray, the script's account and the client's address when vouched for. */
export function recordText(seen: Seen, ray: string, front: FrontFacts): string {
  const r: { route: string; requestId: string; accountId?: string; remote?: string } = { route: seen.route, requestId: ray };
  if (seen.accountId) r.accountId = seen.accountId;
  if (front.trusted) r.remote = front.clientIp;
  return JSON.stringify(r);
}
/** A response whose headers may change (a WebSocket upgrade keeps its socket). */
export function copied(res: Response): Response {
  if (res.webSocket) return new Response(null, { status: res.status, statusText: res.statusText, headers: new Headers(res.headers), webSocket: res.webSocket });
  return new Response(res.body, res);
}
/** The answer with the record header set (copied when its headers are immutable). */
export function withRecord(res: Response, text: string): Response {
  if (res.headers.get(RECORD) === text) return res;
  try {
    res.headers.set(RECORD, text);
    return res;
  } catch {
    const out = copied(res);
    out.headers.set(RECORD, text);
    return out;
  }
}
