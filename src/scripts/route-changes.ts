/**
 * What changed between two route snapshots, for the fast path (`runtime/fast-path.ts`), so that a catalog change
 * re-reads only the learned hostnames it may have touched (`EdgeCatalog.routeChanges`): the zones whose routes
 * changed, or whose routes name a script whose active deployment changed. A change found in neither (zones,
 * DNS records, bucket domains and subdomains are not in a snapshot) is `all`: every hostname is read again.
 */
import type { RouteSnapshot } from './route-snapshot.js';

/** The zones a change touched, or `all` when it may have touched anything. */
export type ZonesChanged = ReadonlySet<string> | 'all';

/** The zones whose fast-path plans may differ between `before` and `after` (`all` when `before` is unknown or nothing in the routes differs). */
export function diffRouteSnapshots(before: RouteSnapshot | undefined, after: RouteSnapshot): ZonesChanged {
  if (!before) return 'all';
  const zones = new Set<string>();
  for (const id of new Set([...before.routesByZone.keys(), ...after.routesByZone.keys()])) {
    if (JSON.stringify(before.routesByZone.get(id) ?? []) !== JSON.stringify(after.routesByZone.get(id) ?? [])) zones.add(id);
  }
  // scripts by name (a zone's routes name a script of the zone's account, which the snapshot does not hold per zone)
  const scripts = new Set<string>();
  for (const key of new Set([...before.scripts.keys(), ...after.scripts.keys()])) {
    if (JSON.stringify(before.scripts.get(key)?.traffic ?? []) !== JSON.stringify(after.scripts.get(key)?.traffic ?? [])) scripts.add(key.slice(key.indexOf('/') + 1));
  }
  if (scripts.size > 0) {
    for (const [id, routes] of after.routesByZone) if (routes.some((r) => r.script !== null && scripts.has(r.script))) zones.add(id);
  }
  return zones.size > 0 ? zones : 'all';
}

/** How many snapshot changes are remembered; a reader further behind reads everything again. */
const KEPT = 64;

/** The changes of the last {@link KEPT} snapshots: each from the build it replaced to the build it made current. */
export class RouteChangeLog {
  private readonly entries: { from: number; to: number; zones: ZonesChanged }[] = [];

  /** A new snapshot: current from build `to` on, replacing the one of build `from`. */
  record(from: number, to: number, zones: ZonesChanged): void {
    this.entries.push({ from, to, zones });
    if (this.entries.length > KEPT) this.entries.shift();
  }

  /** The zones the snapshots after build `since` changed (`all` when `since` is unknown, or older than what is kept). */
  since(since: number | undefined): ZonesChanged {
    if (since === undefined) return 'all';
    const later = this.entries.filter((e) => e.to > since);
    if (later.length > 0 && later[0]!.from > since) return 'all'; // the changes between were forgotten
    const zones = new Set<string>();
    for (const e of later) {
      if (e.zones === 'all') return 'all';
      for (const z of e.zones) zones.add(z);
    }
    return zones;
  }
}
