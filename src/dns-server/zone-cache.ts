/**
 * The served zones: one immutable {@link ZoneSnapshot} per zone, found by longest suffix, rebuilt from the
 * database and swapped whole.
 *
 * Freshness: the change feed's listener runs synchronously inside the API request, before the response is
 * written; it starts the rebuild of that zone at once and records it as in flight. The query path asks
 * {@link ZoneCache.pendingFor} before answering: a query for a zone with a rebuild in flight (or for a name in
 * no known zone while any rebuild is in flight, which covers new zones) waits for the rebuild. So an answer
 * computed after the API call returned always reflects the change, and the hot path otherwise never awaits or
 * touches the database. A second node sharing a PostgreSQL database sees changes by polling `zones.serial`.
 */
import type { Kysely } from 'kysely';
import type { Database } from '../db/schema.js';
import type { Logger } from '../shared/logger.js';
import { rowToRecord } from '../zones/record-rows.js';
import { buildSnapshot, type EdgeAddresses, type ZoneSnapshot } from '../dns/snapshot.js';
import { readServingSettings } from '../dns/snapshot-settings.js';

/** Holds and refreshes the snapshots of every zone. */
export class ZoneCache {
  private readonly byName = new Map<string, ZoneSnapshot>();
  private readonly byId = new Map<string, ZoneSnapshot>();
  private readonly inflight = new Map<string, Promise<void>>();
  private readonly again = new Set<string>();
  private pollTimer: NodeJS.Timeout | undefined;
  private polling = false;
  private closed = false;
  private gen = 0;
  private readonly swapListeners: Array<(zoneId: string, snapshot: ZoneSnapshot | undefined) => void> = [];

  private readonly idleListeners: Array<() => void> = [];

  /** Registers a listener called whenever the last rebuild in flight has finished. */
  onIdle(listener: () => void): void {
    this.idleListeners.push(listener);
  }

  /** Registers a listener called after every swap (`undefined`: the zone was removed). */
  onSwap(listener: (zoneId: string, snapshot: ZoneSnapshot | undefined) => void): void {
    this.swapListeners.push(listener);
  }

  private swapped(zoneId: string, snapshot: ZoneSnapshot | undefined): void {
    for (const l of this.swapListeners) {
      try { l(zoneId, snapshot); } catch (err) { this.logger.error({ err }, 'snapshot swap listener failed'); }
    }
  }

  /** Grows whenever any snapshot is replaced, added or removed (response caches key on it). */
  get generation(): number {
    return this.gen;
  }

  /** True while any rebuild is in flight. */
  get busy(): boolean {
    return this.inflight.size > 0;
  }

  constructor(
    private readonly db: Kysely<Database>,
    private readonly edge: EdgeAddresses,
    private readonly logger: Logger,
    /** Called after a snapshot with a new serial replaced an older one (or a zone appeared). */
    private readonly onNewSerial: (snapshot: ZoneSnapshot) => void = () => {},
  ) {}

  /** The snapshot of the zone that holds `qname` (lowercase), by longest suffix. */
  find(qname: string): ZoneSnapshot | undefined {
    let n = qname;
    for (;;) {
      const s = this.byName.get(n);
      if (s) return s;
      if (n === '') return undefined;
      const dot = n.indexOf('.');
      n = dot < 0 ? '' : n.slice(dot + 1);
    }
  }

  /** The snapshot of a zone by id. */
  get(zoneId: string): ZoneSnapshot | undefined {
    return this.byId.get(zoneId);
  }

  /** Every snapshot. */
  all(): ZoneSnapshot[] {
    return [...this.byId.values()];
  }

  /** A promise to wait for before answering from `snapshot` (or from no zone), or undefined when current. */
  pendingFor(snapshot: ZoneSnapshot | undefined): Promise<unknown> | undefined {
    if (this.inflight.size === 0) return undefined;
    if (snapshot) return this.inflight.get(snapshot.zoneId);
    return Promise.all(this.inflight.values());
  }

  /** Loads every zone (at start). */
  async loadAll(): Promise<void> {
    const rows = await this.db.selectFrom('zones').select(['id']).execute();
    await Promise.all(rows.map((r) => this.refresh(r.id)));
  }

  /** Rebuilds one zone (coalescing overlapping requests); resolves when the new snapshot is in place. */
  refresh(zoneId: string): Promise<void> {
    const current = this.inflight.get(zoneId);
    if (current) {
      this.again.add(zoneId);
      return current;
    }
    const run = (async () => {
      do {
        this.again.delete(zoneId);
        await this.rebuild(zoneId);
      } while (this.again.has(zoneId) && !this.closed);
    })()
      .catch((err: unknown) => this.logger.error({ err, zoneId }, 'zone snapshot rebuild failed'))
      .finally(() => {
        this.inflight.delete(zoneId);
        if (this.inflight.size === 0) {
          for (const l of this.idleListeners) {
            try { l(); } catch (err) { this.logger.error({ err }, 'idle listener failed'); }
          }
        }
      });
    this.inflight.set(zoneId, run);
    return run;
  }

  private remove(zoneId: string): void {
    const old = this.byId.get(zoneId);
    if (!old) return;
    this.gen++;
    this.byId.delete(zoneId);
    if (this.byName.get(old.origin) === old) this.byName.delete(old.origin);
    this.swapped(zoneId, undefined);
  }

  private async rebuild(zoneId: string): Promise<void> {
    const zone = await this.db.selectFrom('zones').selectAll().where('id', '=', zoneId).executeTakeFirst();
    if (!zone) { this.remove(zoneId); return; }
    const rows = await this.db.selectFrom('dns_records').selectAll().where('zone_id', '=', zoneId).execute();
    let nameServers: string[] = [];
    try { nameServers = (JSON.parse(zone.name_servers) as string[]).map((n) => String(n).toLowerCase().replace(/\.$/, '')); } catch { /* none */ }
    const settings = readServingSettings(zone.dns_settings, zone.zone_settings, nameServers);
    const records = [];
    for (const row of rows) {
      try { records.push(rowToRecord(row)); } catch (err) { this.logger.warn({ err, id: row.id }, 'unreadable record row'); }
    }
    const snapshot = buildSnapshot(
      { id: zone.id, name: zone.name.toLowerCase(), serial: Number(zone.serial), nameServers, settings },
      records,
      this.edge,
    );
    for (const s of snapshot.skipped) this.logger.warn({ zoneId, recordId: s.id, reason: s.reason }, 'record not served');
    const old = this.byId.get(zoneId);
    if (old && old.origin !== snapshot.origin && this.byName.get(old.origin) === old) this.byName.delete(old.origin);
    this.byId.set(zoneId, snapshot);
    this.byName.set(snapshot.origin, snapshot);
    this.gen++;
    this.swapped(zoneId, snapshot);
    if (!old || old.serial !== snapshot.serial) this.onNewSerial(snapshot);
  }

  /** Compares every zone's serial with the database and rebuilds what changed (other nodes' writes). */
  async poll(): Promise<void> {
    if (this.polling || this.closed) return;
    this.polling = true;
    try {
      const rows = await this.db.selectFrom('zones').select(['id', 'serial']).execute();
      const seen = new Set<string>();
      const work: Promise<void>[] = [];
      for (const r of rows) {
        seen.add(r.id);
        if (this.byId.get(r.id)?.serial !== Number(r.serial)) work.push(this.refresh(r.id));
      }
      for (const id of [...this.byId.keys()]) if (!seen.has(id) && !this.inflight.has(id)) this.remove(id);
      await Promise.all(work);
    } catch (err) {
      if (!this.closed) this.logger.warn({ err }, 'zone serial poll failed');
    } finally {
      this.polling = false;
    }
  }

  /** Polls serials every `ms` milliseconds. */
  startPolling(ms: number): void {
    if (ms <= 0) return;
    this.pollTimer = setInterval(() => { void this.poll(); }, ms);
    this.pollTimer.unref();
  }

  /** Stops polling and waits for rebuilds in flight. */
  async close(): Promise<void> {
    this.closed = true;
    if (this.pollTimer) clearInterval(this.pollTimer);
    await Promise.all(this.inflight.values());
  }
}
