/**
 * Requests a script passes on reach the origin as if no Worker existed, as production sends them: a Service
 * Worker script none of whose listeners calls respondWith(), and a script (object or class) that throws after
 * passThroughOnException(). The origin gets the method, path, headers and body the client sent. A hostname with
 * no origin behind the script gets the 1101 page; a script cannot fake the pass-through mark.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { edgeRequest } from './request.js';
import { MemoryCatalog } from './memory-catalog.js';

const SERVICE_WORKER = `addEventListener('fetch', (event) => {
  if (new URL(event.request.url).pathname.startsWith('/api')) return; // the origin answers
  event.respondWith(new Response('from the worker'));
});`;
const MODULE = `export default {
  async fetch(request, env, ctx) {
    const url = new URL(request.url);
    if (url.searchParams.has('pass')) ctx.passThroughOnException();
    if (url.pathname === '/fail') throw new Error('broken');
    if (url.pathname === '/forged') return new Response('mine', { headers: { 'x-stratus-pass': 'guess' } });
    return new Response('from the module');
  },
};`;
const CLASS = `import { WorkerEntrypoint } from 'cloudflare:workers';
export default class extends WorkerEntrypoint {
  async fetch(request) {
    this.ctx.passThroughOnException();
    throw new Error('broken');
  }
};`;

describe('pass-through to the origin', () => {
  let server: TestServer;
  let origin: http.Server;
  const catalog = new MemoryCatalog();
  const seen: Array<{ method: string; url: string; host: string; body: string; connectingIp: string | undefined }> = [];

  /** Routes `host` to a script whose hostname is also a proxied record (passThrough: the origin), unless `noOrigin`. */
  const deploy = (host: string, source: string, opts: { mainType?: 'esm' | 'commonjs'; noOrigin?: boolean } = {}) => {
    catalog.deploy(host, source, { ...(opts.mainType ? { mainType: opts.mainType } : {}) });
    const target = catalog.hosts.get(host)!;
    if (!opts.noOrigin && target.kind === 'script') catalog.hosts.set(host, { ...target, passThrough: { kind: 'origin', zoneId: 'zone-1', hostname: host, origin: '127.0.0.1' } });
  };

  beforeAll(async () => {
    origin = http.createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        seen.push({ method: req.method!, url: req.url!, host: String(req.headers.host), body: Buffer.concat(chunks).toString(), connectingIp: req.headers['cf-connecting-ip'] as string | undefined });
        res.writeHead(200, { 'content-type': 'text/plain' }).end(`origin saw ${req.method} ${req.url}`);
      });
    });
    await new Promise<void>((resolve) => origin.listen(0, '127.0.0.1', resolve));
    server = await startTestServer({ flags: { edge: '127.0.0.1:0', 'origin-port': String((origin.address() as AddressInfo).port), 'origin-allow': '127.0.0.0/8' }, edgeCatalog: catalog });
    deploy('sw.example.com', SERVICE_WORKER, { mainType: 'commonjs' });
    deploy('module.example.com', MODULE);
    deploy('class.example.com', CLASS);
    deploy('sw.workers.localhost', SERVICE_WORKER, { mainType: 'commonjs', noOrigin: true });
  }, 60_000);
  afterAll(async () => {
    await server?.stop();
    await new Promise((resolve) => origin?.close(resolve));
  });

  const edge = (host: string, p: string, opts: { method?: string; body?: string } = {}) => edgeRequest(server.running.edgeUrl!, host, { path: p, ...opts });

  it('sends a request no Service Worker listener answered to the origin, body and all', async () => {
    expect(await edge('sw.example.com', '/')).toMatchObject({ status: 200, body: 'from the worker' });
    const get = await edge('sw.example.com', '/api/items?x=1');
    expect(get).toMatchObject({ status: 200, body: 'origin saw GET /api/items?x=1' });
    expect(get.headers['cf-ray']).toMatch(/^[0-9a-f]{16}-STR$/);
    expect(seen.at(-1)).toMatchObject({ method: 'GET', url: '/api/items?x=1', host: 'sw.example.com', connectingIp: '127.0.0.1' });
    const post = await edge('sw.example.com', '/api/upload', { method: 'POST', body: 'hello origin' });
    expect(post).toMatchObject({ status: 200, body: 'origin saw POST /api/upload' });
    expect(seen.at(-1)).toMatchObject({ method: 'POST', body: 'hello origin' });
  });

  it('sends the request of a script that threw after passThroughOnException() to the origin; without it, 1101', async () => {
    expect(await edge('module.example.com', '/fail?pass=1', { method: 'PUT', body: 'kept' })).toMatchObject({ status: 200, body: 'origin saw PUT /fail?pass=1' });
    expect(seen.at(-1)).toMatchObject({ method: 'PUT', body: 'kept' });
    const failed = await edge('module.example.com', '/fail');
    expect(failed.status).toBe(500);
    expect(failed.body).toContain('1101');
    expect(await edge('module.example.com', '/?pass=1')).toMatchObject({ status: 200, body: 'from the module' });
    expect(await edge('class.example.com', '/anything')).toMatchObject({ status: 200, body: 'origin saw GET /anything' });
  });

  it('answers 1101 when there is no origin behind the script, and never treats a mark the script made as a pass', async () => {
    const before = seen.length;
    const lost = await edge('sw.workers.localhost', '/api/items');
    expect(lost.status).toBe(500);
    expect(lost.body).toContain('1101');
    const forged = await edge('module.example.com', '/forged');
    expect(forged).toMatchObject({ status: 200, body: 'mine' });
    expect(forged.headers['x-stratus-pass']).toBe('guess');
    expect(seen.length).toBe(before);
  });
});
