/** Runs the S3-compatible edge on its own HTTP listener (S3 clients address buckets from the root path or the host). */
import type { ListenAddress } from '../config/config.js';
import type { BucketStore } from '../store/index.js';
import type { Logger } from '../shared/logger.js';
import type { Clock } from '../shared/clock.js';
import { createS3Handler } from './app.js';
import { listenHttp, type HttpListener } from '../shared/http-listener.js';
import type { S3Credentials } from './credentials.js';

/** A running S3 listener. */
export type RunningS3 = HttpListener;

/** Starts the listener. */
export async function startS3Server(opts: { listen: ListenAddress; store: BucketStore; credentials: S3Credentials; region: string; domain?: string | undefined; logger: Logger; clock: Clock }): Promise<RunningS3> {
  const { credentials } = opts;
  const handler = createS3Handler({
    store: opts.store,
    secretFor: (id) => (id === credentials.accessKeyId ? credentials.secretAccessKey : undefined),
    logger: opts.logger.child({ component: 's3' }),
    region: opts.region,
    domain: opts.domain,
    now: () => opts.clock.now(),
  });
  return listenHttp(handler, opts.listen);
}
