/** What every bucket operation needs: the two stores, time, logging, the collector, bucket settings. */
import type { Clock } from '../shared/clock.js';
import type { Logger } from '../shared/logger.js';
import type { Collector } from './gc.js';
import type { BlobStore, MetadataStore } from './ports.js';
import { fail } from './errors.js';
import type { StorageClass } from './types.js';
import type { FaultReporter } from '../shared/faults.js';

/** Shared services of an open store. */
export interface StoreContext {
  meta: MetadataStore;
  blobs: BlobStore;
  clock: Clock;
  logger: Logger;
  collector: Collector;
  /** Told of faults of the local disk (full, I/O errors) and of the next successful write. */
  health: FaultReporter;
}

/** Settings of one bound bucket, resolved from its BucketOptions. */
export interface BucketSettings {
  name: string;
  /** list honours `include` (compatibility date >= 2022-08-04 or flag `store_list_honor_include`). */
  honorInclude: boolean;
  /** delimitedPrefixes keep the trailing delimiter (flag `store_list_prefixes_keep_delimiter`). */
  keepDelimiter: boolean;
  defaultStorageClass: StorageClass;
}

/** Largest single put or part: 5 GiB - 5 MiB. */
export const MAX_PUT_BYTES = 5 * 1024 ** 3 - 5 * 1024 ** 2;

/** Validates a storage class (only the documented two), defaulting to the bucket's. */
export function resolveStorageClass(value: unknown, settings: BucketSettings): StorageClass {
  if (value === undefined) return settings.defaultStorageClass;
  if (value === 'Standard' || value === 'InfrequentAccess') return value;
  fail('InvalidArgument', `The storage class you specified is not valid: ${String(value)}. Use Standard or InfrequentAccess.`);
}
