/**
 * Applies buckets' lifecycle rules: deletes objects past their age or date, moves objects to
 * InfrequentAccess, aborts multipart uploads past their age. Safe with several processes or nodes on one
 * metadata store:
 *  - a bucket is swept by the holder of its lease (`lifecycle:<bucket>`, renewed every page), so one node
 *    acts on a bucket at a time, and another takes over once a crashed holder's lease runs out;
 *  - every action is one atomic conditional step on the version that was judged (`deleteObjectVersion`,
 *    `setObjectStorageClass`, `abortUpload` of an active upload): an object overwritten since is left alone,
 *    and an action that already happened is not repeated, so a crash halfway loses nothing and a second node
 *    racing the first (after a lease ran out) deletes nothing twice.
 * Deleted bodies go to the garbage list in the same transaction, like any delete.
 */
import type { StoreContext } from '../context.js';
import type { LifecycleReport } from '../types.js';
import { objectDecision, rulePrefixes, uploadAborted, type LifecycleRule } from './rules.js';

/** How long a bucket's lease lasts without renewal. */
export const LIFECYCLE_LEASE_MS = 5 * 60 * 1000;
/** Rows judged per page. */
const PAGE = 500;

/** One pass over every bucket with rules; `holder` names this process in the leases. */
export async function applyLifecycle(ctx: StoreContext, holder: string): Promise<LifecycleReport> {
  const report: LifecycleReport = { deletedObjects: 0, transitionedObjects: 0, abortedUploads: 0 };
  for (const bucket of await ctx.meta.bucketsWithLifecycle()) {
    const lease = (): Promise<boolean> => ctx.meta.takeLease(`lifecycle:${bucket}`, holder, ctx.clock.now().getTime(), LIFECYCLE_LEASE_MS);
    if (!(await lease())) continue;
    const stored = await ctx.meta.getBucketLifecycle(bucket);
    if (stored === null) continue;
    const rules = JSON.parse(stored) as LifecycleRule[];
    let held = true;
    for (const prefix of rulePrefixes(rules, 'objects')) {
      if (held) held = await sweepObjects(ctx, bucket, rules, prefix, lease, report);
    }
    for (const prefix of rulePrefixes(rules, 'uploads')) {
      if (held) held = await sweepUploads(ctx, bucket, rules, prefix, lease, report);
    }
  }
  if (report.deletedObjects + report.abortedUploads > 0) ctx.collector.schedule();
  return report;
}

/** Judges the objects under `prefix`, page by page; false when the lease was lost. */
async function sweepObjects(ctx: StoreContext, bucket: string, rules: LifecycleRule[], prefix: string, lease: () => Promise<boolean>, report: LifecycleReport): Promise<boolean> {
  let after: string | undefined;
  for (;;) {
    const page = await ctx.meta.scanObjects(bucket, { prefix, after, limit: PAGE });
    const now = ctx.clock.now().getTime();
    for (const o of page) {
      const decision = objectDecision(rules, o.key, o.uploaded, o.storageClass, now);
      if (decision === 'delete' && (await ctx.meta.deleteObjectVersion(bucket, o.key, o.version))) report.deletedObjects++;
      if (decision === 'transition' && (await ctx.meta.setObjectStorageClass(bucket, o.key, o.version, 'InfrequentAccess'))) report.transitionedObjects++;
    }
    if (page.length < PAGE) return true;
    after = page[page.length - 1]!.key;
    if (!(await lease())) return false;
  }
}

/** Judges the active uploads under `prefix`, page by page; false when the lease was lost. */
async function sweepUploads(ctx: StoreContext, bucket: string, rules: LifecycleRule[], prefix: string, lease: () => Promise<boolean>, report: LifecycleReport): Promise<boolean> {
  let keyMarker: string | undefined;
  let uploadIdMarker: string | undefined;
  for (;;) {
    const page = await ctx.meta.listUploads(bucket, { prefix, keyMarker, uploadIdMarker, limit: PAGE });
    const now = ctx.clock.now().getTime();
    for (const u of page) {
      if (!uploadAborted(rules, u.key, u.created, now)) continue;
      const before = await ctx.meta.abortUpload(bucket, u.uploadId, u.key);
      if (before?.state === 'active') report.abortedUploads++;
    }
    if (page.length < PAGE) return true;
    keyMarker = page[page.length - 1]!.key;
    uploadIdMarker = page[page.length - 1]!.uploadId;
    if (!(await lease())) return false;
  }
}
