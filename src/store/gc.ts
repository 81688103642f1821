/**
 * Background deletion of blobs and the sweep. Three kinds of leftovers:
 *  - garbage: blobs a committed transaction stopped referencing (recorded in that same transaction), deleted
 *    `gcDelayMs` later so that a reader in another process that just looked the row up can still open them;
 *  - orphans: blob files no row references (a writer died between the blob and the commit), deleted only when
 *    older than `orphanGraceMs`, because a live writer in another process may be about to commit one;
 *  - expired uploads: active multipart uploads older than 7 days are aborted.
 */
import type { Logger } from '../shared/logger.js';
import type { Clock } from '../shared/clock.js';
import type { BlobStore, MetadataStore } from './ports.js';
import type { SweepReport } from './types.js';
import { faultOf } from '../shared/faults.js';
import { IncidentLog } from '../shared/incident-log.js';

/** Extra wait of a scheduled garbage pass beyond `gcDelayMs` (see {@link Collector.schedule}). */
const GC_TIMER_MARGIN_MS = 25;

/** How long an uncompleted multipart upload lives. */
export const UPLOAD_MAX_AGE_MS = 7 * 24 * 60 * 60 * 1000;

/** Settings of the collector. */
export interface CollectorOptions {
  gcDelayMs: number;
  orphanGraceMs: number;
}

/** Deletes unreferenced blobs, in the background and on demand. */
export class Collector {
  private readonly timers = new Set<NodeJS.Timeout>();
  private readonly running = new Set<Promise<unknown>>();
  private closed = false;
  private readonly failures: IncidentLog;

  constructor(
    private readonly meta: MetadataStore,
    private readonly blobs: BlobStore,
    private readonly clock: Clock,
    private readonly logger: Logger,
    private readonly opts: CollectorOptions,
  ) {
    this.failures = new IncidentLog(logger);
  }

  /** Tracks a background task so that close() can wait for it. */
  track<T>(p: Promise<T>): Promise<T> {
    const guarded = p.catch((err: unknown) => {
      // A store fault is logged once per outage by the health state; the work is retried on the next pass.
      if (!faultOf(err)) this.failures.failure('store background task failed', err);
    });
    this.running.add(guarded);
    void guarded.finally(() => this.running.delete(guarded));
    return p;
  }

  /** Deletes a blob that never got committed (failed precondition or validation). */
  discard(blobId: string): void {
    if (this.closed) return;
    this.track(this.blobs.delete(blobId));
  }

  /**
   * Schedules a garbage pass after the delay. The timer runs on the monotonic clock while garbage rows carry
   * `Date.now()`, which can lag it by a millisecond or so; a small margin keeps the pass from finding the
   * row not yet due and leaving it to the hourly maintenance.
   */
  schedule(): void {
    if (this.closed) return;
    const timer = setTimeout(() => {
      this.timers.delete(timer);
      this.track(this.collectGarbage());
    }, this.opts.gcDelayMs + GC_TIMER_MARGIN_MS);
    timer.unref();
    this.timers.add(timer);
  }

  /** Deletes garbage blobs recorded at least `gcDelayMs` ago. Returns how many. */
  async collectGarbage(): Promise<number> {
    let total = 0;
    for (;;) {
      const ids = await this.meta.takeGarbage(Date.now() - this.opts.gcDelayMs, 500);
      if (ids.length === 0) return total;
      for (const id of ids) await this.blobs.delete(id);
      await this.meta.dropGarbage(ids);
      total += ids.length;
      if (ids.length < 500) return total;
    }
  }

  /** Deletes blob files no row references and older than the grace period. Returns how many. */
  async sweepOrphans(): Promise<number> {
    const before = Date.now() - this.opts.orphanGraceMs;
    let removed = await this.blobs.sweepIncomplete(before);
    let batch: string[] = [];
    const flush = async (): Promise<void> => {
      const referenced = await this.meta.referencedBlobs(batch);
      for (const id of batch) {
        if (referenced.has(id)) continue;
        await this.blobs.delete(id);
        removed++;
      }
      batch = [];
    };
    for await (const { blobId, created } of this.blobs.list()) {
      if (created >= before) continue;
      batch.push(blobId);
      if (batch.length >= 500) await flush();
    }
    if (batch.length) await flush();
    return removed;
  }

  /** The light periodic pass: expire old uploads and delete garbage (no scan of every blob). */
  async maintain(): Promise<void> {
    if (this.closed) return;
    await this.meta.expireUploads(this.clock.now().getTime() - UPLOAD_MAX_AGE_MS);
    await this.collectGarbage();
  }

  /** Runs every kind of cleanup once. */
  async sweep(): Promise<SweepReport> {
    const expiredUploads = await this.meta.expireUploads(this.clock.now().getTime() - UPLOAD_MAX_AGE_MS);
    const garbageBlobs = await this.collectGarbage();
    const orphanBlobs = await this.sweepOrphans();
    return { orphanBlobs, garbageBlobs, expiredUploads };
  }

  /** Stops timers and waits for running tasks; pending garbage stays recorded for the next open. */
  async close(): Promise<void> {
    this.closed = true;
    for (const t of this.timers) clearTimeout(t);
    this.timers.clear();
    while (this.running.size) await Promise.all([...this.running]);
  }
}
