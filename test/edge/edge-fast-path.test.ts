/**
 * The fast path (`--edge-fast-path on`, nginx front): nginx forwards a script's plain HTTP request straight to
 * its version's own socket, no supervisor in between. It must give what the slow path gives: the same headers,
 * URL and `request.cf` to the script, the same answers (the 1101 page of a script that throws or passes a
 * request on with nothing behind it), the 1102 page on a runtime killed under a request; a deploy under load
 * loses no request and switches within 5 s; one account's hostname never reaches another's version socket;
 * every fast request is recorded once, under its own account, whatever record header its script sets.
 *
 * Whether a request took the fast path: nginx writes every request's access record, and a fast request's says
 * so (`fast`, with the account and route of nginx's compiled routes).
 */
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findNginx } from '../../src/runtime/front/nginx-front.js';
import type { EdgeAccessRecord } from '../../src/runtime/control-service.js';
import { eventually, startEdgeHarness, type EdgeHarness } from './harness.js';
import { edgeRequest, type EdgeAnswer } from './request.js';

const ECHO = `export default { async fetch(request) {
  const url = new URL(request.url);
  if (url.pathname === '/throw') throw new Error('boom');
  if (url.pathname === '/loop') { for (;;) {} }
  const body = request.body ? (await request.arrayBuffer()).byteLength : null;
  return Response.json({ url: request.url, method: request.method, body, cf: request.cf ?? null,
    headers: [...request.headers].filter(([k]) => k !== 'cf-ray') }, { headers: { 'x-script': 'echo', 'cf-ray': 'forged' } });
} };`;
const SERVICE_WORKER = `addEventListener('fetch', (event) => { if (new URL(event.request.url).pathname === '/answer') event.respondWith(new Response('answered')); });`;
const VERSION = (n: number) => `export default { fetch() { return new Response('v${n}'); } };`;

const nginx = findNginx();

/** GET / with `Host: host` on a keep-alive connection of `agent`. */
function keptAlive(agent: http.Agent, port: number, host: string): Promise<EdgeAnswer> {
  return new Promise((resolve, reject) => {
    http.get({ host: '127.0.0.1', port, path: '/', headers: { host }, agent }, (res) => {
      let body = '';
      res.on('data', (c: Buffer) => { body += c.toString(); });
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
    }).on('error', reject);
  });
}

describe.skipIf(!nginx)('edge: the fast path', () => {
  let h: EdgeHarness;
  let slow: EdgeHarness;
  const records: EdgeAccessRecord[] = [];

  beforeAll(async () => {
    h = await startEdgeHarness({ front: 'nginx', fastPath: true, cpuMs: 3000, access: (r) => records.push(...r) });
    // the same scripts behind an edge without the fast path: what the slow path gives
    slow = await startEdgeHarness({ front: 'nginx', access: () => undefined });
  }, 60_000);
  afterAll(async () => { await h?.close(); await slow?.close(); });

  /** Whether `answer` (already received) was served without the supervisor: its access record (nginx's) says so. */
  async function wentFast(answer: EdgeAnswer, _host: string): Promise<boolean> {
    const ray = answer.headers['cf-ray'];
    const record = await eventually(async () => {
      const found = records.find((r) => r.requestId === ray);
      expect(found).toBeDefined();
      return found!;
    });
    return record.fast === true;
  }

  /** Deploys on both edges and waits until `host` is served on the fast path. */
  async function deployBoth(host: string, source: string, opts: Parameters<EdgeHarness['catalog']['deploy']>[2] = {}): Promise<void> {
    h.catalog.deploy(host, source, opts);
    slow.catalog.deploy(host, source, opts);
    // the slow edge's nginx sends the hostname to its account's runtime (its first requests are handed over)
    await eventually(async () => {
      await edgeRequest(slow.edge.url, host, { path: '/warm' });
      expect(slow.edge.runtime.nginxConfig()).toContain(`${host} stratus_slot`);
    });
    await eventually(async () => {
      const a = await edgeRequest(h.edge.url, host, { path: '/warm' });
      expect(await wentFast(a, host)).toBe(true);
    });
  }

  it('serves a script without the supervisor, and the script sees what it sees through the supervisor', async () => {
    await deployBoth('echo.example.com', ECHO, { accountId: 'acct-a' });
    const cases: { path: string; method?: string; body?: string; headers: Record<string, string> }[] = [
      { path: '/a/b?x=1&y=%20z', headers: { 'x-forwarded-for': '203.0.113.9', 'cdn-loop': 'other', 'x-custom': 'yes' } },
      { path: '/', headers: { 'x-stratus-pass-nonce': 'forged', 'cf-connecting-ip': '198.51.100.1', 'cf-visitor': 'x' } },
      { path: '/post', method: 'POST', body: 'x'.repeat(5000), headers: { 'content-type': 'text/plain' } },
    ];
    for (const c of cases) {
      const fast = await edgeRequest(h.edge.url, 'echo.example.com', c);
      const ref = await edgeRequest(slow.edge.url, 'echo.example.com', c);
      expect(await wentFast(fast, 'echo.example.com')).toBe(true);
      expect(fast.status).toBe(200);
      expect(JSON.parse(fast.body)).toEqual(JSON.parse(ref.body));
      // the answer's ray is the edge's, never the script's
      expect(fast.headers['cf-ray']).toMatch(/^[0-9a-f]{16}-STR$/);
      // framing may differ: the supervisor streams a body whose length it does not know (chunked), workerd sends its length
      const strip = (hd: EdgeAnswer['headers']) => { const { 'cf-ray': _r, date: _d, 'content-length': _l, 'transfer-encoding': _t, ...rest } = hd; return rest; };
      expect(strip(fast.headers)).toEqual(strip(ref.headers));
    }
  });

  it('records each fast request once under its own account; a record header the script sets is neither believed nor sent on', async () => {
    const FORGER = `export default { fetch() { return new Response('forged', { headers: { 'x-stratus-record': JSON.stringify({ route: 'origin', accountId: 'acct-victim', requestId: 'r' }) } }); } };`;
    await deployBoth('forger.example.com', FORGER, { accountId: 'acct-b' });
    const answers = [];
    for (let i = 0; i < 5; i++) answers.push(await edgeRequest(h.edge.url, 'forger.example.com', { path: `/n${i}` }));
    for (const a of answers) {
      expect(a.body).toBe('forged');
      expect(a.headers['x-stratus-record']).toBeUndefined();
      expect(await wentFast(a, 'forger.example.com')).toBe(true);
      const mine = records.filter((r) => r.requestId === a.headers['cf-ray']);
      expect(mine).toHaveLength(1);
      expect(mine[0]).toMatchObject({ route: 'script:forger', accountId: 'acct-b', status: 200, method: 'GET' });
    }
    expect(records.some((r) => r.accountId === 'acct-victim')).toBe(false);
  });

  it('answers a script that throws, and a request passed on with nothing behind the script, with the supervisor\'s 1101 page', async () => {
    const fast = await edgeRequest(h.edge.url, 'echo.example.com', { path: '/throw' });
    const ref = await edgeRequest(slow.edge.url, 'echo.example.com', { path: '/throw' });
    expect(await wentFast(fast, 'echo.example.com')).toBe(true);
    expect(fast.status).toBe(500);
    expect(fast.body.replace(fast.headers['cf-ray'] as string, 'RAY')).toBe(ref.body.replace(ref.headers['cf-ray'] as string, 'RAY'));
    await deployBoth('sw.example.com', SERVICE_WORKER, { accountId: 'acct-a', mainType: 'commonjs' });
    expect((await edgeRequest(h.edge.url, 'sw.example.com', { path: '/answer' })).body).toBe('answered');
    const passed = await edgeRequest(h.edge.url, 'sw.example.com', { path: '/other' });
    const passedRef = await edgeRequest(slow.edge.url, 'sw.example.com', { path: '/other' });
    expect(await wentFast(passed, 'sw.example.com')).toBe(true);
    expect(passed.status).toBe(500);
    expect(passed.body.replace(passed.headers['cf-ray'] as string, 'RAY')).toBe(passedRef.body.replace(passedRef.headers['cf-ray'] as string, 'RAY'));
  });

  it('keeps a hostname with something behind its script on the slow path', async () => {
    h.catalog.deploy('passing.example.com', VERSION(1), { accountId: 'acct-a' });
    const t = h.catalog.hosts.get('passing.example.com')!;
    h.catalog.hosts.set('passing.example.com', { ...t, passThrough: { kind: 'origin', zoneId: 'z', hostname: 'passing.example.com', origin: '192.0.2.1' } } as typeof t);
    for (let i = 0; i < 5; i++) {
      const res = await edgeRequest(h.edge.url, 'passing.example.com');
      expect(res.body).toBe('v1');
      expect(await wentFast(res, 'passing.example.com')).toBe(false);
    }
  });

  it('loses no request across a deploy under load, and serves the new version within 5 s', async () => {
    await deployBoth('deploy.example.com', VERSION(1), { accountId: 'acct-a' });
    let stop = false;
    const bodies: string[] = [];
    const failures: string[] = [];
    let retried = 0;
    // half the clients on keep-alive connections (nginx's reload closes its old workers' idle ones), half not
    const agent = new http.Agent({ keepAlive: true, maxSockets: 3 });
    const loops = Array.from({ length: 6 }, async (_, n) => {
      while (!stop) {
        try {
          // A connection nginx's reload closes before it read the request on it (an idle keep-alive connection,
          // or one accepted by an old worker an instant before it stopped accepting) is retried once, as HTTP
          // clients retry an idempotent request on a connection closed before any answer (RFC 9112, 9.3.1).
          const send = () => (n % 2 === 0 ? edgeRequest(h.edge.url, 'deploy.example.com') : keptAlive(agent, h.edge.port, 'deploy.example.com'));
          const res = await send().catch((err: NodeJS.ErrnoException) => {
            if (err.code !== 'ECONNRESET') throw err;
            retried++;
            return send();
          });
          if (res.status !== 200) failures.push(`${n % 2 ? 'kept alive' : 'new connection'}: ${res.status} ${res.body.slice(0, 200)}`);
          else bodies.push(res.body);
        } catch (err) { failures.push(`${n % 2 ? 'kept alive' : 'new connection'}: ${String(err)} ${(err as NodeJS.ErrnoException).code}`); }
      }
    });
    await eventually(async () => expect(bodies.length).toBeGreaterThan(50));
    const deployed = Date.now();
    h.catalog.deploy('deploy.example.com', VERSION(2), { accountId: 'acct-a' });
    const seen = bodies.length;
    await eventually(async () => expect(bodies.slice(seen).slice(-20).every((b) => b === 'v2') && bodies.length - seen > 20).toBe(true), 10_000);
    const switched = Date.now() - deployed;
    // and served fast again
    await eventually(async () => {
      const res = await edgeRequest(h.edge.url, 'deploy.example.com');
      expect(res.body).toBe('v2');
      expect(await wentFast(res, 'deploy.example.com')).toBe(true);
    });
    stop = true;
    await Promise.all(loops);
    agent.destroy();
    expect(failures).toEqual([]);
    expect(switched).toBeLessThan(5_000);
    expect(retried).toBeLessThan(10); // one reload per deploy: at most the connections idle at that instant
  }, 60_000);

  it('gives the 1102 page to a request on a runtime killed under it, and serves the next ones', async () => {
    const loop = await edgeRequest(h.edge.url, 'echo.example.com', { path: '/loop' });
    expect(loop.status).toBe(503);
    expect(loop.body).toContain('1102');
    expect(await wentFast(loop, 'echo.example.com')).toBe(true);
    await eventually(async () => expect((await edgeRequest(h.edge.url, 'echo.example.com')).status).toBe(200));
    await eventually(async () => {
      const res = await edgeRequest(h.edge.url, 'echo.example.com');
      expect(await wentFast(res, 'echo.example.com')).toBe(true);
    });
  }, 60_000);

  it('sends a fast request its version\'s socket refuses to the supervisor (nginx\'s backup), each forwarding header once', async () => {
    const HEADERS = `export default { fetch(request) { return Response.json([...request.headers]); } };`;
    await deployBoth('fallback.example.com', HEADERS, { accountId: 'acct-a' });
    // the version's socket goes away (as when its runtime died): nginx's connect fails and it tries the backup
    const config = h.edge.runtime.nginxConfig()!;
    const variable = /fallback\.example\.com \$(stratus_fh\d+);/.exec(config)![1]!;
    const upstream = new RegExp(String.raw`map "\$scheme:\$request_uri" \$${variable} \{\n[^\n]* (stratus_v\d+);`).exec(config)![1]!;
    // its sockets (one per process of the generation; several with EDGE_TEST_REPLICAS), not the backup
    const servers = new RegExp(String.raw`upstream ${upstream} \{ (?:least_conn; )?((?:server unix:\S+ max_fails=0; )+)server \S+ max_fails=0 backup;`).exec(config)![1]!;
    for (const [, socket] of servers.matchAll(/server unix:(\S+) max_fails=0;/g)) fs.rmSync(socket!);
    const sent = { 'x-forwarded-for': '203.0.113.9', 'cdn-loop': 'other', 'x-custom': 'yes' };
    const answer = await edgeRequest(h.edge.url, 'fallback.example.com', { path: '/x?y=1', headers: sent });
    const ref = await edgeRequest(slow.edge.url, 'fallback.example.com', { path: '/x?y=1', headers: sent });
    expect(answer.status).toBe(200);
    const seen = new Map(JSON.parse(answer.body) as [string, string][]);
    expect(seen.get('x-forwarded-for')).toBe('203.0.113.9, 127.0.0.1');
    expect(seen.get('cdn-loop')).toBe('other, cloudflare');
    // the script saw the ray the client got (nginx's), and what the slow path's script sees but for it
    expect(seen.get('cf-ray')).toBe(answer.headers['cf-ray']);
    const withoutRay = (body: string) => (JSON.parse(body) as [string, string][]).filter(([k]) => k !== 'cf-ray');
    expect(withoutRay(answer.body)).toEqual(withoutRay(ref.body));
    // recorded once, as the compiled route's request
    expect(await wentFast(answer, 'fallback.example.com')).toBe(true);
    expect(records.filter((r) => r.requestId === answer.headers['cf-ray'])).toHaveLength(1);
  });

  it("never sends one account's hostname to another account's version socket; the sockets are in a folder only Stratus reads", async () => {
    await deployBoth('b.example.com', VERSION(7), { accountId: 'acct-b' });
    await deployBoth('a.example.com', VERSION(8), { accountId: 'acct-a' });
    for (let i = 0; i < 10; i++) {
      expect((await edgeRequest(h.edge.url, 'a.example.com')).body).toBe('v8');
      expect((await edgeRequest(h.edge.url, 'b.example.com')).body).toBe('v7');
    }
    // A's hostname claims B's version: the fast path refuses it (the slow path's hand-off decides as before).
    const bTarget = h.catalog.hosts.get('b.example.com')!;
    h.catalog.hosts.set('a.example.com', { ...bTarget, accountId: 'acct-a' } as typeof bTarget);
    h.catalog.changed();
    await eventually(async () => expect(h.edge.runtime.nginxConfig()).not.toMatch(/a\.example\.com \$stratus_fh/));
    const config = h.edge.runtime.nginxConfig()!;
    const socket = /server unix:(\S+) max_fails=0; server/.exec(config)![1]!;
    const folder = path.dirname(socket);
    expect(fs.statSync(folder).mode & 0o777).toBe(0o700);
    expect(fs.statSync(path.dirname(folder)).mode & 0o777).toBe(0o700);
  }, 60_000);
});
