/**
 * One line of nginx's access log (`log_format stratus escape=json`, nginx-config.ts) into an
 * {@link EdgeAccessRecord}: one per request, so it makes no object it does not return (a hand-written scanner
 * of the line measured slower than `JSON.parse`: 1.8 against 1.1 µs a line with the rest of the reading).
 */
import type { EdgeAccessRecord } from '../control-service.js';

const str = (v: unknown): string | undefined => (typeof v === 'string' && v !== '' ? v.slice(0, 200) : undefined);
const num = (v: unknown): number => {
  const n = typeof v === 'number' ? v : Number(v);
  return Number.isFinite(n) && n >= 0 ? n : 0;
};

/**
 * The record of one access log line, or undefined for a line that is not one. The runtime's fields (route
 * label, account, ray id, the HTTPS listener's client address) win over nginx's: they came from the runtime's
 * answer, never from the client. A fast request's account and route come from nginx's own variables.
 */
export function parseAccessLine(line: string): EdgeAccessRecord | undefined {
  let o: Record<string, unknown>;
  try {
    const parsed: unknown = JSON.parse(line);
    if (typeof parsed !== 'object' || parsed === null) return undefined;
    o = parsed as Record<string, unknown>;
  } catch {
    return undefined;
  }
  let r: Record<string, unknown> | undefined;
  // A fast request (`ac`: its account, from nginx's compiled routes) went to the script's own socket with no
  // supervisor behind it: its answer's record header, if any, is the script's own and is not believed.
  const fastAccount = str(o['ac']);
  if (fastAccount === undefined && typeof o['r'] === 'string' && o['r'] !== '') {
    try {
      const parsed: unknown = JSON.parse(o['r']);
      if (typeof parsed === 'object' && parsed !== null) r = parsed as Record<string, unknown>;
    } catch { /* not the runtime's: ignored */ }
  }
  const ownRoute = r === undefined ? undefined : r['route'];
  let status = num(o['s']);
  // nginx gives up on a request whose client went away while it read the body with a 400 it never sends (its
  // own 400s go through the framing page, which labels them): production logs such a request as 499.
  const nginxRoute = str(o['p']);
  if (status === 400 && ownRoute === undefined && nginxRoute === undefined) status = 499;
  const route = str(ownRoute) ?? nginxRoute ?? (status === 499 ? 'aborted' : 'unmatched');
  const accountId = fastAccount ?? (r === undefined ? undefined : str(r['accountId']));
  const remote = (r === undefined ? undefined : str(r['remote'])) ?? str(o['a']);
  // the scheme the supervisor was told by the Node HTTPS listener, else nginx's own (`https` on its TLS servers)
  const scheme = (r === undefined ? undefined : str(r['scheme'])) ?? str(o['sc']);
  const record: EdgeAccessRecord = {
    method: str(o['m']) ?? 'other', route, status, ms: Math.round(num(o['t']) * 1000), bytesIn: num(o['i']), bytesOut: num(o['o']),
    requestId: (r === undefined ? undefined : str(r['requestId'])) ?? str(o['id']) ?? '',
  };
  if (accountId !== undefined) record.accountId = accountId;
  if (remote !== undefined) record.remote = remote;
  if (fastAccount !== undefined) record.fast = true;
  if (scheme === 'http' || scheme === 'https') record.scheme = scheme;
  return record;
}
