/**
 * Reaching `<bucket>.s3.localhost` without DNS: a `lookup` that answers 127.0.0.1 for every name (and records
 * the names asked), an http.Agent using it for @aws-sdk/client-s3's NodeHttpHandler, and a plain HTTP request
 * through it. Connections are real sockets; only name resolution is replaced.
 */
import http from 'node:http';
import type { LookupFunction } from 'node:net';

/** A lookup answering 127.0.0.1 for any name, and the names it was asked for. */
export function loopbackLookup(): { lookup: LookupFunction; names: Set<string> } {
  const names = new Set<string>();
  const lookup = ((hostname: string, options: { all?: boolean }, callback: (...args: unknown[]) => void) => {
    names.add(hostname);
    if (options?.all) callback(null, [{ address: '127.0.0.1', family: 4 }]);
    else callback(null, '127.0.0.1', 4);
  }) as unknown as LookupFunction;
  return { lookup, names };
}

/** An HTTP request to `url` whose host name resolves through `lookup`; the answer read whole. */
export function requestVia(
  lookup: LookupFunction,
  url: string,
  init: { method?: string; headers?: Record<string, string>; body?: string } = {},
): Promise<{ status: number; headers: http.IncomingHttpHeaders; body: string }> {
  return new Promise((resolve, reject) => {
    const req = http.request(url, { method: init.method ?? 'GET', headers: init.headers ?? {}, lookup }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body: Buffer.concat(chunks).toString('utf8') }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(init.body);
  });
}
