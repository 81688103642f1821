/** Finding the zone that holds a name: the longest suffix of the name that is a zone's origin. */
import type { ZoneSnapshot } from '../dns/snapshot.js';

/** The snapshot of the zone that holds `qname` (lowercase, no trailing dot), by longest suffix, if any. */
export function findZone<Z extends ZoneSnapshot>(byOrigin: ReadonlyMap<string, Z>, qname: string): Z | undefined {
  let n = qname;
  for (;;) {
    const s = byOrigin.get(n);
    if (s) return s;
    if (n === '') return undefined;
    const dot = n.indexOf('.');
    n = dot < 0 ? '' : n.slice(dot + 1);
  }
}
