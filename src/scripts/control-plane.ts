/**
 * The edge's control plane as `main.ts` starts it: the secrets key (configured or generated), the change
 * announcements shared by the v4 Workers routes and the catalog, the buckets bindings may name, and the
 * catalog the runtime reads (polling the edge serial for other nodes' changes).
 */
import type { Kysely } from 'kysely';
import type { Database } from '../db/schema.js';
import type { Logger } from '../shared/logger.js';
import type { ZoneChangeFeed } from '../zones/change-feed.js';
import type { BucketStore } from '../store/types.js';
import { EdgeChanges } from '../db/edge-serial.js';
import { SecretBox, resolveSecretsKey } from '../shared/secret-box.js';
import { DatabaseEdgeCatalog } from './catalog.js';
import type { BucketDirectory } from './scripts-service.js';
import { BucketDomains } from './bucket-domains.js';
import { systemClock, type Clock } from '../shared/clock.js';

/** What it is started from. */
export interface ControlPlaneOptions {
  db: Kysely<Database>;
  dataDir: string;
  /** `--secrets-key`, if given. */
  secretsKey: string | undefined;
  /** The key already resolved from `secretsKey` and the data folder (main.ts resolves it before the DNS server starts). */
  resolvedKey?: { key: Buffer; generatedFile?: string };
  workersDomain: string;
  /** `--public-domain`: buckets' development hostnames. */
  publicDomain: string;
  clock?: Clock;
  logger: Logger;
  zoneChanges: ZoneChangeFeed;
  store: BucketStore;
}

/** A started control plane. */
export interface ControlPlane {
  /** What the v4 API's Workers routes need (`ApiDeps.edge`). */
  apiDeps: { changes: EdgeChanges; box: SecretBox; buckets: BucketDirectory; domains: BucketDomains };
  catalog: DatabaseEdgeCatalog;
  /** The file the secrets key was generated into at this start, if it was. */
  generatedSecretsKeyFile: string | undefined;
  close(): void;
}

/** Starts the control plane (throws when the configured or saved key is unusable). */
export function startControlPlane(opts: ControlPlaneOptions): ControlPlane {
  const key = opts.resolvedKey ?? resolveSecretsKey({ dataDir: opts.dataDir, configured: opts.secretsKey });
  const box = new SecretBox(key.key);
  const changes = new EdgeChanges();
  // A binding names a bucket of the script's own account (bucket names are per account).
  const buckets: BucketDirectory = { exists: async (accountId, name) => (await opts.store.forAccount(accountId).bucketInfo(name)) !== null };
  const domains = new BucketDomains(opts.db, opts.clock ?? systemClock, changes, opts.publicDomain);
  const catalog = new DatabaseEdgeCatalog({ db: opts.db, box, changes, workersDomain: opts.workersDomain, logger: opts.logger, zoneChanges: opts.zoneChanges, domains,
    bucketCreated: async (accountId, name) => (await opts.store.forAccount(accountId).bucketInfo(name))?.created.toISOString() ?? null });
  catalog.start();
  return { apiDeps: { changes, box, buckets, domains }, catalog, generatedSecretsKeyFile: key.generatedFile, close: () => catalog.close() };
}
