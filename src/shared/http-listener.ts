/** Starts a web-standard fetch handler on an HTTP listener (`@hono/node-server`) and reports where it listens. */
import type { AddressInfo } from 'node:net';
import type { Server, ServerOptions } from 'node:http';
import { serve, type ServerType } from '@hono/node-server';
import { observeHttp, type HttpObservation } from '../ops/http-observer.js';

/** A running HTTP listener. */
export interface HttpListener {
  /** `http://host:port` (IPv6 hosts in brackets). */
  url: string;
  port: number;
  /**
   * Stops accepting connections and waits for the requests in flight; keep-alive connections are closed as
   * soon as they are idle. After `graceMs` (default: no limit) the connections still open are closed.
   */
  close(graceMs?: number): Promise<void>;
}

/** How often a closing listener closes the keep-alive connections that became idle. */
const IDLE_SWEEP_MS = 50;

/**
 * Listens on `host:port` (port 0 picks a free one); rejects when the address cannot be bound. With `observe`,
 * every request gets an access-log line and is counted in the metrics (ops/http-observer.ts).
 */
export async function listenHttp(
  fetch: (req: Request, env?: unknown) => Response | Promise<Response>,
  listen: { host: string; port: number },
  serverOptions?: ServerOptions,
  observe?: HttpObservation,
): Promise<HttpListener> {
  const server = await new Promise<ServerType>((resolve, reject) => {
    let handler = fetch;
    const s = serve({ fetch: (req, env) => handler(req, env), hostname: listen.host, port: listen.port, ...(serverOptions ? { serverOptions } : {}) }, () => resolve(s));
    if (observe) handler = observeHttp(s as Server, fetch, observe);
    s.once('error', reject);
  });
  const address = server.address() as AddressInfo;
  const host = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  let closing: Promise<void> | undefined;
  return {
    url: `http://${host}:${address.port}`,
    port: address.port,
    close: (graceMs) => (closing ??= closeGracefully(server as Server, graceMs)),
  };
}

/** server.close(), then idle connections closed as they appear, and every connection once `graceMs` is over. */
function closeGracefully(server: Server, graceMs: number | undefined): Promise<void> {
  return new Promise<void>((resolve) => {
    const sweep = setInterval(() => server.closeIdleConnections(), IDLE_SWEEP_MS);
    const deadline = graceMs === undefined ? undefined : setTimeout(() => server.closeAllConnections(), graceMs);
    server.close(() => {
      clearInterval(sweep);
      if (deadline) clearTimeout(deadline);
      resolve();
    });
    server.closeIdleConnections();
  });
}
