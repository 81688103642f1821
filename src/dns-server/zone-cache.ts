/**
 * The served zones, kept current by changesets: one {@link ZoneTree} per zone, patched by the changes the
 * API publishes on the change feed, by the change log (other nodes' changes, gaps), and loaded whole only at
 * start, for a new zone, or when the log cannot fill a gap.
 *
 * Freshness (read-your-writes): the feed's listener runs synchronously inside the API request, before the
 * response is written. A small changeset whose serial follows the tree's is applied right there, so the next
 * query sees it. Anything else (a big changeset, a serial gap, a new zone) is queued on the zone: from then
 * until the queue drains, queries for the zone wait ({@link ZoneCache.pendingFor}), and queries for names in
 * no zone wait for zones being created. Queued work runs in slices of a few ms (zone-load.ts), one zone task
 * at a time in order. Queries for other zones never wait.
 *
 * Which zones are served is zone-source.ts's `served()` (active zones only): a `status` or `created` change
 * carries no changeset, so the zone is read again and loaded, or dropped when it is not served.
 *
 * Faults: when a zone's work fails (the database is away), the zone keeps answering from the tree it has and
 * its queries stop waiting for it ({@link ZoneCache.pendingFor} skips failing zones); a background retry every
 * {@link RETRY_MS} catches the zone up once the database answers again. Database faults are logged once per
 * outage by the health state; other failures once per incident here.
 *
 * Listeners: answer caches hear which names changed (invalidations through the zone set), the DNS thread hears
 * every update as a changeset ({@link ZoneUpdate}), NOTIFY hears of new serials, and `onIdle` fires whenever
 * no zone has work queued.
 */
import type { Kysely } from 'kysely';
import type { Database } from '../db/schema.js';
import type { Logger } from '../shared/logger.js';
import type { EdgeAddresses, SnapshotZone } from '../dns/snapshot.js';
import { ZoneTree, type ChangeReport, type RecordChange } from '../dns/zone-tree.js';
import { mirrorFactory, type ImageFactory, type ZoneImage } from './zone-mirror.js';
import type { ZoneChange } from '../zones/change-feed.js';
import { pruneChanges, type LoggedChange } from '../zones/change-log.js';
import { ZoneSet, type Invalidation } from './zone-set.js';
import { applyChange, catchUp, loadZone } from './zone-load.js';
import { servedZones, servedZoneSerial, zoneFields } from './zone-source.js';
import { decidePoll } from './zone-poll.js';
import { faultOf } from '../shared/faults.js';
import { IncidentLog } from '../shared/incident-log.js';
import { recordZoneBuild } from '../shared/probes.js';
import type { ZoneUpdate } from './zone-update.js';
import type { JournalEntry } from '../dns/zone-journal.js';

export type { ZoneUpdate } from './zone-update.js';

/** Options of {@link ZoneCache}. */
export interface ZoneCacheOptions {
  /** Changesets up to this size are applied inside the publishing call; larger ones are queued. Default 256. */
  syncLimit?: number;
  /** Change-log entries older than this are pruned (ms). Default 10 minutes. */
  logRetentionMs?: number;
  /**
   * Keep mirrors (zone-mirror.ts) instead of trees: the zones' records are held by the DNS thread only, fed by
   * this cache's updates, and this cache answers no query itself.
   */
  mirror?: boolean;
  /** The IXFR journal kept in the database: trees' entries saved, a zone loaded whole seeded (journal-store.ts). */
  journal?: { load(zoneId: string, serial: number): Promise<JournalEntry[]>; save(zoneId: string, entry: JournalEntry): void };
}

interface ZoneQueue {
  tail: Promise<void>;
  pending: number;
}

/** Delay before failed zone work is retried (queries do not wait for the retry). */
const RETRY_MS = 1000;
/** Records per update sent to listeners (a big changeset or a loaded zone goes out in several). */
export const COPY_SLICE = 1000;
/** Prune the change log at most this often (ms). */
const PRUNE_EVERY_MS = 60_000;

/** Holds and updates the tree of every served zone. */
export class ZoneCache {
  private readonly zones = new ZoneSet<ZoneImage>();
  private readonly image: ImageFactory;
  private readonly journal: ZoneCacheOptions['journal'];
  private readonly queues = new Map<string, ZoneQueue>();
  /** Zones queued with no tree yet (being created): every query for a name in no zone waits for them. */
  private readonly unborn = new Set<string>();
  /** Zones whose last work failed: they answer from what they have, queries do not wait for their retries. */
  private readonly failing = new Set<string>();
  /** Zones with a retry scheduled. */
  private readonly retrying = new Set<string>();
  /** Unexpected zone-work and poll failures, logged once per incident. */
  private readonly failures: IncidentLog;
  private readonly updateListeners: Array<(u: ZoneUpdate) => void> = [];
  private readonly idleListeners: Array<() => void> = [];
  private readonly drainListeners: Array<() => void> = [];
  private pollTimer: NodeJS.Timeout | undefined;
  /** Zones whose serial the last poll saw ahead of their tree, with that serial. */
  private aheadSeen = new Map<string, number>();
  private polling = false;
  private closed = false;
  private lastPrune = 0;
  private readonly syncLimit: number;
  private readonly retentionMs: number;

  constructor(
    private readonly db: Kysely<Database>,
    private readonly edge: EdgeAddresses,
    private readonly logger: Logger,
    /** Called whenever a zone has a new serial (or appeared). */
    private readonly onNewSerial: (zone: ZoneImage) => void = () => {},
    opts: ZoneCacheOptions = {},
  ) {
    this.failures = new IncidentLog(logger);
    this.syncLimit = opts.syncLimit ?? 256;
    this.retentionMs = opts.logRetentionMs ?? 10 * 60_000;
    this.journal = opts.journal;
    this.image = opts.mirror ? mirrorFactory((u) => this.emit(u)) : (zone, edge) => Object.assign(new ZoneTree(zone, edge), { onJournal: this.journalRecorded });
  }

  /** Registers a listener of every update of the served image (in order). */
  onUpdate(listener: (u: ZoneUpdate) => void): void {
    this.updateListeners.push(listener);
  }

  /** Registers a listener called whenever no zone has work queued. */
  onIdle(listener: () => void): void {
    this.idleListeners.push(listener);
  }

  /** Registers a listener called whenever {@link blocking} may have shrunk (a zone's queue drained, or its work failed). */
  onDrained(listener: () => void): void {
    this.drainListeners.push(listener);
  }

  /** Registers an answer cache's invalidation listener. */
  onInvalidate(listener: (inv: Invalidation) => void): void {
    this.zones.onInvalidate(listener);
  }

  /** True while any zone has work queued. */
  get busy(): boolean {
    return this.queues.size > 0;
  }

  /** The tree of the zone holding `qname` (lowercase), by longest suffix. */
  find(qname: string): ZoneImage | undefined {
    return this.zones.find(qname);
  }

  /** The tree of a zone by id. */
  get(zoneId: string): ZoneImage | undefined {
    return this.zones.get(zoneId);
  }

  /** Every tree. */
  all(): ZoneImage[] {
    return this.zones.all();
  }

  /**
   * The zones whose queries must wait now (work queued, not failing), and whether names in no zone must wait
   * (a zone is being created): what {@link pendingFor} waits for, for the DNS thread.
   */
  blocking(): { zoneIds: string[]; unborn: boolean } {
    const zoneIds: string[] = [];
    for (const id of this.queues.keys()) if (!this.failing.has(id)) zoneIds.push(id);
    let unborn = false;
    for (const id of this.unborn) if (!this.failing.has(id)) unborn = true;
    return { zoneIds, unborn };
  }

  /**
   * A promise to wait for before answering from `zone` (or from no zone), or undefined when it is current.
   * Zones whose last work failed are not waited for (they answer from what they have until a retry succeeds).
   */
  pendingFor(zone: { zoneId: string } | undefined): Promise<unknown> | undefined {
    if (this.queues.size === 0) return undefined;
    const own = zone && !this.failing.has(zone.zoneId) ? this.queues.get(zone.zoneId)?.tail : undefined;
    if (this.unborn.size === 0) return own;
    const all = [...this.unborn].filter((id) => !this.failing.has(id)).map((id) => this.queues.get(id)?.tail);
    if (all.length === 0) return own;
    if (own) all.push(own);
    return Promise.all(all);
  }

  /** Takes a committed change from the change feed (synchronous; see the module comment). */
  apply(change: ZoneChange): void {
    const { zoneId } = change;
    if (change.kind === 'deleted') {
      this.removeZone(zoneId);
      return;
    }
    const tree = this.zones.get(zoneId);
    const logged = toLogged(change);
    if (tree && !this.queues.has(zoneId) && logged && logged.serial === tree.serial + 1 && (logged.records?.length ?? 0) <= this.syncLimit) {
      const started = performance.now();
      if (logged.zone) this.applied(tree, logged, tree.setZone(zoneFields(zoneId, tree.origin, logged.serial, logged.zone)));
      else this.applied(tree, logged, tree.apply(logged.records ?? [], logged.serial));
      recordZoneBuild('apply', (performance.now() - started) / 1000, 0);
      return;
    }
    if (tree && logged && logged.serial <= tree.serial && !this.queues.has(zoneId)) return;
    const queuedAt = performance.now();
    this.enqueue(zoneId, () => this.deliver(zoneId, logged, queuedAt));
  }

  /** Announces a change whose content is unknown: the zone catches up from the database before it answers again. */
  markChanged(zoneId: string): void {
    this.enqueue(zoneId, () => this.deliver(zoneId, undefined));
  }

  /** Loads every served zone (at start). */
  async loadAll(): Promise<void> {
    const rows = await servedZones(this.db);
    for (const r of rows) this.markChanged(r.id);
    await Promise.all(rows.map((r) => this.queues.get(r.id)?.tail));
  }

  /**
   * Loads every zone again from the database, for a DNS thread restarted with no zones (udp-workers.ts): the
   * images are dropped (without `remove` updates), so until its load is done each zone counts as being created
   * and every query of a name in no zone waits in the thread. Resolves when every load has ended.
   */
  async reloadAll(): Promise<void> {
    const ids = this.zones.all().map((z) => z.zoneId);
    for (const id of ids) this.zones.remove(id);
    for (const id of ids) {
      this.enqueue(id, () => this.load(id));
      this.unborn.add(id);
    }
    await Promise.all(ids.map((id) => this.queues.get(id)?.tail));
  }

  /** Applies a queued change: in order if it follows the tree, else catches up or loads the zone. */
  private async deliver(zoneId: string, change: LoggedChange | undefined, queuedAt?: number): Promise<void> {
    const tree = this.zones.get(zoneId);
    if (!tree) { await this.load(zoneId); return; }
    if (change && change.serial <= tree.serial) return;
    if (change && change.serial === tree.serial + 1 && !change.reload) {
      const started = performance.now();
      this.applied(tree, change, await applyChange(tree, change));
      recordZoneBuild('apply', (performance.now() - started) / 1000, queuedAt === undefined ? undefined : (performance.now() - queuedAt) / 1000);
      return;
    }
    const serial = await servedZoneSerial(this.db, zoneId);
    if (serial === undefined) { this.removeZone(zoneId); return; }
    if ((await catchUp(this.db, tree, serial, (c, report) => this.applied(tree, c, report))) === 'reload') await this.load(zoneId);
  }

  /** Tells every listener about a change applied to a tree. */
  private applied(tree: ZoneImage, change: LoggedChange, report: ChangeReport): void {
    if (change.zone) this.emit({ t: 'zone', zone: tree.zoneFields });
    else if (change.records) {
      for (let i = 0; i === 0 || i < change.records.length; i += COPY_SLICE) {
        this.emit({ t: 'changes', zoneId: tree.zoneId, serial: change.serial, records: change.records.slice(i, i + COPY_SLICE) });
      }
    }
    this.zones.invalidate(report.wholeZone ? { zoneId: tree.zoneId } : { zoneId: tree.zoneId, names: report.names });
    this.onNewSerial(tree);
  }

  /** Loads a zone whole and swaps it in; listeners get a reset and every record. */
  private async load(zoneId: string): Promise<void> {
    const started = performance.now();
    const tree = await loadZone(this.db, zoneId, this.edge, this.logger, this.image);
    recordZoneBuild('load', (performance.now() - started) / 1000);
    if (this.closed) return;
    if (!tree) { this.removeZone(zoneId); return; }
    this.zones.put(tree);
    tree.live?.();
    this.emit({ t: 'reset', zone: tree.zoneFields, edge: this.edge });
    if (tree.streamed) { await this.seedJournal(tree); this.onNewSerial(tree); return; }
    let slice: RecordChange[] = [];
    for (const r of tree.records()) {
      slice.push({ id: r.id, before: null, after: r });
      if (slice.length === COPY_SLICE) {
        this.emit({ t: 'changes', zoneId, serial: tree.serial, records: slice });
        slice = [];
        await new Promise<void>((resolve) => setImmediate(resolve));
      }
    }
    if (slice.length) this.emit({ t: 'changes', zoneId, serial: tree.serial, records: slice });
    await this.seedJournal(tree);
    this.onNewSerial(tree);
  }

  /** Keeps an IXFR journal entry a tree recorded (this thread's trees, and the DNS thread's reports). */
  readonly journalRecorded = (zoneId: string, entry: JournalEntry): void => this.journal?.save(zoneId, entry);

  /** Gives a loaded zone its kept IXFR history (the DNS thread's tree gets it through a `journal` update). */
  private async seedJournal(tree: ZoneImage): Promise<void> {
    const entries = this.journal && !this.closed ? await this.journal.load(tree.zoneId, tree instanceof ZoneTree ? tree.journalSerial : tree.serial).catch((err: unknown) => {
      this.logger.warn({ err, zoneId: tree.zoneId }, 'reading the kept IXFR journal failed; IXFR starts from now');
      return [];
    }) : [];
    if (entries.length === 0 || this.closed) return;
    if (tree instanceof ZoneTree) tree.journal.seed(entries);
    this.emit({ t: 'journal', zoneId: tree.zoneId, serial: tree.serial, entries });
  }

  private removeZone(zoneId: string): void {
    if (!this.zones.get(zoneId)) return;
    this.zones.remove(zoneId);
    this.emit({ t: 'remove', zoneId });
  }

  private emit(u: ZoneUpdate): void {
    for (const l of this.updateListeners) {
      try { l(u); } catch (err) { this.logger.error({ err }, 'zone update listener failed'); }
    }
  }

  /**
   * Queues work on a zone. Until the queue drains the zone's cached answers are void and its queries wait
   * (names in no zone wait too while the zone has no tree yet).
   */
  private enqueue(zoneId: string, task: () => Promise<void>): void {
    let q = this.queues.get(zoneId);
    if (!q) {
      q = { tail: Promise.resolve(), pending: 0 };
      this.queues.set(zoneId, q);
      if (!this.zones.get(zoneId)) this.unborn.add(zoneId);
      this.zones.invalidate(this.zones.get(zoneId) ? { zoneId } : {});
    }
    const queue = q;
    queue.pending++;
    queue.tail = queue.tail.then(() => (this.closed ? undefined : task())).then(() => {
      this.failing.delete(zoneId);
    }, (err: unknown) => this.failed(zoneId, err)).finally(() => {
      queue.pending--;
      if (queue.pending > 0 || this.queues.get(zoneId) !== queue) return;
      this.queues.delete(zoneId);
      this.unborn.delete(zoneId);
      this.tell(this.drainListeners);
      if (this.queues.size === 0) {
        for (const l of this.idleListeners) {
          try { l(); } catch (err) { this.logger.error({ err }, 'idle listener failed'); }
        }
      }
    });
  }

  private tell(listeners: ReadonlyArray<() => void>): void {
    for (const l of listeners) {
      try { l(); } catch (err) { this.logger.error({ err }, 'zone cache listener failed'); }
    }
  }

  /** Zone work failed: the zone answers from what it has, and is retried in the background. */
  private failed(zoneId: string, err: unknown): void {
    this.failing.add(zoneId);
    this.tell(this.drainListeners);
    // A database fault is logged once per outage by the health state; the zone keeps answering from its tree.
    if (!faultOf(err)) this.failures.failure(`zone update failed: ${(err as Error).message}`, err, 'zone update failed; the zone answers from what it has and is retried');
    if (this.retrying.has(zoneId)) return;
    this.retrying.add(zoneId);
    const retry = setTimeout(() => {
      this.retrying.delete(zoneId);
      if (!this.closed) this.markChanged(zoneId);
    }, RETRY_MS);
    retry.unref();
  }

  /** Compares every served zone's serial with the database and follows what changed (other nodes' writes). */
  async poll(): Promise<void> {
    if (this.polling || this.closed) return;
    this.polling = true;
    try {
      const rows = await servedZones(this.db);
      const seen = new Set(rows.map((r) => r.id));
      const { changed, ahead } = decidePoll(rows, (id) => this.zones.get(id)?.serial, (id) => this.queues.has(id), this.aheadSeen);
      for (const zoneId of changed) this.markChanged(zoneId);
      this.aheadSeen = ahead;
      for (const tree of this.zones.all()) if (!seen.has(tree.zoneId) && !this.queues.has(tree.zoneId)) this.removeZone(tree.zoneId);
      if (Date.now() - this.lastPrune >= PRUNE_EVERY_MS) {
        this.lastPrune = Date.now();
        await pruneChanges(this.db, Date.now() - this.retentionMs);
      }
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

  /** Stops polling and waits for zone work running. */
  async close(): Promise<void> {
    this.closed = true;
    if (this.pollTimer) clearInterval(this.pollTimer);
    await Promise.all([...this.queues.values()].map((q) => q.tail));
  }
}

/** The changeset a feed change carries, or undefined when it carries none (the zone must be read). */
function toLogged(change: ZoneChange): LoggedChange | undefined {
  // A created zone, or one whose status changed, is read again: served (loaded) or not (dropped).
  if (change.serial === undefined || change.kind === 'created' || change.kind === 'status') return undefined;
  if (change.kind === 'settings') return change.zone ? { serial: change.serial, zone: change.zone } : undefined;
  return change.records ? { serial: change.serial, records: change.records } : undefined;
}
