/**
 * When NOTIFY goes out: at once for a zone's first new serial, then at most once per interval while the zone
 * keeps changing (the last serial of a burst is always announced), so a zone written 1,000 times a second
 * costs its secondaries one NOTIFY per second, not 1,000.
 */
import type { ZoneSnapshot } from '../dns/snapshot.js';

/** A per-zone leading-and-trailing throttle of `send`. */
export class NotifySchedule {
  private readonly cooling = new Map<string, { timer: NodeJS.Timeout; latest?: ZoneSnapshot }>();

  constructor(private readonly send: (zone: ZoneSnapshot) => void, private readonly intervalMs = 1000) {}

  /** A zone has a new serial. */
  changed(zone: ZoneSnapshot): void {
    const c = this.cooling.get(zone.zoneId);
    if (c) { c.latest = zone; return; }
    this.send(zone);
    this.cool(zone.zoneId, zone.serial);
  }

  private cool(zoneId: string, sentSerial: number): void {
    const timer = setTimeout(() => {
      const latest = this.cooling.get(zoneId)?.latest;
      this.cooling.delete(zoneId);
      if (latest && latest.serial !== sentSerial) {
        this.send(latest);
        this.cool(zoneId, latest.serial);
      }
    }, this.intervalMs);
    timer.unref();
    this.cooling.set(zoneId, { timer });
  }

  /** Stops pending sends. */
  close(): void {
    for (const c of this.cooling.values()) clearTimeout(c.timer);
    this.cooling.clear();
  }
}
