/**
 * Name and RRset helpers shared by the two ways a DO answer is made: signing online (`sign-response.ts`) and
 * serving a pre-signed zone's stored signatures (`presigned-answer.ts`). Names are lowercase presentation names
 * without the trailing dot, as the zone snapshot keeps them ('' is the root).
 */
import type { WireRecord } from '../wire/message.js';
import type { ZoneSnapshot } from '../snapshot.js';

/** The parent of a name ('' for a single label). */
export function parentName(name: string): string {
  const dot = name.indexOf('.');
  return dot < 0 ? '' : name.slice(dot + 1);
}

/** The closest existing ancestor of a name that does not exist (RFC 5155 §7.2.1: the closest encloser). */
export function closestEncloser(s: ZoneSnapshot, name: string): string {
  let n = parentName(name);
  while (!s.nodes.has(n) && n !== s.origin && n !== '') n = parentName(n);
  return n;
}

/** The child of `ancestor` on the way down to `name` (RFC 5155 §7.2.1: the next closer name). */
export function nextCloser(name: string, ancestor: string): string {
  const keep = ancestor === '' ? 1 : ancestor.split('.').length + 1;
  return name.split('.').slice(-keep).join('.');
}

/** Groups records into RRsets (same owner and type), keeping order. */
export function groupRrsets(records: readonly WireRecord[]): WireRecord[][] {
  const out = new Map<string, WireRecord[]>();
  for (const r of records) {
    const k = `${r.name}|${r.type}`;
    const set = out.get(k);
    if (set) set.push(r);
    else out.set(k, [r]);
  }
  return [...out.values()];
}
