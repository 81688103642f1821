/** Runs the S3-compatible edge on its own HTTP listener (S3 clients address buckets from the root path or the host). */
import type { ListenAddress } from '../config/config.js';
import type { BucketStore } from '../store/index.js';
import type { Logger } from '../shared/logger.js';
import type { Clock } from '../shared/clock.js';
import { createS3Handler } from './app.js';
import { listenHttp, type HttpListener } from '../shared/http-listener.js';
import type { S3Credentials } from './credentials.js';
import type { S3Principal } from './context.js';

/** A running S3 listener. */
export type RunningS3 = HttpListener;

/** Options of {@link startS3Server}. */
export interface S3ServerOptions {
  listen: ListenAddress;
  store: BucketStore;
  /** The instance's own key pair (may do everything). */
  credentials: S3Credentials;
  /** Key pairs derived from API tokens (`TokensService.s3Principal`), when the v4 API's tokens are served too. */
  tokenPrincipal?: (accessKeyId: string) => Promise<S3Principal | undefined>;
  region: string;
  domain?: string | undefined;
  logger: Logger;
  clock: Clock;
}

/** Starts the listener. */
export async function startS3Server(opts: S3ServerOptions): Promise<RunningS3> {
  const { credentials } = opts;
  const handler = createS3Handler({
    store: opts.store,
    principalFor: async (id) => (id === credentials.accessKeyId ? { secret: credentials.secretAccessKey } : opts.tokenPrincipal?.(id)),
    logger: opts.logger.child({ component: 's3' }),
    region: opts.region,
    domain: opts.domain,
    now: () => opts.clock.now(),
  });
  return listenHttp(handler, opts.listen, undefined, true);
}
