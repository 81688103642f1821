/**
 * The request body limit on streamed bodies: a chunked body (no Content-Length) is counted as it passes the
 * edge and refused with production's 413 once it goes over, and what the script did with it never commits (a
 * bucket put of the cut stream fails). A body within the limit streams through whole. Limits are per request:
 * another request on the same edge is served meanwhile.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEdgeHarness, type EdgeHarness } from './harness.js';
import { edgeRequest } from './request.js';
import { rawExchange } from './raw-request.js';

const LIMIT = 64 * 1024;

const STORE = `export default {
  async fetch(request, env) {
    const key = new URL(request.url).pathname.slice(1);
    if (request.method === 'GET') return Response.json({ ip: request.headers.get('cf-connecting-ip'), leaked: request.headers.get('x-stratus-cf') });
    try {
      // A body without a Content-Length has no known length, which a put needs (as in production): read it first.
      const o = await env.FILES.put(key, await request.arrayBuffer());
      return new Response('stored ' + o.size);
    } catch (e) {
      return new Response('put failed: ' + e.message, { status: 500 });
    }
  },
};`;

describe('edge: the request body limit on chunked bodies', () => {
  let h: EdgeHarness;

  beforeAll(async () => {
    h = await startEdgeHarness({ maxRequestBytes: LIMIT });
    h.catalog.deploy('files.example.com', STORE, { bindings: [{ type: 'r2_bucket', name: 'FILES', bucketName: 'files' }] });
    h.catalog.deploy('other.example.com', 'export default { fetch() { return new Response("other served"); } }', { accountId: 'acct-2' });
    h.catalog.deploy('ignore.example.com', 'export default { fetch() { return new Response("body ignored"); } }');
    expect((await edgeRequest(h.edge.url, 'ignore.example.com')).body).toBe('body ignored');
    expect((await edgeRequest(h.edge.url, 'files.example.com')).status).toBe(200);
    expect((await edgeRequest(h.edge.url, 'other.example.com')).body).toBe('other served');
  }, 60_000);
  afterAll(async () => {
    await h?.close();
  });

  it('streams a chunked body within the limit whole to the script', async () => {
    const chunks = Array.from({ length: 8 }, (_, i) => Buffer.alloc(4096, 97 + i));
    const res = await rawExchange(h.edge.url, 'PUT /within HTTP/1.1\r\nhost: files.example.com', chunks);
    expect(res.text).toContain('stored 32768');
    expect(res.status).toBe(200);
    const o = await (await h.store.bucket('acct-1--files')).get('within');
    expect(o !== null && 'arrayBuffer' in o).toBe(true);
    expect(Buffer.from(await (o as { arrayBuffer(): Promise<ArrayBuffer> }).arrayBuffer())).toEqual(Buffer.concat(chunks));
  });

  it('refuses a chunked body over the limit with 413 as it passes the limit; the put of the cut stream never commits', async () => {
    const chunks = Array.from({ length: 40 }, () => Buffer.alloc(4096, 120)); // 160 KiB against 64 KiB
    const res = await rawExchange(h.edge.url, 'PUT /over HTTP/1.1\r\nhost: files.example.com', chunks);
    expect(res.text).toContain('Request entity too large');
    expect(res.status).toBe(413);
    expect(res.text).toMatch(/\r\ncf-ray: [0-9a-f]{16}-STR\r\n/i);
    expect(await (await h.store.bucket('acct-1--files')).head('over')).toBeNull();
    // Per request: the next requests, this tenant's and another's, are served.
    expect((await edgeRequest(h.edge.url, 'other.example.com')).body).toBe('other served');
    expect((await edgeRequest(h.edge.url, 'files.example.com', { method: 'PUT', path: '/after', body: 'small' })).body).toBe('stored 5');
  });

  it('refuses a body over the limit that never ends, without waiting for its end', async () => {
    const chunks = Array.from({ length: 20 }, () => Buffer.alloc(4096, 121)); // 80 KiB, and no last chunk
    const res = await rawExchange(h.edge.url, 'PUT /endless HTTP/1.1\r\nhost: files.example.com', chunks, { unfinished: true });
    expect(res.status).toBe(413);
    expect(await (await h.store.bucket('acct-1--files')).head('endless')).toBeNull();
  });

  it('refuses a Content-Length over the limit before the script runs', async () => {
    const res = await edgeRequest(h.edge.url, 'files.example.com', { method: 'PUT', path: '/declared', body: Buffer.alloc(LIMIT + 1) });
    expect(res.status).toBe(413);
    expect(await (await h.store.bucket('acct-1--files')).head('declared')).toBeNull();
  });

  it("never takes the client's word for its address (the front's request.cf header is overwritten)", async () => {
    const res = await edgeRequest(h.edge.url, 'files.example.com', { headers: { 'x-stratus-cf': JSON.stringify({ clientIp: '203.0.113.66:1' }) } });
    expect(JSON.parse(res.body)).toEqual({ ip: '127.0.0.1', leaked: null });
  });

  it('answers a script that never reads a chunked body within the limit', async () => {
    const res = await rawExchange(h.edge.url, 'POST / HTTP/1.1\r\nhost: ignore.example.com', Array.from({ length: 8 }, () => Buffer.alloc(4096, 98)));
    expect(res.text).toContain('body ignored');
    expect(res.status).toBe(200);
    // The connection the generation may drop after an unread body is not this edge's problem for the next request.
    expect((await edgeRequest(h.edge.url, 'other.example.com')).body).toBe('other served');
  });
});
