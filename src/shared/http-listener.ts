/** Starts a web-standard fetch handler on an HTTP listener (`@hono/node-server`) and reports where it listens. */
import type { AddressInfo } from 'node:net';
import type { ServerOptions } from 'node:http';
import { serve, type ServerType } from '@hono/node-server';

/** A running HTTP listener. */
export interface HttpListener {
  /** `http://host:port` (IPv6 hosts in brackets). */
  url: string;
  port: number;
  /** Stops accepting connections and waits for requests in flight (Node closes idle keep-alive connections). */
  close(): Promise<void>;
}

/** Listens on `host:port` (port 0 picks a free one); rejects when the address cannot be bound. */
export async function listenHttp(
  fetch: (req: Request) => Response | Promise<Response>,
  listen: { host: string; port: number },
  serverOptions?: ServerOptions,
  /** Serve requests whose `Expect` is not `100-continue` as if it were absent (S3 does) instead of Node's 417. */
  ignoreUnknownExpect = false,
): Promise<HttpListener> {
  const server = await new Promise<ServerType>((resolve, reject) => {
    const s = serve({ fetch, hostname: listen.host, port: listen.port, ...(serverOptions ? { serverOptions } : {}) }, () => resolve(s));
    s.once('error', reject);
  });
  if (ignoreUnknownExpect) server.on('checkExpectation', (req, res) => server.emit('request', req, res));
  const address = server.address() as AddressInfo;
  const host = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  return {
    url: `http://${host}:${address.port}`,
    port: address.port,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
