/** Runs the S3-compatible edge on its own HTTP listener (S3 clients address buckets from the root path). */
import type { AddressInfo } from 'node:net';
import { serve, type ServerType } from '@hono/node-server';
import type { ListenAddress } from '../config/config.js';
import type { BucketStore } from '../store/index.js';
import type { Logger } from '../shared/logger.js';
import type { Clock } from '../shared/clock.js';
import { createS3Handler } from './app.js';
import type { S3Credentials } from './credentials.js';

/** A running S3 listener. */
export interface RunningS3 {
  /** `http://host:port` */
  url: string;
  port: number;
  close(): Promise<void>;
}

/** Starts the listener. */
export async function startS3Server(opts: { listen: ListenAddress; store: BucketStore; credentials: S3Credentials; region: string; logger: Logger; clock: Clock }): Promise<RunningS3> {
  const { credentials } = opts;
  const handler = createS3Handler({
    store: opts.store,
    secretFor: (id) => (id === credentials.accessKeyId ? credentials.secretAccessKey : undefined),
    logger: opts.logger.child({ component: 's3' }),
    region: opts.region,
    now: () => opts.clock.now(),
  });
  const server = await new Promise<ServerType>((resolve, reject) => {
    const s = serve({ fetch: handler, hostname: opts.listen.host, port: opts.listen.port }, () => resolve(s));
    s.once('error', reject);
  });
  const address = server.address() as AddressInfo;
  const host = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  return {
    url: `http://${host}:${address.port}`,
    port: address.port,
    close: () => new Promise<void>((resolve) => {
      server.close(() => resolve());
      (server as unknown as { closeAllConnections?: () => void }).closeAllConnections?.();
    }),
  };
}
