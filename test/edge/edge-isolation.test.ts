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
    for (const to of [`http://127.0.0.1:${targetPort}/`, `http://localhost:${targetPort}/`, `http://[::1]:${targetPort}/`, `http://[::ffff:127.0.0.1]:${targetPort}/`, `http://0.0.0.0:${targetPort}/`, 'http://10.0.0.1/', 'http://192.168.1.1/', 'http://169.254.169.254/latest/meta-data/']) {
      const res = await edgeRequest(h.edge.url, 'fetcher.example.com', { path: `/?to=${encodeURIComponent(to)}` });
      expect(res.body, to).toMatch(/^refused /);
    }
    expect(hits).toBe(0);
  });

  it('allows a range given with --script-outbound', async () => {
    // a whole prohibited range, allowed: its addresses are reached, and nothing outside it
    const h2 = await startEdgeHarness({ scriptOutbound: ['127.0.0.0/8'] });
    try {
      h2.catalog.deploy('fetcher.example.com', FETCHER);
      const fetchTo = async (to: string) => (await edgeRequest(h2.edge.url, 'fetcher.example.com', { path: `/?to=${encodeURIComponent(to)}` })).body;
      expect(await fetchTo(`http://127.0.0.1:${targetPort}/`)).toBe('reached 200');
      expect(await fetchTo(`http://[::1]:${targetPort}/`)).toMatch(/^refused /);
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

  it('stops a script that loops forever: its request gets the 1102 page (503); the node keeps serving the others', async () => {
    h.catalog.deploy('loop.example.com', 'export default { fetch(request) { if (new URL(request.url).pathname === "/warm") return new Response("warm"); for (;;) {} } }');
    expect((await edgeRequest(h.edge.url, 'loop.example.com', { path: '/warm' })).body).toBe('warm');
    const before = h.edge.runtime.restarts;
    const looping = edgeRequest(h.edge.url, 'loop.example.com');
    await eventually(async () => expect(h.edge.runtime.restarts).toBeGreaterThan(before));
    const res = await looping;
    expect(res.status).toBe(503);
    expect(res.body).toContain('Worker exceeded resource limits');
    expect(res.body).toContain('Error</span> <span>1102');
    expect(res.headers['cf-ray']).toMatch(/^[0-9a-f]{16}-STR$/);
    await eventually(async () => expect((await edgeRequest(h.edge.url, 'ok.example.com')).body).toBe('still serving'));
  });

  // 'draining': the other script's first request builds a new generation while the hog grows in the old one,
  // which drains and is held to the same memory limit.
  it.each(['live', 'draining'])('a script that allocates without bound gets the 1102 page (503) when its runtime (%s) is killed; another script answers while it grows and after', async (where) => {
    // Without a wall-time limit: the hog keeps its request open until the watchdog sees the memory.
    const g = await startEdgeHarness({ cpuMs: 3000, memoryMb: 300 });
    try {
      g.catalog.deploy('ok.example.com', 'export default { fetch() { return new Response("still serving"); } }');
      // Grows about 40 MB/s and yields between steps, so the process keeps serving until the watchdog kills it.
      g.catalog.deploy('hog.example.com', `export default { async fetch(request, env) {
        if (new URL(request.url).pathname === '/warm') return new Response('warm');
        await env.MARKS.put('hog-running', 'yes');
        const a = [];
        for (;;) { a.push(new Array(1e5).fill(Math.random())); await new Promise((r) => setTimeout(r, 20)); }
      } }`, { bindings: [{ type: 'r2_bucket', name: 'MARKS', bucketName: 'marks' }] });
      expect((await edgeRequest(g.edge.url, 'hog.example.com', { path: '/warm' })).body).toBe('warm');
      if (where === 'live') expect((await edgeRequest(g.edge.url, 'ok.example.com')).body).toBe('still serving');
      const before = g.edge.runtime.restarts;
      const hog = edgeRequest(g.edge.url, 'hog.example.com');
      const marks = await g.store.bucket('acct-1--marks');
      await eventually(async () => expect(await marks.head('hog-running')).not.toBeNull());
      // A well-behaved request of another script while the hog grows on the same runtime.
      const meanwhile = await edgeRequest(g.edge.url, 'ok.example.com');
      expect(meanwhile.status).toBe(200);
      expect(meanwhile.body).toBe('still serving');
      await eventually(async () => expect(g.edge.runtime.restarts).toBeGreaterThan(before));
      const res = await hog;
      expect(res.status).toBe(503);
      expect(res.body).toContain('Worker exceeded resource limits');
      expect(res.body).toContain('was restarted');
      await eventually(async () => expect((await edgeRequest(g.edge.url, 'ok.example.com')).body).toBe('still serving'));
    } finally {
      await g.close();
    }
  });

  it('restarts workerd when it dies: the request in flight gets the 1102 page (503), later ones are served', async () => {
    const h2 = await startEdgeHarness();
    try {
      h2.catalog.deploy('ok.example.com', 'export default { fetch() { return new Response("still serving"); } }');
      h2.catalog.deploy('wait.example.com', `export default { async fetch(request, env) {
        if (new URL(request.url).pathname === '/warm') return new Response('warm');
        // Past the front's 100 ms in which a request without a body that fails is sent again (in-workerd/front/main.ts):
        // killed sooner, this request would be repeated on the replacement and wait there for 120 s.
        await new Promise((r) => setTimeout(r, 200));
        await env.MARKS.put('waiting', 'yes');
        await new Promise((r) => setTimeout(r, 120_000));
        return new Response('late');
      } }`, { bindings: [{ type: 'r2_bucket', name: 'MARKS', bucketName: 'marks' }] });
      expect((await edgeRequest(h2.edge.url, 'ok.example.com')).body).toBe('still serving');
      expect((await edgeRequest(h2.edge.url, 'wait.example.com', { path: '/warm' })).body).toBe('warm');
      const pid = h2.edge.runtime.pid!;
      const before = h2.edge.runtime.restarts;
      const waiting = edgeRequest(h2.edge.url, 'wait.example.com');
      const marks = await h2.store.bucket('acct-1--marks');
      await eventually(async () => expect(await marks.head('waiting')).not.toBeNull());
      process.kill(pid, 'SIGKILL');
      const res = await waiting;
      expect(res.status).toBe(503);
      expect(res.body).toContain('Worker exceeded resource limits');
      await eventually(async () => expect(h2.edge.runtime.restarts).toBeGreaterThan(before));
      // A request sent right away waits for the replacement rather than failing.
      expect((await edgeRequest(h2.edge.url, 'ok.example.com')).body).toBe('still serving');
      expect(h2.edge.runtime.pid).not.toBe(pid);
    } finally {
      await h2.close();
    }
  });

  it('starts the front process again when it dies; the edge keeps its port', async () => {
    expect((await edgeRequest(h.edge.url, 'ok.example.com')).body).toBe('still serving');
    const pid = h.edge.runtime.frontPid!;
    process.kill(pid, 'SIGKILL');
    await eventually(async () => expect(h.edge.runtime.frontPid).not.toBe(pid));
    await eventually(async () => expect((await edgeRequest(h.edge.url, 'ok.example.com')).body).toBe('still serving'));
    expect(h.edge.runtime.status().ok).toBe(true);
  });
});
