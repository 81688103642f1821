/**
 * The zones a process answers from, by id and by origin, and the answer-cache invalidations their changes
 * cause. Shared by the main thread's zone cache and the DNS thread's trees, so both find zones and drop
 * cached answers the same way.
 */
import type { ZoneSnapshot } from '../dns/snapshot.js';
import { findZone } from './zone-find.js';

/**
 * Answers that may have changed: the names of one zone, the whole zone (`names` absent), or every answer
 * (`zoneId` absent: a zone appeared or disappeared, which changes answers for names in no zone too).
 */
export interface Invalidation {
  zoneId?: string;
  names?: Iterable<string>;
}

/** Zones by id and origin, with invalidation listeners. */
export class ZoneSet<Z extends ZoneSnapshot = ZoneSnapshot> {
  private readonly byId = new Map<string, Z>();
  private readonly byName = new Map<string, Z>();
  private readonly listeners: Array<(inv: Invalidation) => void> = [];

  /** The zone holding `qname` (lowercase), by longest suffix. */
  find(qname: string): Z | undefined {
    return findZone(this.byName, qname);
  }

  /** A zone by id. */
  get(zoneId: string): Z | undefined {
    return this.byId.get(zoneId);
  }

  /** Every zone. */
  all(): Z[] {
    return [...this.byId.values()];
  }

  /** Puts a zone in (replacing the one with its id). */
  put(zone: Z): void {
    this.drop(zone.zoneId);
    this.byId.set(zone.zoneId, zone);
    this.byName.set(zone.origin, zone);
    this.invalidate({});
  }

  /** Takes a zone out. */
  remove(zoneId: string): void {
    if (this.drop(zoneId)) this.invalidate({});
  }

  private drop(zoneId: string): boolean {
    const old = this.byId.get(zoneId);
    if (!old) return false;
    this.byId.delete(zoneId);
    if (this.byName.get(old.origin) === old) this.byName.delete(old.origin);
    return true;
  }

  /** Registers a listener told of every invalidation (answer caches). */
  onInvalidate(listener: (inv: Invalidation) => void): void {
    this.listeners.push(listener);
  }

  /** Tells the listeners that these answers may have changed. */
  invalidate(inv: Invalidation): void {
    for (const l of this.listeners) l(inv);
  }
}
