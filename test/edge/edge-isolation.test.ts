/**
 * Isolation of scripts on the edge: no host files, no host environment, no Node APIs without nodejs_compat,
 * no fetch into loopback, private or link-local ranges; a script that loops forever or allocates without
 * bound is stopped (the runtime is replaced) and the node keeps serving the other scripts; a workerd that
 * dies is restarted.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually, startEdgeHarness, type EdgeHarness } from './harness.js';
import { edgeRequest } from './request.js';

const PROBE = `export default {
  async fetch(request, env) {
    const out = {};
    out.process = typeof process;
    out.require = typeof require;
    out.deno = typeof Deno;
    try { const fs = await import('node:fs'); out.passwd = fs.readFileSync('/etc/passwd', 'utf8').slice(0, 20); } catch (e) { out.fsError = String(e.message).slice(0, 120); }
    try { out.env = process.env.PATH ?? process.env.HOME ?? Object.keys(process.env).length; } catch (e) { out.envError = e.name; }
    return Response.json(out);
  },
};`;

const FETCHER = `export default {
  async fetch(request) {
    const target = new URL(request.url).searchParams.get('to');
    try { const r = await fetch(target, { signal: AbortSignal.timeout(5000) }); return new Response('reached ' + r.status); }
    catch (e) { return new Response('refused ' + e.message, { status: 502 }); }
  },
};`;

describe('edge: isolation of scripts', () => {
  let h: EdgeHarness;
  let target: http.Server;
  let targetPort: number;
  let hits = 0;

  beforeAll(async () => {
    target = http.createServer((_req, res) => { hits++; res.end('private data'); });
    await new Promise<void>((r) => target.listen(0, '127.0.0.1', r));
    targetPort = (target.address() as AddressInfo).port;
    h = await startEdgeHarness({ cpuMs: 3000, memoryMb: 300, wallMs: 2000 });
    h.catalog.deploy('ok.example.com', 'export default { fetch() { return new Response("still serving"); } }');
  }, 60_000);
  afterAll(async () => {
    await h?.close();
    await new Promise((r) => target?.close(r));
  });

  it('gives a script no host files, environment or Node APIs', async () => {
    h.catalog.deploy('probe.example.com', PROBE);
    const res = await edgeRequest(h.edge.url, 'probe.example.com');
    expect(res.status).toBe(200);
    const out = JSON.parse(res.body);
    expect(out).toMatchObject({ process: 'undefined', require: 'undefined', deno: 'undefined' });
    expect(out.passwd).toBeUndefined();
    expect(out.fsError).toBeDefined();
  });

  it('with nodejs_compat a script gets the Node surface, still without host files or environment', async () => {
    h.catalog.deploy('compat.example.com', PROBE, { flags: ['nodejs_compat'] });
    const res = await edgeRequest(h.edge.url, 'compat.example.com');
    expect(res.status).toBe(200);
    const out = JSON.parse(res.body);
    expect(out.process).toBe('object');
    expect(out.passwd ?? '').not.toContain('root:');
    expect(out.env === 0 || out.env === undefined).toBe(true);
  });

  it('refuses fetch to loopback, private and link-local addresses (the target is never reached)', async () => {
    h.catalog.deploy('fetcher.example.com', FETCHER);
    for (const to of [`http://127.0.0.1:${targetPort}/`, `http://localhost:${targetPort}/`, `http://[::1]:${targetPort}/`, 'http://10.0.0.1/', 'http://192.168.1.1/', 'http://169.254.169.254/latest/meta-data/']) {
      const res = await edgeRequest(h.edge.url, 'fetcher.example.com', { path: `/?to=${encodeURIComponent(to)}` });
      expect(res.body, to).toMatch(/^refused /);
    }
    expect(hits).toBe(0);
  });

  it('allows a range given with --script-outbound', async () => {
    const h2 = await startEdgeHarness({ scriptOutbound: ['127.0.0.1/32'] });
    try {
      h2.catalog.deploy('fetcher.example.com', FETCHER);
      const res = await edgeRequest(h2.edge.url, 'fetcher.example.com', { path: `/?to=${encodeURIComponent(`http://127.0.0.1:${targetPort}/`)}` });
      expect(res.body).toBe('reached 200');
    } finally {
      await h2.close();
    }
  });

  it('answers 1102 (503) to a script still waiting at the wall-time limit; the others keep serving meanwhile', async () => {
    h.catalog.deploy('slow.example.com', 'export default { async fetch() { await new Promise((r) => setTimeout(r, 60_000)); return new Response("late"); } }');
    const slow = edgeRequest(h.edge.url, 'slow.example.com');
    expect((await edgeRequest(h.edge.url, 'ok.example.com')).body).toBe('still serving');
    const res = await slow;
    expect(res.status).toBe(503);
    expect(res.body).toContain('1102');
  });

  it('stops a script that loops forever; the node keeps serving the others', async () => {
    h.catalog.deploy('loop.example.com', 'export default { fetch() { for (;;) {} } }');
    const before = h.edge.runtime.restarts;
    const looping = edgeRequest(h.edge.url, 'loop.example.com').then((r) => r.status, () => 'connection closed');
    await eventually(async () => expect(h.edge.runtime.restarts).toBeGreaterThan(before));
    expect(await looping).not.toBe(200);
    await eventually(async () => expect((await edgeRequest(h.edge.url, 'ok.example.com')).body).toBe('still serving'));
  });

  it('stops a script that allocates without bound; the node keeps serving the others', async () => {
    h.catalog.deploy('hog.example.com', 'export default { fetch() { const a = []; for (;;) a.push(new Array(1e5).fill(Math.random())); } }');
    const before = h.edge.runtime.restarts;
    const hog = edgeRequest(h.edge.url, 'hog.example.com').then((r) => r.status, () => 'connection closed');
    await eventually(async () => expect(h.edge.runtime.restarts).toBeGreaterThan(before));
    expect(await hog).not.toBe(200);
    await eventually(async () => expect((await edgeRequest(h.edge.url, 'ok.example.com')).body).toBe('still serving'));
  });

  it('restarts workerd when it dies and serves again', async () => {
    await edgeRequest(h.edge.url, 'ok.example.com');
    const pid = h.edge.runtime.pid!;
    const before = h.edge.runtime.restarts;
    process.kill(pid, 'SIGKILL');
    await eventually(async () => expect(h.edge.runtime.restarts).toBeGreaterThan(before));
    await eventually(async () => expect((await edgeRequest(h.edge.url, 'ok.example.com')).body).toBe('still serving'));
    expect(h.edge.runtime.pid).not.toBe(pid);
  });
});
