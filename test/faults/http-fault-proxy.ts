/**
 * An HTTP proxy in front of an S3 endpoint that the test can make fail: in `fail` mode every request is
 * answered 500 InternalError (S3's XML), as a sick S3 service answers; `requestsFailed` counts them, so a
 * test sees the client's retries.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';

/** A running fault proxy. */
export interface HttpFaultProxy {
  url: string;
  setMode(mode: 'pass' | 'fail'): void;
  /** Requests answered 500 so far. */
  readonly requestsFailed: number;
  close(): Promise<void>;
}

const INTERNAL_ERROR = '<?xml version="1.0" encoding="UTF-8"?>\n<Error><Code>InternalError</Code><Message>We encountered an internal error. Please try again.</Message></Error>';

/** Forwards to `target` (`http://host:port`). */
export async function startHttpFaultProxy(target: string): Promise<HttpFaultProxy> {
  const to = new URL(target);
  let mode: 'pass' | 'fail' = 'pass';
  let failed = 0;
  const agent = new http.Agent({ keepAlive: true });
  const server = http.createServer((req, res) => {
    if (mode === 'fail') {
      failed++;
      req.resume();
      req.on('end', () => res.writeHead(500, { 'content-type': 'application/xml' }).end(INTERNAL_ERROR));
      return;
    }
    const upstream = http.request({ host: to.hostname, port: to.port, method: req.method, path: req.url, headers: req.headers, agent }, (up) => {
      res.writeHead(up.statusCode ?? 502, up.headers);
      up.pipe(res);
    });
    upstream.on('error', () => { if (!res.headersSent) res.writeHead(502).end(); else res.destroy(); });
    req.pipe(upstream);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    setMode(next) { mode = next; },
    get requestsFailed() { return failed; },
    async close() {
      agent.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
