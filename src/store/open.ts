/** Opens a data folder as a set of buckets. */
import { systemClock, type Clock } from '../shared/clock.js';
import { silentLogger, type Logger } from '../shared/logger.js';
import { randomUUID } from 'node:crypto';
import type { BucketNamespace, BucketOptions, BucketStore, StoreBucket, SweepReport } from './types.js';
import type { BlobStore, MetadataStore } from './ports.js';
import { SqliteMetadataStore } from './adapters/sqlite-metadata.js';
import { FileBlobStore } from './adapters/file-blobs.js';
import { Collector } from './gc.js';
import { Bucket } from './bucket.js';
import type { BucketSettings, StoreContext } from './context.js';
import { NO_FAULT_REPORTER, type FaultReporter } from '../shared/faults.js';
import { bucketInfo, createBucket, deleteBucket, getBucketCors, listBuckets, listParts, listUploads, putBucketCors, toInfo, uploadOutcome, deleteObjectsIf, objectParts } from './registry.js';
import { getBucketLifecycle, putBucketLifecycle, setBucketStorageClass } from './bucket-settings.js';
import { accountNamespace } from './namespace.js';
import { applyLifecycle } from './lifecycle/sweeper.js';
import { dataPath, BLOBS } from '../shared/data-dir.js';

/** Options of {@link openBucketStore}. */
export interface OpenBucketStoreOptions {
  /** Folder holding `buckets.sqlite` and `blobs/`. */
  dataDir: string;
  clock?: Clock;
  logger?: Logger;
  /** Blob files younger than this are never swept as orphans (another process may be about to commit them). Default 15 minutes. */
  orphanGraceMs?: number;
  /** Delay before a replaced blob is deleted (readers in other processes may still open it). Default 2 s. */
  gcDelayMs?: number;
  /** Period of the light maintenance (expire uploads, delete garbage) while open. Default 1 hour; 0 disables. */
  maintenanceIntervalMs?: number;
  /** Period of the lifecycle pass (`applyLifecycle`) while open. Default 0: off (`stratus serve` turns it on). */
  lifecycleIntervalMs?: number;
  /** Run the sweep when opening (in the background; `close()` waits for it). Default true. */
  sweepOnOpen?: boolean;
  /** Other adapters (tests, scale-out); default: SQLite and files in `dataDir`. */
  adapters?: { meta: MetadataStore; blobs: BlobStore };
  /** Told of faults of the local disk and of the next successful write (the health state). */
  health?: FaultReporter;
}

/** The date from which list honours `include` without a flag. */
const HONOR_INCLUDE_FROM = '2022-08-04';

function settingsFor(name: string, opts: BucketOptions | undefined, clock: Clock): BucketSettings {
  const flags = new Set(opts?.compatibilityFlags ?? []);
  const date = opts?.compatibilityDate ?? clock.now().toISOString().slice(0, 10);
  const cls = opts?.defaultStorageClass ?? 'Standard';
  if (cls !== 'Standard' && cls !== 'InfrequentAccess') throw new TypeError(`Unknown storage class ${String(cls)}: use Standard or InfrequentAccess`);
  return {
    name: String(name),
    honorInclude: date >= HONOR_INCLUDE_FROM || flags.has('store_list_honor_include'),
    keepDelimiter: flags.has('store_list_prefixes_keep_delimiter'),
    defaultStorageClass: cls,
  };
}

/**
 * Opens (creating if needed) the bucket store in `dataDir`. Safe to call from several processes and threads at
 * once. Its own `bucket(name)`, `listBuckets()`… are the flat namespace of buckets of no account; `forAccount(id)`
 * is an account's, the buckets `stratus serve` (S3, v4, deployed scripts) and `stratus dev` use.
 */
export async function openBucketStore(opts: OpenBucketStoreOptions): Promise<BucketStore> {
  const clock = opts.clock ?? systemClock;
  const logger = (opts.logger ?? silentLogger()).child({ component: 'store' });
  const meta = opts.adapters?.meta ?? SqliteMetadataStore.inDataDir(opts.dataDir);
  const blobs = opts.adapters?.blobs ?? new FileBlobStore(dataPath(opts.dataDir, BLOBS));
  const collector = new Collector(meta, blobs, clock, logger, {
    gcDelayMs: opts.gcDelayMs ?? 2000,
    orphanGraceMs: opts.orphanGraceMs ?? 15 * 60 * 1000,
  });
  const ctx: StoreContext = { meta, blobs, clock, logger, collector, health: opts.health ?? NO_FAULT_REPORTER };
  if (opts.sweepOnOpen !== false) collector.track(collector.sweep());
  const interval = opts.maintenanceIntervalMs ?? 60 * 60 * 1000;
  const timer = interval > 0 ? setInterval(() => collector.track(collector.maintain()), interval) : undefined;
  timer?.unref();
  const lifecycleEvery = opts.lifecycleIntervalMs ?? 0;
  const holder = randomUUID();
  const lifecycleTimer = lifecycleEvery > 0 ? setInterval(() => collector.track(applyLifecycle(ctx, holder)), lifecycleEvery) : undefined;
  lifecycleTimer?.unref();
  let closed = false;
  const live = (): StoreContext => {
    if (closed) throw new Error('The bucket store is closed');
    return ctx;
  };
  const root: BucketNamespace = {
    bucket(name: string, bucketOpts?: BucketOptions): StoreBucket {
      return new Bucket(live(), settingsFor(name, bucketOpts, clock));
    },
    listBuckets: async () => listBuckets(live()),
    createBucket: async (name, createOpts) => createBucket(live(), name, createOpts),
    deleteBucket: async (name) => deleteBucket(live(), name),
    bucketInfo: async (name) => bucketInfo(live(), name),
    getBucketCors: async (name) => getBucketCors(live(), name),
    putBucketCors: async (name, rules) => putBucketCors(live(), name, rules),
    listUploads: async (bucket, listOpts) => listUploads(live(), bucket, listOpts),
    listParts: async (bucket, key, uploadId, partOpts) => listParts(live(), bucket, key, uploadId, partOpts),
    uploadOutcome: async (bucket, key, uploadId, opts) => uploadOutcome(live(), bucket, key, uploadId, opts),
    deleteObjectsIf: async (bucket, entries) => deleteObjectsIf(live(), bucket, entries),
    objectParts: async (bucket, key) => objectParts(live(), bucket, key),
    getBucketLifecycle: async (name) => getBucketLifecycle(live(), name),
    putBucketLifecycle: async (name, rules) => putBucketLifecycle(live(), name, rules),
    setBucketStorageClass: async (name, cls) => setBucketStorageClass(live(), name, cls),
  };
  const listPrefixed = async (prefix: string) => (await live().meta.listBuckets(prefix)).map((b) => toInfo(b));
  return {
    ...root,
    forAccount: (accountId) => accountNamespace(root, listPrefixed, accountId),
    adoptBuckets: async (accountId) => live().meta.adoptBuckets(accountId),
    applyLifecycle: async () => collector.track(applyLifecycle(live(), holder)),
    sweep(): Promise<SweepReport> {
      return collector.track(collector.sweep());
    },
    async close(): Promise<void> {
      if (closed) return;
      closed = true;
      if (timer) clearInterval(timer);
      if (lifecycleTimer) clearInterval(lifecycleTimer);
      await collector.close();
      await meta.close();
    },
  };
}
