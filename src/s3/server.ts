/** Runs the S3-compatible edge on its own HTTP listener (S3 clients address buckets from the root path or the host). */
import type { ListenAddress } from '../config/config.js';
import type { BucketStore } from '../store/index.js';
import type { Logger } from '../shared/logger.js';
import type { Clock } from '../shared/clock.js';
import { createS3Handler } from './app.js';
import { s3ParserError } from './errors.js';
import { listenHttp, type HttpListener } from '../http/http-listener.js';
import type { S3Credentials } from './credentials.js';
import type { S3Principal } from './context.js';
import type { TempCredentials } from './temp-credentials.js';
import type { Limits } from '../limits/limits.js';

/** A running S3 listener. */
export type RunningS3 = HttpListener;

/** Options of {@link startS3Server}. */
export interface S3ServerOptions {
  listen: ListenAddress;
  store: BucketStore;
  /** The instance's own key pair (may do everything in the admin's account). */
  credentials: S3Credentials;
  /** The admin's account: the instance key pair acts for it. */
  adminAccountId: string;
  /** Temporary credentials (`temp-credentials.ts`): requests carrying a session token. */
  tempCredentials?: TempCredentials;
  /** Key pairs derived from API tokens (`TokensService.s3Principal`), when the v4 API's tokens are served too. */
  tokenPrincipal?: (accessKeyId: string, fresh?: boolean) => Promise<S3Principal | undefined>;
  region: string;
  domain?: string | undefined;
  /** HTTPS with this certificate and key (`shared/tls-files.ts`). */
  tls?: { cert: Buffer; key: Buffer } | undefined;
  logger: Logger;
  clock: Clock;
  /** Limits on abuse (limits/limits.ts). */
  limits?: Limits;
}

/** Starts the listener. */
export async function startS3Server(opts: S3ServerOptions): Promise<RunningS3> {
  const { credentials } = opts;
  const handler = createS3Handler({
    store: opts.store,
    defaultAccountId: opts.adminAccountId,
    principalFor: async (id, session, fresh) => {
      if (id === credentials.accessKeyId) return { secret: credentials.secretAccessKey };
      if (session !== undefined) return opts.tempCredentials?.principal(id, session);
      return opts.tokenPrincipal?.(id, fresh);
    },
    logger: opts.logger.child({ component: 's3' }),
    region: opts.region,
    domain: opts.domain,
    now: () => opts.clock.now(),
    ...(opts.limits ? { limits: opts.limits } : {}),
  });
  return listenHttp(handler, opts.listen, {
    parserError: s3ParserError, ignoreUnknownExpect: true, observe: { listener: 's3', logger: opts.logger }, ...(opts.tls ? { tls: opts.tls } : {}),
  });
}
