/** Opens a data folder as a set of buckets. */
import type { Clock } from '../shared/clock.js';
import type { Logger } from '../shared/logger.js';
import type { BucketStore } from './types.js';

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
}

/** Opens (creating if needed) the bucket store in `dataDir`. Safe to call from several processes at once. */
export async function openBucketStore(opts: OpenBucketStoreOptions): Promise<BucketStore> {
  void opts;
  throw new Error('openBucketStore: not implemented yet');
}
