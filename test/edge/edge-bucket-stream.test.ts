/**
 * Large values through a deployed script's bucket binding and the store service's own HTTP: a 24 MiB request
 * body put as it streams in, and read back streamed, byte for byte; many small operations in flight at once on
 * the kept-alive connections; a put whose client goes away mid-body stores nothing.
 */
import crypto from 'node:crypto';
import http from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { accountId as adminAccountOf } from '../helpers/api.js';
import { waitUntil } from '../faults/load.js';
import { accessLines, captureLogger } from '../ops/capture-logger.js';
import { MemoryCatalog } from './memory-catalog.js';

const SCRIPT = `export default {
  async fetch(request, env) {
    const key = new URL(request.url).pathname.slice(1);
    if (request.method === 'PUT') {
      const o = await env.B.put(key, request.body);
      return Response.json({ size: o.size, etag: o.etag });
    }
    if (key === 'many') {
      const value = 'v'.repeat(2000);
      await Promise.all(Array.from({ length: 64 }, (_, i) => env.B.put('small-' + i, value + i)));
      const got = await Promise.all(Array.from({ length: 64 }, async (_, i) => (await env.B.get('small-' + i)).text()));
      return Response.json(got.every((t, i) => t === value + i));
    }
    const o = await env.B.get(key);
    return o ? new Response(o.body, { headers: { etag: o.httpEtag } }) : new Response('none', { status: 404 });
  },
};`;

/** Sends `body` (or part of it, then drops the connection) to the edge with Host `host`; resolves with status and body. */
function send(url: string, host: string, method: string, path: string, body?: Buffer, cutAfter?: number): Promise<{ status: number; body: Buffer }> {
  const u = new URL(url);
  return new Promise((resolve, reject) => {
    const req = http.request({ host: u.hostname, port: u.port, method, path, headers: { host, ...(body ? { 'content-length': String(body.length) } : {}) }, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks) }));
      res.on('error', reject);
    });
    req.on('error', (err) => (cutAfter !== undefined ? resolve({ status: 0, body: Buffer.alloc(0) }) : reject(err)));
    if (body && cutAfter !== undefined) {
      req.write(body.subarray(0, cutAfter), () => setTimeout(() => req.destroy(), 200));
    } else {
      req.end(body);
    }
  });
}

describe('bucket binding: large and many values through the store service', () => {
  let server: TestServer;
  let account: string;
  const catalog = new MemoryCatalog();
  const capture = captureLogger('info');

  beforeAll(async () => {
    server = await startTestServer({ flags: { edge: '127.0.0.1:0' }, edgeCatalog: catalog, logger: capture.logger });
    account = await adminAccountOf(server);
    await server.sdk().r2.buckets.create({ account_id: account, name: 'big-values' });
    catalog.deploy('big.example.com', SCRIPT, { accountId: account, bindings: [{ type: 'r2_bucket', name: 'B', bucketName: 'big-values' }] });
  }, 60_000);
  afterAll(async () => {
    await server?.stop();
  });

  it('puts a 24 MiB body as it streams in and reads it back whole', async () => {
    const value = crypto.randomBytes(24 * 1024 * 1024);
    const md5 = crypto.createHash('md5').update(value).digest('hex');
    const put = await send(server.running.edgeUrl!, 'big.example.com', 'PUT', '/large', value);
    expect(put.status, put.body.toString()).toBe(200);
    expect(JSON.parse(put.body.toString())).toEqual({ size: value.length, etag: md5 });
    const got = await send(server.running.edgeUrl!, 'big.example.com', 'GET', '/large');
    expect(got.status).toBe(200);
    expect(got.body.length).toBe(value.length);
    expect(crypto.createHash('md5').update(got.body).digest('hex')).toBe(md5);
  });

  it('runs 64 puts and 64 gets in flight at once', async () => {
    const res = await send(server.running.edgeUrl!, 'big.example.com', 'GET', '/many');
    expect([res.status, res.body.toString()]).toEqual([200, 'true']);
  });

  it('stores nothing of a put whose client goes away mid-body', async () => {
    const value = crypto.randomBytes(4 * 1024 * 1024);
    await send(server.running.edgeUrl!, 'big.example.com', 'PUT', '/cut', value, 1024 * 1024);
    // The script's request ends (its put failed when the cut reached it); only then is the bucket looked at.
    await waitUntil(() => accessLines(capture.lines(), 'edge').filter((l) => l.method === 'PUT').length >= 2, 30_000, 'the cut request (the second PUT) in the access log');
    expect((await send(server.running.edgeUrl!, 'big.example.com', 'GET', '/cut')).status).toBe(404);
    const listed = await fetch(`${server.apiBase}/accounts/${account}/r2/buckets/big-values/objects`, { headers: { 'x-auth-email': server.email, 'x-auth-key': server.key } });
    const keys = ((await listed.json()) as { result: { key: string }[] }).result.map((o) => o.key);
    expect(keys).not.toContain('cut');
  });
});
