/** HTTP requests to the edge with a chosen Host header (fetch cannot set Host). */
import http from 'node:http';

/** The answer of {@link edgeRequest}. */
export interface EdgeAnswer {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: string;
}

/** Sends one request to `baseUrl` with `Host: host` and reads the whole answer. */
export function edgeRequest(baseUrl: string, host: string, opts: { path?: string; method?: string; body?: string | Buffer; headers?: Record<string, string> } = {}): Promise<EdgeAnswer> {
  const url = new URL(opts.path ?? '/', baseUrl);
  return new Promise((resolve, reject) => {
    const req = http.request({ host: url.hostname, port: url.port, path: url.pathname + url.search, method: opts.method ?? 'GET', headers: { ...opts.headers, host }, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks).toString('utf8') }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(opts.body);
  });
}
