/** What the v4 API edge is built from; `main.ts` fills it in. */
import type { NameServerAssignments } from '../zones/name-server-assignments.js';
import type { Kysely } from 'kysely';
import type { Config } from '../config/config.js';
import type { Database } from '../db/schema.js';
import type { Clock } from '../shared/clock.js';
import type { Logger } from '../shared/logger.js';
import type { ZoneChangeFeed } from '../zones/change-feed.js';
import type { BucketStore } from '../store/index.js';
import type { TempCredentials } from '../s3/temp-credentials.js';
import type { EdgeChanges } from '../db/edge-serial.js';
import type { BucketDomains } from '../scripts/bucket-domains.js';
import type { SecretBox } from '../shared/secret-box.js';
import type { BucketDirectory } from '../scripts/scripts-service.js';
import type { Limits } from '../limits/limits.js';
import type { Certificates } from '../certs/certificate-service.js';
import type { DnsQuery } from './dns-query.js';

/** Dependencies of the v4 API. */
export interface ApiDeps {
  config: Config;
  clock: Clock;
  logger: Logger;
  db: Kysely<Database>;
  /** Where committed zone changes are announced (the DNS server listens). */
  changeFeed: ZoneChangeFeed;
  /** The bucket store, when buckets are served: mounts the `/accounts/:account_id/r2/…` routes. */
  store?: BucketStore;
  /** Issues temporary S3 credentials (`POST /accounts/:account_id/r2/temp-access-credentials`), with `store`. */
  tempCredentials?: TempCredentials;
  /** The edge's control plane: where committed changes are announced, the secrets key, the buckets bindings may name. */
  edge: { changes: EdgeChanges; box: SecretBox; buckets: BucketDirectory; domains?: BucketDomains };
  /** Failed-authentication throttle and per-user request rate (limits/); absent: no limits. */
  limits?: Limits;
  /** The name server pairs of accounts (the one main.ts gave the admin's pair through); absent: made from the config. */
  nameServers?: NameServerAssignments;
  /** The S3 listener once it listens (the dashboard's uploads in parts go there); absent or undefined: none. */
  s3Listener?: () => { port: number; tls: boolean } | undefined;
  /** The certificate room (src/certs/): mounts the SSL and custom certificate routes. */
  certificates?: Certificates;
  /** Answers DNS messages as the DNS server does: mounts DNS-over-HTTPS at `/dns-query` (dns-query.ts). */
  dnsQuery?: DnsQuery;
}
