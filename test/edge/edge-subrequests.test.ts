/**
 * Subrequest limits per request, as production: fetch() calls past --script-subrequests and bucket binding
 * operations past --script-bucket-subrequests fail with production's exception ("Too many subrequests."),
 * the calls within the limits work, and each request (concurrent ones of the same script included, and other
 * tenants' scripts) has its own budget.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEdgeHarness, type EdgeHarness } from './harness.js';
import { edgeRequest } from './request.js';

const FETCHES = `const captured = fetch; // a reference taken at load time counts too
export default {
  async fetch(request) {
    const url = new URL(request.url);
    const n = Number(url.searchParams.get('n'));
    const out = [];
    for (let i = 0; i < n; i++) {
      try { const r = await (i % 2 ? fetch : captured)(url.searchParams.get('to') + '?i=' + i); await r.text(); out.push('ok'); }
      catch (e) { out.push(e.constructor.name + ': ' + e.message); }
    }
    return Response.json(out);
  },
};`;

const BUCKET_OPS = `export default {
  async fetch(request, env) {
    const url = new URL(request.url);
    const n = Number(url.searchParams.get('n'));
    const prefix = url.searchParams.get('prefix');
    const out = [];
    for (let i = 0; i < n; i++) {
      try { await env.FILES.put(prefix + i, 'v' + i); out.push('ok'); } catch (e) { out.push(e.message); }
    }
    if (url.searchParams.has('multipart')) {
      try {
        const up = await env.FILES.createMultipartUpload(prefix + 'mp');
        const part = await up.uploadPart(1, 'x'.repeat(10));
        await env.FILES.resumeMultipartUpload(prefix + 'mp', up.uploadId).complete([part]);
        out.push('multipart ok');
      } catch (e) { out.push('multipart: ' + e.message); }
    }
    return Response.json(out);
  },
};`;


describe('edge: subrequest limits per request', () => {
  let h: EdgeHarness;
  let target: http.Server;
  let to: string;
  let hits = 0;

  beforeAll(async () => {
    target = http.createServer((_req, res) => { hits++; res.end('hi'); });
    await new Promise<void>((r) => target.listen(0, '127.0.0.1', r));
    to = `http://127.0.0.1:${(target.address() as AddressInfo).port}/`;
    h = await startEdgeHarness({ scriptOutbound: ['127.0.0.1/32'], subrequests: 5, bucketSubrequests: 6 });
    h.catalog.deploy('fetcher.example.com', FETCHES);
    h.catalog.deploy('files.example.com', BUCKET_OPS, { bindings: [{ type: 'r2_bucket', name: 'FILES', bucketName: 'files' }] });
    h.catalog.deploy('other.example.com', FETCHES, { accountId: 'acct-2' });
  }, 60_000);
  afterAll(async () => {
    await h?.close();
    await new Promise((r) => target?.close(r));
  });

  const fetches = async (host: string, n: number) => JSON.parse((await edgeRequest(h.edge.url, host, { path: `/?n=${n}&to=${encodeURIComponent(to)}` })).body) as string[];

  it('lets a script make fetch() calls up to the limit, then each further one throws "Too many subrequests."', async () => {
    const before = hits;
    const out = await fetches('fetcher.example.com', 7);
    expect(out).toEqual(['ok', 'ok', 'ok', 'ok', 'ok', 'Error: Too many subrequests.', 'Error: Too many subrequests.']);
    expect(hits - before).toBe(5); // the refused ones never left
  });

  it('gives every request its own budget: the next one, concurrent ones of the same script, another tenant\'s', async () => {
    expect(await fetches('fetcher.example.com', 5)).toEqual(Array(5).fill('ok'));
    const [a, b, c] = await Promise.all([fetches('fetcher.example.com', 5), fetches('fetcher.example.com', 5), fetches('other.example.com', 6)]);
    expect(a).toEqual(Array(5).fill('ok'));
    expect(b).toEqual(Array(5).fill('ok'));
    expect(c).toEqual([...Array(5).fill('ok'), 'Error: Too many subrequests.']);
  });

  it('counts bucket binding operations (multipart parts included) against their own limit; the refused ones never happen', async () => {
    const res = await edgeRequest(h.edge.url, 'files.example.com', { path: '/?n=8&prefix=a' });
    expect(JSON.parse(res.body)).toEqual([...Array(6).fill('ok'), 'Too many subrequests.', 'Too many subrequests.']);
    const bucket = await h.store.bucket('acct-1--files');
    expect(await bucket.head('a5')).not.toBeNull();
    expect(await bucket.head('a6')).toBeNull();
    // 3 puts + create + part + complete = 6, within; one more put makes the complete the 7th.
    expect(JSON.parse((await edgeRequest(h.edge.url, 'files.example.com', { path: '/?n=3&prefix=b&multipart=1' })).body)).toEqual(['ok', 'ok', 'ok', 'multipart ok']);
    expect(JSON.parse((await edgeRequest(h.edge.url, 'files.example.com', { path: '/?n=4&prefix=c&multipart=1' })).body)).toEqual(['ok', 'ok', 'ok', 'ok', 'multipart: Too many subrequests.']);
    expect(await bucket.head('cmp')).toBeNull();
  });

  it('counts the same way for a class entrypoint (WorkerEntrypoint), whose env bindings are counted too', async () => {
    h.catalog.deploy('class.example.com', `import { WorkerEntrypoint } from 'cloudflare:workers';
      export default class extends WorkerEntrypoint {
        async fetch(request) {
          const out = [];
          for (let i = 0; i < 7; i++) { try { await this.env.FILES.put('k' + i, 'v'); out.push('ok'); } catch (e) { out.push(e.message); } }
          try { await fetch('${to}'); out.push('fetch ok'); } catch (e) { out.push(e.message); }
          return Response.json(out);
        }
      }`, { bindings: [{ type: 'r2_bucket', name: 'FILES', bucketName: 'class-files' }] });
    const res = await edgeRequest(h.edge.url, 'class.example.com');
    expect(JSON.parse(res.body)).toEqual([...Array(6).fill('ok'), 'Too many subrequests.', 'fetch ok']);
  });

  it('counts a Service Worker script (CommonJS main): fetch() and its bucket binding, a global, each per request', async () => {
    h.catalog.deploy('sw.example.com', `addEventListener('fetch', (event) => { event.respondWith(handle(event.request)); });
      async function handle(request) {
        const out = [];
        for (let i = 0; i < 7; i++) { try { await FILES.put('sw' + i, 'v'); out.push('ok'); } catch (e) { out.push(e.message); } }
        for (let i = 0; i < 6; i++) { try { await (await fetch('${to}')).text(); out.push('fetch ok'); } catch (e) { out.push(e.constructor.name + ': ' + e.message); } }
        return new Response(JSON.stringify(out), { headers: { 'content-type': 'application/json' } });
      }`, { mainType: 'commonjs', bindings: [{ type: 'r2_bucket', name: 'FILES', bucketName: 'sw-files' }] });
    const expected = [...Array(6).fill('ok'), 'Too many subrequests.', ...Array(5).fill('fetch ok'), 'Error: Too many subrequests.'];
    const [a, b] = await Promise.all([edgeRequest(h.edge.url, 'sw.example.com'), edgeRequest(h.edge.url, 'sw.example.com')]);
    expect(a.status).toBe(200);
    expect(JSON.parse(a.body)).toEqual(expected);
    expect(JSON.parse(b.body)).toEqual(expected);
    expect(await (await h.store.bucket('acct-1--sw-files')).head('sw6')).toBeNull();
  });

  it('counts a CommonJS main module exporting { fetch } the same way', async () => {
    h.catalog.deploy('cjs.example.com', `module.exports = { async fetch(request) {
        const out = [];
        for (let i = 0; i < 6; i++) { try { await (await fetch('${to}')).text(); out.push('ok'); } catch (e) { out.push(e.message); } }
        return Response.json(out);
      } };`, { mainType: 'commonjs' });
    expect(JSON.parse((await edgeRequest(h.edge.url, 'cjs.example.com')).body)).toEqual([...Array(5).fill('ok'), 'Too many subrequests.']);
  });

  it("applies a version's own limits.subrequests under the node's limits: lower wins, higher is capped", async () => {
    h.catalog.deploy('low.example.com', FETCHES, { limits: { subrequests: 2 } });
    h.catalog.deploy('high.example.com', FETCHES, { limits: { subrequests: 500 } });
    h.catalog.deploy('lowfiles.example.com', BUCKET_OPS, { limits: { subrequests: 3 }, bindings: [{ type: 'r2_bucket', name: 'FILES', bucketName: 'low-files' }] });
    expect(await fetches('low.example.com', 3)).toEqual(['ok', 'ok', 'Error: Too many subrequests.']);
    expect(await fetches('high.example.com', 6)).toEqual([...Array(5).fill('ok'), 'Error: Too many subrequests.']);
    expect(JSON.parse((await edgeRequest(h.edge.url, 'lowfiles.example.com', { path: '/?n=4&prefix=l' })).body)).toEqual(['ok', 'ok', 'ok', 'Too many subrequests.']);
    // Other scripts keep their own budget meanwhile.
    expect(await fetches('fetcher.example.com', 5)).toEqual(Array(5).fill('ok'));
  });

  it("carries the ray id on a script's own response and on one it passes through unchanged (immutable headers)", async () => {
    h.catalog.deploy('proxy.example.com', `export default { fetch(request) { return new URL(request.url).pathname === '/own' ? new Response('own') : fetch('${to}'); } }`);
    for (const path of ['/own', '/through']) {
      const res = await edgeRequest(h.edge.url, 'proxy.example.com', { path });
      expect(res.status, path).toBe(200);
      expect(res.headers['cf-ray'], path).toMatch(/^[0-9a-f]{16}-STR$/);
    }
  });
});
