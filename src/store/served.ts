/**
 * The bucket store `stratus serve` runs on: metadata in PostgreSQL when a database URL is given (nodes share
 * it) or in the data folder's SQLite file, bodies in an S3-compatible store when one is configured or in the
 * blobs folder. Bodies in S3 cannot be read after their deletion (there is no open file to keep), so replaced
 * bodies wait S3_GC_DELAY_MS before they go, which covers reads in flight.
 */
import type { Clock } from '../shared/clock.js';
import type { Logger } from '../shared/logger.js';
import type { BlobsS3Config } from '../config/config.js';
import type { BucketStore } from './types.js';
import { openBucketStore } from './open.js';
import { PostgresMetadataStore } from './adapters/postgres-metadata.js';
import { SqliteMetadataStore } from './adapters/sqlite-metadata.js';
import { FileBlobStore } from './adapters/file-blobs.js';
import { S3BlobStore, S3_GC_DELAY_MS } from './adapters/s3-blobs.js';
import type { FaultReporter } from '../shared/faults.js';

/** Where the served store keeps metadata and bodies. */
export interface ServedStoreOptions {
  dataDir: string;
  databaseUrl: string | undefined;
  blobsDir: string;
  blobsS3: BlobsS3Config | undefined;
  clock: Clock;
  logger: Logger;
  /** Told of faults of the database, the blob store and the disk, and of recoveries. */
  health?: FaultReporter;
  /** A PostgreSQL query without an answer this long breaks its connection (ms). */
  databaseQueryTimeoutMs?: number;
  /** Period of the lifecycle pass (default 10 minutes; 0: off). */
  lifecycleIntervalMs?: number;
}

/** Opens the configured store; its `close()` also releases the adapters' connections. */
export async function openServedBucketStore(opts: ServedStoreOptions): Promise<BucketStore> {
  const { logger } = opts;
  const meta = opts.databaseUrl
    ? await PostgresMetadataStore.connect(opts.databaseUrl, {
      ...(opts.health ? { health: opts.health } : {}),
      ...(opts.databaseQueryTimeoutMs !== undefined ? { queryTimeoutMs: opts.databaseQueryTimeoutMs } : {}),
    })
    : SqliteMetadataStore.inDataDir(opts.dataDir);
  const b = opts.blobsS3;
  const s3Blobs = b
    ? new S3BlobStore({
        bucket: b.bucket, region: b.region, prefix: b.prefix, forcePathStyle: b.forcePathStyle,
        ...(b.endpoint !== undefined ? { endpoint: b.endpoint } : {}),
        ...(b.credentials ? { credentials: b.credentials } : {}),
        ...(opts.health ? { health: opts.health } : {}),
      })
    : undefined;
  const store = await openBucketStore({
    dataDir: opts.dataDir, clock: opts.clock, logger, lifecycleIntervalMs: opts.lifecycleIntervalMs ?? 10 * 60 * 1000,
    adapters: { meta, blobs: s3Blobs ?? new FileBlobStore(opts.blobsDir) },
    ...(opts.health ? { health: opts.health } : {}),
    ...(s3Blobs ? { gcDelayMs: S3_GC_DELAY_MS } : {}),
  });
  return {
    ...store,
    async close() {
      await store.close();
      s3Blobs?.destroy();
    },
  };
}
