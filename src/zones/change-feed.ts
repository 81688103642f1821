/**
 * The change feed: the zones service publishes the id of every zone whose records or settings changed, after
 * the transaction commits; the DNS server rebuilds that zone's snapshot. In one process this is an event
 * emitter; several nodes on PostgreSQL also poll zone serials (see dns-server/).
 */
import { EventEmitter } from 'node:events';

/** What a change is about. */
export interface ZoneChange {
  zoneId: string;
  /** 'deleted' when the zone itself is gone; 'status' when it became active or stopped being active. */
  kind: 'records' | 'settings' | 'created' | 'deleted' | 'status';
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
