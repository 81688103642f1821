/**
 * The edge listener with the workerd runtime: scripts with their bindings by Host, redeploys, account-scoped
 * buckets, script failures, unknown hosts, and origins with production's forwarding headers.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually, startEdgeHarness, type EdgeHarness } from './harness.js';
import { edgeRequest } from './request.js';

const APP = `export default {
  async fetch(request, env) {
    const url = new URL(request.url);
    if (request.method === 'PUT') { const o = await env.FILES.put(url.pathname.slice(1), request.body); return Response.json({ stored: o.size }); }
    const o = await env.FILES.get(url.pathname.slice(1));
    return Response.json({ greeting: env.GREETING, secret: env.API_KEY, settings: env.SETTINGS, body: o ? await o.text() : null,
      ip: request.headers.get('cf-connecting-ip'), ray: request.headers.get('cf-ray'), proto: request.headers.get('x-forwarded-proto') });
  },
};`;

describe('edge: scripts and origins through --edge', () => {
  let h: EdgeHarness;
  let origin: http.Server;
  let originPort: number;
  const seen: { headers: http.IncomingHttpHeaders; url: string; bytes: number }[] = [];

  beforeAll(async () => {
    origin = http.createServer((req, res) => {
      let bytes = 0;
      req.on('data', (c: Buffer) => { bytes += c.length; });
      req.on('end', () => {
        seen.push({ headers: req.headers, url: req.url!, bytes });
        res.setHeader('x-origin', 'yes');
        res.end(`origin got ${bytes} bytes for ${req.headers.host}${req.url}`);
      });
    });
    await new Promise<void>((r) => origin.listen(0, '127.0.0.1', r));
    originPort = (origin.address() as AddressInfo).port;
    h = await startEdgeHarness({ originPort, originAllow: ['127.0.0.0/8'] });
  }, 60_000);
  afterAll(async () => {
    await h?.close();
    await new Promise((r) => origin?.close(r));
  });

  it('runs a script with vars, a secret, JSON and a bucket binding, chosen by Host', async () => {
    h.catalog.deploy('app.example.com', APP, {
      accountId: 'acct-a',
      bindings: [
        { type: 'plain_text', name: 'GREETING', text: 'hello' },
        { type: 'secret_text', name: 'API_KEY', text: 's3cr3t' },
        { type: 'json', name: 'SETTINGS', json: { mode: 'fast', n: 3 } },
        { type: 'r2_bucket', name: 'FILES', bucketName: 'files' },
      ],
    });
    const put = await edgeRequest(h.edge.url, 'app.example.com', { method: 'PUT', path: '/note.txt', body: 'from a script' });
    expect(put.status).toBe(200);
    expect(JSON.parse(put.body)).toEqual({ stored: 13 });
    const got = await edgeRequest(h.edge.url, 'APP.example.com:8080', { path: '/note.txt' });
    expect(got.status).toBe(200);
    const body = JSON.parse(got.body);
    expect(body).toMatchObject({ greeting: 'hello', secret: 's3cr3t', settings: { mode: 'fast', n: 3 }, body: 'from a script', ip: '127.0.0.1', proto: 'http' });
    expect(body.ray).toBe(got.headers['cf-ray']);
    expect(body.ray).toMatch(/^[0-9a-f]{16}-[A-Z]{3}$/);
    // The object is in Stratus's store, in the bucket of the script's account.
    expect(await (await h.store.bucket('acct-a--files').get('note.txt') as { text(): Promise<string> }).text()).toBe('from a script');
  });

  it("another account's script binding the same bucket name sees its own bucket, not the first account's", async () => {
    h.catalog.deploy('other.example.net', APP, { accountId: 'acct-b', bindings: [{ type: 'r2_bucket', name: 'FILES', bucketName: 'files' }] });
    const got = await edgeRequest(h.edge.url, 'other.example.net', { path: '/note.txt' });
    expect(got.status).toBe(200);
    expect(JSON.parse(got.body).body).toBeNull();
  });

  it('serves a new version after a redeploy of the same host', async () => {
    h.catalog.deploy('deploy.example.com', 'export default { fetch() { return new Response("v1"); } }');
    expect((await edgeRequest(h.edge.url, 'deploy.example.com')).body).toBe('v1');
    h.catalog.deploy('deploy.example.com', 'export default { fetch() { return new Response("v2"); } }');
    await eventually(async () => expect((await edgeRequest(h.edge.url, 'deploy.example.com')).body).toBe('v2'));
  });

  it('a deploy never drops a request in flight: the old generation finishes it while the new one serves', async () => {
    h.catalog.deploy('slow.example.com', 'export default { async fetch() { await new Promise((r) => setTimeout(r, 1500)); return new Response("slow done"); } }');
    await edgeRequest(h.edge.url, 'deploy.example.com');
    const pidBefore = h.edge.runtime.pid;
    const slow = edgeRequest(h.edge.url, 'slow.example.com');
    await eventually(async () => expect(h.edge.runtime.pid).not.toBe(pidBefore)); // slow.example.com needed a new generation
    const inFlight = edgeRequest(h.edge.url, 'slow.example.com');
    const pidServing = h.edge.runtime.pid;
    h.catalog.deploy('fresh.example.com', 'export default { fetch() { return new Response("fresh"); } }');
    expect((await edgeRequest(h.edge.url, 'fresh.example.com')).body).toBe('fresh');
    expect(h.edge.runtime.pid).not.toBe(pidServing); // and fresh.example.com another one, while inFlight ran
    expect((await slow).body).toBe('slow done');
    expect((await inFlight).body).toBe('slow done');
  });

  it('answers 1101 (500) for a script that throws or does not load, and keeps serving the others', async () => {
    h.catalog.deploy('throws.example.com', 'export default { fetch() { throw new Error("boom"); } }');
    h.catalog.deploy('broken.example.com', 'export default { fetch() { return new Response( } }');
    const thrown = await edgeRequest(h.edge.url, 'throws.example.com');
    expect(thrown.status).toBe(500);
    expect(thrown.body).toContain('1101');
    expect(thrown.body).toContain(String(thrown.headers['cf-ray']));
    const broken = await edgeRequest(h.edge.url, 'broken.example.com');
    expect(broken.status).toBe(500);
    expect(broken.body).toContain('1101');
    expect((await edgeRequest(h.edge.url, 'deploy.example.com')).body).toBe('v2');
  });

  it('runs a multi-module upload: ES, CommonJS, text, data, JSON and wasm modules, source maps ignored', async () => {
    const enc = (t: string) => new TextEncoder().encode(t);
    // (module (func (export "add") (param i32 i32) (result i32) local.get 0 local.get 1 i32.add))
    const wasm = Uint8Array.from([0, 97, 115, 109, 1, 0, 0, 0, 1, 7, 1, 96, 2, 127, 127, 1, 127, 3, 2, 1, 0, 7, 7, 1, 3, 97, 100, 100, 0, 0, 10, 9, 1, 7, 0, 32, 0, 32, 1, 106, 11]);
    h.catalog.deploy('modules.example.com', `
      import { shout } from './lib/util.js';
      import legacy from './legacy.cjs';
      import greeting from './greeting.txt';
      import raw from './raw.bin';
      import conf from './conf.json';
      import add from './add.wasm';
      export default { async fetch() {
        const { exports } = await WebAssembly.instantiate(add);
        return Response.json({ text: shout(greeting), legacy: legacy.name, bytes: raw.byteLength, conf, sum: exports.add(2, 3) });
      } };`, {
      modules: [
        { name: 'lib/util.js', type: 'esm', content: enc('export const shout = (s) => s.toUpperCase();') },
        { name: 'legacy.cjs', type: 'commonjs', content: enc('module.exports = { name: "cjs" };') },
        { name: 'greeting.txt', type: 'text', content: enc('hello') },
        { name: 'raw.bin', type: 'data', content: Uint8Array.from([1, 2, 3]) },
        { name: 'conf.json', type: 'json', content: enc('{"a":[1,2]}') },
        { name: 'add.wasm', type: 'wasm', content: wasm },
        { name: 'index.js.map', type: 'sourcemap', content: enc('{"version":3}') },
      ],
    });
    const res = await edgeRequest(h.edge.url, 'modules.example.com');
    expect(res.status).toBe(200);
    expect(JSON.parse(res.body)).toEqual({ text: 'HELLO', legacy: 'cjs', bytes: 3, conf: { a: [1, 2] }, sum: 5 });
  });

  it('answers an unknown hostname with the 1001 page and status 530', async () => {
    const res = await edgeRequest(h.edge.url, 'nowhere.example.org');
    expect(res.status).toBe(530);
    expect(res.headers['content-type']).toContain('text/html');
    expect(res.body).toContain('Error</span> <span>1001');
    expect(res.body).toContain(String(res.headers['cf-ray']));
  });

  it('reverse-proxies a proxied hostname to its origin with the Host and the forwarding headers, streaming the body', async () => {
    h.catalog.hosts.set('www.example.com', { kind: 'origin', zoneId: 'z1', hostname: 'www.example.com', origin: '127.0.0.1' });
    const big = Buffer.alloc(8 * 1024 * 1024, 7);
    const res = await edgeRequest(h.edge.url, 'www.example.com', { method: 'POST', path: '/upload?x=1', body: big, headers: { 'x-forwarded-for': '203.0.113.9', 'cdn-loop': 'other' } });
    expect(res.status).toBe(200);
    expect(res.body).toBe(`origin got ${big.length} bytes for www.example.com/upload?x=1`);
    expect(res.headers['x-origin']).toBe('yes');
    const req = seen.at(-1)!;
    expect(req.headers).toMatchObject({
      host: 'www.example.com', 'cf-connecting-ip': '127.0.0.1', 'x-real-ip': '127.0.0.1',
      'x-forwarded-for': '203.0.113.9, 127.0.0.1', 'x-forwarded-proto': 'http', 'cf-visitor': '{"scheme":"http"}',
      'cf-ipcountry': 'XX', 'cdn-loop': 'other, cloudflare',
    });
    expect(req.headers['cf-ray']).toBe(res.headers['cf-ray']);
    expect(req.headers['x-stratus-origin']).toBeUndefined();
    expect(req.headers['x-stratus-secret']).toBeUndefined();
  });

  it('answers 521 when the origin refuses connections', async () => {
    const closed = http.createServer();
    await new Promise<void>((r) => closed.listen(0, '127.0.0.1', r));
    const port = (closed.address() as AddressInfo).port;
    await new Promise((r) => closed.close(r));
    const h2 = await startEdgeHarness({ originPort: port, originAllow: ['127.0.0.0/8'] });
    try {
      h2.catalog.hosts.set('down.example.com', { kind: 'origin', zoneId: 'z1', hostname: 'down.example.com', origin: '127.0.0.1' });
      const res = await edgeRequest(h2.edge.url, 'down.example.com');
      expect(res.status).toBe(521);
      expect(res.body).toContain('Web server is down');
    } finally {
      await h2.close();
    }
  });

  it('keeps at most maxVersions versions per generation and brings an evicted one back on demand', async () => {
    const h4 = await startEdgeHarness({ maxVersions: 2 });
    try {
      for (const n of [1, 2, 3]) h4.catalog.deploy(`s${n}.example.com`, `export default { fetch() { return new Response("s${n}"); } }`);
      for (const n of [1, 2, 3]) expect((await edgeRequest(h4.edge.url, `s${n}.example.com`)).body).toBe(`s${n}`);
      expect((await edgeRequest(h4.edge.url, 's1.example.com')).body).toBe('s1');
    } finally {
      await h4.close();
    }
  });

  it('refuses a request body over the size limit with 413 before the script runs', async () => {
    const h3 = await startEdgeHarness({ maxRequestBytes: 1024 });
    try {
      h3.catalog.deploy('small.example.com', 'export default { fetch() { return new Response("ran"); } }');
      const res = await edgeRequest(h3.edge.url, 'small.example.com', { method: 'POST', body: Buffer.alloc(2048) });
      expect(res.status).toBe(413);
      expect((await edgeRequest(h3.edge.url, 'small.example.com', { method: 'POST', body: 'ok' })).body).toBe('ran');
    } finally {
      await h3.close();
    }
  });
});
