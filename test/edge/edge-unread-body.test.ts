/**
 * A script that answers without reading the request body (a 405 to an upload, a redirect, a refusal) gets its
 * answer to the client whole, every time, with or without the front process: the body is read to its end
 * before the answer goes out (workerd drops a connection whose body was not read, which cut answers short).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEdgeHarness, type EdgeHarness } from './harness.js';
import { edgeRequest } from './request.js';
import { rawExchange } from './raw-request.js';

const variants = [
  { name: 'front on', opts: { front: true } },
  { name: 'nginx front', opts: { front: 'auto' as const } },
  { name: 'front off', opts: { front: false } },
  { name: 'front on, no subrequest limits', opts: { front: true, subrequests: 0, bucketSubrequests: 0 } },
];

for (const { name, opts } of variants) {
  describe(`edge: a request body the script never reads (${name})`, () => {
    let h: EdgeHarness;

    beforeAll(async () => {
      h = await startEdgeHarness({ ...opts, maxRequestBytes: 16 * 1024 * 1024 });
      h.catalog.deploy('ignore.example.com', 'export default { fetch() { return new Response("body ignored", { status: 405 }); } }');
      h.catalog.deploy('other.example.com', 'export default { fetch() { return new Response("other served"); } }');
      expect((await edgeRequest(h.edge.url, 'ignore.example.com')).status).toBe(405);
      expect((await edgeRequest(h.edge.url, 'other.example.com')).status).toBe(200);
    }, 60_000);
    afterAll(async () => {
      await h?.close();
    });

    it('answers whole, chunked or with a Content-Length, small or large, request after request', async () => {
      for (const size of [32 * 1024, 1024 * 1024]) {
        for (let i = 0; i < 5; i++) {
          const chunked = await rawExchange(h.edge.url, 'POST / HTTP/1.1\r\nhost: ignore.example.com', [Buffer.alloc(size, 97)]);
          expect(chunked.status, `chunked ${size} #${i}`).toBe(405);
          expect(chunked.text, `chunked ${size} #${i}`).toContain('body ignored');
          const sized = await edgeRequest(h.edge.url, 'ignore.example.com', { method: 'POST', body: Buffer.alloc(size, 98) });
          expect([sized.status, sized.body], `sized ${size} #${i}`).toEqual([405, 'body ignored']);
          expect((await edgeRequest(h.edge.url, 'other.example.com')).body).toBe('other served');
        }
      }
    });
  });
}
