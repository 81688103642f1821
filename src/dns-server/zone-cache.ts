/**
 * The served zones: one immutable {@link ZoneSnapshot} per zone, found by longest suffix, rebuilt from the
 * database and swapped whole.
 *
 * Freshness without rebuilding on every write: the change feed's listener runs synchronously inside the API
 * request, before the response is written, and only marks the zone **dirty** ({@link ZoneCache.markChanged}:
 * a version bump, no database access). Rebuilds happen
 * - lazily, when a query needs a dirty zone: {@link ZoneCache.pendingFor} returns a promise that settles once
 *   a snapshot reflecting every change announced so far is in place (a query for a name in no zone, or while
 *   a zone announced as created has no snapshot yet, waits for those zones, which covers new zones);
 * - in the background, after the zone has been quiet for `debounceMs` (and at most `maxDelayMs` after its
 *   first unbuilt change), so queries usually find a fresh snapshot and NOTIFY goes out.
 * Many changes coalesce into one rebuild, and a zone has at most one rebuild running (a change arriving during
 * it makes the next waiter start one more). Queries for clean zones never wait. A second node sharing a
 * PostgreSQL database sees changes by polling `zones.serial`.
 */
import { findZone } from './zone-find.js';
import type { Kysely } from 'kysely';
import type { Database } from '../db/schema.js';
import type { Logger } from '../shared/logger.js';
import type { EdgeAddresses, ZoneSnapshot } from '../dns/snapshot.js';
import { loadZoneSnapshot } from './zone-build.js';
import { faultOf } from '../shared/faults.js';
import { IncidentLog } from '../shared/incident-log.js';

/** Rebuild timing of {@link ZoneCache}. */
export interface ZoneCacheTiming {
  /** Background rebuild after the zone was quiet this long (ms; 0: only lazily and by polling). Default 20. */
  debounceMs?: number;
  /** ...but no later than this after its first unbuilt change (ms). Default 500. */
  maxDelayMs?: number;
}

interface ZoneState {
  /** Bumped by every announced change. */
  version: number;
  /** The version the current snapshot reflects. */
  built: number;
  /** The rebuild running now and the version it will reflect. */
  running?: Promise<void>;
  runningVersion: number;
  /** The rebuild queued behind the running one (shared by every waiter). */
  next?: Promise<void>;
  timer?: NodeJS.Timeout;
  firstDirtyAt: number;
  /** How long the last rebuild took (ms): background rebuilds of big zones are spaced out accordingly. */
  lastBuildMs: number;
  /**
   * The last rebuild failed (the database is away): queries answer from the snapshot they have instead of
   * waiting for rebuilds that fail too; the background retry (every RETRY_MS) catches up when it is back.
   */
  failing?: boolean;
}

const resolved = Promise.resolve();
/** Delay before a failed rebuild is retried in the background (queries still retry at once). */
const RETRY_MS = 1000;

/** Background rebuilds of a zone under constant writes start at least this many rebuild times apart. */
const BUSY_SPACING = 9;

/** Holds and refreshes the snapshots of every zone. */
export class ZoneCache {
  private readonly byName = new Map<string, ZoneSnapshot>();
  private readonly byId = new Map<string, ZoneSnapshot>();
  private readonly states = new Map<string, ZoneState>();
  /** Zones whose snapshot is behind their version. */
  private readonly dirty = new Set<string>();
  /** Dirty zones with no snapshot yet (being created): every query waits for them. */
  private readonly unborn = new Set<string>();
  private runningCount = 0;
  private pollTimer: NodeJS.Timeout | undefined;
  private polling = false;
  private closed = false;
  private gen = 0;
  private readonly debounceMs: number;
  private readonly maxDelayMs: number;
  private readonly swapListeners: Array<(zoneId: string, snapshot: ZoneSnapshot | undefined) => void> = [];
  private readonly idleListeners: Array<() => void> = [];
  /** Unexpected rebuild and poll failures, logged once per incident. */
  private readonly failures: IncidentLog;

  constructor(
    private readonly db: Kysely<Database>,
    private readonly edge: EdgeAddresses,
    private readonly logger: Logger,
    /** Called after a snapshot with a new serial replaced an older one (or a zone appeared). */
    private readonly onNewSerial: (snapshot: ZoneSnapshot) => void = () => {},
    timing: ZoneCacheTiming = {},
  ) {
    this.failures = new IncidentLog(logger);
    this.debounceMs = timing.debounceMs ?? 20;
    this.maxDelayMs = Math.max(this.debounceMs, timing.maxDelayMs ?? 500);
  }

  /** Registers a listener called whenever every snapshot is current (no zone dirty, no rebuild running). */
  onIdle(listener: () => void): void {
    this.idleListeners.push(listener);
  }

  /** Registers a listener called after every swap (`undefined`: the zone was removed). */
  onSwap(listener: (zoneId: string, snapshot: ZoneSnapshot | undefined) => void): void {
    this.swapListeners.push(listener);
  }

  /** Grows whenever any zone changes or any snapshot is replaced, added or removed (response caches key on it). */
  get generation(): number {
    return this.gen;
  }

  /** True while any zone is dirty or rebuilding. */
  get busy(): boolean {
    return this.dirty.size > 0;
  }

  /** The snapshot of the zone that holds `qname` (lowercase), by longest suffix. */
  find(qname: string): ZoneSnapshot | undefined {
    return findZone(this.byName, qname);
  }

  /** The snapshot of a zone by id. */
  get(zoneId: string): ZoneSnapshot | undefined {
    return this.byId.get(zoneId);
  }

  /** Every snapshot. */
  all(): ZoneSnapshot[] {
    return [...this.byId.values()];
  }

  /**
   * Announces a committed change (synchronous and cheap: call it from the change feed). The zone is rebuilt
   * before any later query is answered from it, and in the background soon.
   */
  markChanged(zoneId: string): void {
    const s = this.state(zoneId);
    if (s.version === (s.running ? s.runningVersion : s.built)) s.firstDirtyAt = Date.now();
    s.version++;
    this.gen++;
    this.dirty.add(zoneId);
    if (!this.byId.has(zoneId)) this.unborn.add(zoneId);
    this.schedule(zoneId, s);
  }

  /** A promise to wait for before answering from `snapshot` (or from no zone), or undefined when current. */
  pendingFor(snapshot: ZoneSnapshot | undefined): Promise<unknown> | undefined {
    if (this.dirty.size === 0) return undefined;
    let own: Promise<void> | undefined;
    // A zone whose last rebuild failed is not waited for; a query past the retry time starts the next attempt.
    const waitable = (id: string): boolean => {
      const st = this.states.get(id);
      if (!st?.failing) return true;
      if (!st.running && st.firstDirtyAt <= Date.now()) void this.refresh(id, false);
      return false;
    };
    if (snapshot && this.dirty.has(snapshot.zoneId) && waitable(snapshot.zoneId)) own = this.refresh(snapshot.zoneId, false);
    if (this.unborn.size === 0) return own;
    const all = [...this.unborn].filter(waitable).map((id) => this.refresh(id, false));
    if (own) all.push(own);
    return Promise.all(all);
  }

  /** Loads every zone (at start). */
  async loadAll(): Promise<void> {
    const rows = await this.db.selectFrom('zones').select(['id']).where('status', '=', 'active').execute();
    await Promise.all(rows.map((r) => this.refresh(r.id)));
  }

  /**
   * Brings one zone up to date: resolves once its snapshot reflects every change announced before the call
   * (`force`: also when none was announced, e.g. a serial changed by another node).
   */
  refresh(zoneId: string, force = true): Promise<void> {
    const s = this.state(zoneId);
    if (force && s.version === s.built && !s.running) this.markChanged(zoneId);
    const target = s.version;
    if (s.built >= target) return resolved;
    if (s.running) {
      if (s.runningVersion >= target) return s.running;
      s.next ??= s.running.then(() => {
        s.next = undefined;
        return this.refresh(zoneId, false);
      });
      return s.next;
    }
    if (s.timer) { clearTimeout(s.timer); s.timer = undefined; }
    s.runningVersion = target;
    this.runningCount++;
    const started = performance.now();
    const run = this.rebuild(zoneId)
      .then(() => {
        if (s.built < target) s.built = target;
        s.lastBuildMs = performance.now() - started;
        s.failing = false;
      })
      .catch((err: unknown) => {
        // A database fault is logged once per outage by the health state; the old snapshot keeps answering.
        if (!faultOf(err)) this.failures.failure(`zone snapshot rebuild failed: ${(err as Error).message}`, err, 'zone snapshot rebuild failed; the previous snapshot keeps answering');
        s.firstDirtyAt = Date.now() + RETRY_MS;
        s.failing = true;
      })
      .finally(() => this.settled(zoneId, s));
    s.running = run;
    return run;
  }

  private settled(zoneId: string, s: ZoneState): void {
    s.running = undefined;
    this.runningCount--;
    if (s.built >= s.version) {
      this.dirty.delete(zoneId);
      this.unborn.delete(zoneId);
      if (!this.byId.has(zoneId) && !s.next) this.states.delete(zoneId);
    } else if (!this.closed && !s.next) {
      this.schedule(zoneId, s);
    }
    if (this.dirty.size === 0 && this.runningCount === 0) {
      for (const l of this.idleListeners) {
        try { l(); } catch (err) { this.logger.error({ err }, 'idle listener failed'); }
      }
    }
  }

  private state(zoneId: string): ZoneState {
    let s = this.states.get(zoneId);
    if (!s) {
      s = { version: 0, built: 0, runningVersion: 0, firstDirtyAt: 0, lastBuildMs: 0 };
      this.states.set(zoneId, s);
    }
    return s;
  }

  /**
   * (Re)arms the background rebuild: `debounceMs` after the last change, within `maxDelayMs` of the first (or
   * {@link BUSY_SPACING} times the zone's last rebuild time, so that background rebuilds of a big zone under
   * constant writes take at most about a tenth of the main thread, which the writes themselves need; queries
   * never wait for the timer, they rebuild a dirty zone first).
   */
  private schedule(zoneId: string, s: ZoneState): void {
    if (this.closed || this.debounceMs <= 0) return;
    if (s.timer) clearTimeout(s.timer);
    // After a failed rebuild firstDirtyAt lies in the future: the retry waits about RETRY_MS.
    const now = Date.now();
    const delay = s.firstDirtyAt > now ? s.firstDirtyAt - now : Math.max(0, Math.min(this.debounceMs, s.firstDirtyAt + Math.max(this.maxDelayMs, BUSY_SPACING * s.lastBuildMs) - now));
    s.timer = setTimeout(() => {
      s.timer = undefined;
      if (!this.closed) void this.refresh(zoneId, false);
    }, delay);
    s.timer.unref();
  }

  private remove(zoneId: string): void {
    const old = this.byId.get(zoneId);
    if (!old) return;
    this.gen++;
    this.byId.delete(zoneId);
    if (this.byName.get(old.origin) === old) this.byName.delete(old.origin);
    this.swapped(zoneId, undefined);
  }

  private swapped(zoneId: string, snapshot: ZoneSnapshot | undefined): void {
    for (const l of this.swapListeners) {
      try { l(zoneId, snapshot); } catch (err) { this.logger.error({ err }, 'snapshot swap listener failed'); }
    }
  }

  private async rebuild(zoneId: string): Promise<void> {
    const snapshot = await loadZoneSnapshot(this.db, zoneId, this.edge, this.logger);
    if (!snapshot) { this.remove(zoneId); return; }
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
      const rows = await this.db.selectFrom('zones').select(['id', 'serial']).where('status', '=', 'active').execute(); // served zones only
      const seen = new Set<string>();
      const work: Promise<void>[] = [];
      for (const r of rows) {
        seen.add(r.id);
        if (this.byId.get(r.id)?.serial !== Number(r.serial) && !this.dirty.has(r.id)) work.push(this.refresh(r.id));
      }
      for (const id of [...this.byId.keys()]) if (!seen.has(id) && !this.dirty.has(id)) this.remove(id);
      await Promise.all(work);
    } catch (err) {
      if (!this.closed && !faultOf(err)) this.failures.failure('zone serial poll failed', err);
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

  /** Stops polling and background rebuilds and waits for rebuilds running. */
  async close(): Promise<void> {
    this.closed = true;
    if (this.pollTimer) clearInterval(this.pollTimer);
    for (const s of this.states.values()) if (s.timer) clearTimeout(s.timer);
    await Promise.all([...this.states.values()].map((s) => s.next ?? s.running));
  }
}
