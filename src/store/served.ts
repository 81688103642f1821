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

/** Where the served store keeps metadata and bodies. */
export interface ServedStoreOptions {
  dataDir: string;
  databaseUrl: string | undefined;
  blobsDir: string;
  blobsS3: BlobsS3Config | undefined;
  clock: Clock;
  logger: Logger;
  /** Period of the lifecycle pass (default 10 minutes; 0: off). */
  lifecycleIntervalMs?: number;
}

/** Opens the configured store; its `close()` also releases the adapters' connections. */
export async function openServedBucketStore(opts: ServedStoreOptions): Promise<BucketStore> {
  const { logger } = opts;
  const meta = opts.databaseUrl
    ? await PostgresMetadataStore.connect(opts.databaseUrl, { onConnectionLost: (err) => logger.warn({ err }, 'PostgreSQL closed an idle connection of the bucket store') })
    : SqliteMetadataStore.inDataDir(opts.dataDir);
  const b = opts.blobsS3;
  const s3Blobs = b
    ? new S3BlobStore({
        bucket: b.bucket, region: b.region, prefix: b.prefix, forcePathStyle: b.forcePathStyle,
        ...(b.endpoint !== undefined ? { endpoint: b.endpoint } : {}),
        ...(b.credentials ? { credentials: b.credentials } : {}),
      })
    : undefined;
  const store = await openBucketStore({
    dataDir: opts.dataDir, clock: opts.clock, logger, lifecycleIntervalMs: opts.lifecycleIntervalMs ?? 10 * 60 * 1000,
    adapters: { meta, blobs: s3Blobs ?? new FileBlobStore(opts.blobsDir) },
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
