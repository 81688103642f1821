/**
 * The change feed: after a transaction commits, the zones service publishes what it did to a zone: the
 * records changed (before and after), or the zone's new settings, with the zone's serial after the change.
 * The DNS server applies these changesets to its zone images. In one process this is an event emitter;
 * the same changes are written to the change log (change-log.ts) for other nodes and for catching up.
 */
import { EventEmitter } from 'node:events';
import type { RecordChange } from '../dns/zone-tree.js';

export type { RecordChange } from '../dns/zone-tree.js';

/** The served columns of a `zones` row (what a settings change carries). */
export interface ZoneColumns {
  name_servers: string;
  dns_settings: string;
  zone_settings: string;
  /** The zone's DNSSEC state and key (dnssec/config.ts; the private key sealed); absent or null: unsigned. */
  dnssec?: string | null;
}

/** What a change is about. */
export interface ZoneChange {
  zoneId: string;
  /** 'deleted' when the zone itself is gone; 'status' when it became active or stopped being active. */
  kind: 'records' | 'settings' | 'created' | 'deleted' | 'status';
  /** The zone's serial after the change; absent when unknown (listeners then read the zone's state). */
  serial?: number;
  /** kind 'records': every record written, as before and after (null for a create / a delete). */
  records?: RecordChange[];
  /** kind 'settings': the zone's served columns after the change. */
  zone?: ZoneColumns;
}

/** Publishes and delivers zone changes. */
export class ZoneChangeFeed {
  private readonly emitter = new EventEmitter();

  constructor() {
    this.emitter.setMaxListeners(0);
  }

  /** Announces a committed change. Listeners run synchronously, before the API call returns. */
  publish(change: ZoneChange): void {
    this.emitter.emit('change', change);
  }

  /** Registers a listener; returns a function that removes it. */
  subscribe(listener: (change: ZoneChange) => void): () => void {
    this.emitter.on('change', listener);
    return () => this.emitter.off('change', listener);
  }
}
