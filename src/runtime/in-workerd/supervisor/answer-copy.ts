/**
 * Answers whose headers the supervisor changes: a script's answer from workerd may have immutable headers (a
 * `fetch()` result), and is then copied, which costs more than the rest of the supervisor's work together.
 */
import { RECORD_HEADER as RECORD } from '../headers.js';

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
