/**
 * The edge listener (served by workerd, not Node) in the access log and the metrics: each request a script,
 * or an error page for an unknown host, answered gives one `listener: "edge"` line with the script's route
 * label, status, the ray id and the script's account; two accounts' scripts are logged under their own
 * accounts; no query string, header value or script secret reaches a log line. `/readyz` names the edge.
 */
import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { MemoryCatalog } from '../edge/memory-catalog.js';
import { edgeRequest } from '../edge/request.js';
import { waitUntil } from '../faults/load.js';
import { findNginx } from '../../src/runtime/front/nginx-front.js';
import { accessLines, captureLogger } from './capture-logger.js';
import { httpRequests, metricSample } from '../helpers/metrics.js';

const SECRET_BINDING = 'edge-binding-secret-7f3a9c1e5b';
const QUERY_TOKEN = 'edge-query-token-0d4e8b2a6c';
const AUTH_HEADER = 'Bearer edge-header-token-93ab17fe';
const APP = `export default {
  async fetch(request, env) {
    return new Response('hello from ' + env.WHO + (env.API_KEY ? '' : '!'), { headers: { 'content-type': 'text/plain' } });
  },
};`;

/** A body streamed in two chunks, 19 bytes in all, with no Content-Length. */
const STREAM_APP = `export default {
  async fetch() {
    const e = new TextEncoder();
    return new Response(new ReadableStream({ start(c) { c.enqueue(e.encode('nineteen ')); c.enqueue(e.encode('bytes body')); c.close(); } }));
  },
};`;

const capture = captureLogger('info');
const catalog = new MemoryCatalog();
let server: TestServer;
/** The edge counters this file's requests add to, and their values before its first request. */
const COUNTED = [httpRequests('edge', 'script:first', 'GET', 200), httpRequests('edge', 'unserved', 'GET', 530), httpRequests('edge', 'refused', 'POST', 413)];
const countedBefore = new Map<string, number>();

beforeAll(async () => {
  server = await startTestServer({ logger: capture.logger, flags: { edge: '127.0.0.1:0' }, edgeCatalog: catalog });
  for (const sample of COUNTED) countedBefore.set(sample, await metricSample(server.running.adminUrl!, sample));
}, 90_000);
afterAll(async () => { await server?.stop(); });

describe('edge access log and metrics', () => {
  it('logs each edge request under its script and account, with the ray id and no secret', async () => {
    catalog.deploy('first.example.com', APP, { accountId: 'acct-first', bindings: [{ type: 'plain_text', name: 'WHO', text: 'first' }, { type: 'secret_text', name: 'API_KEY', text: SECRET_BINDING }] });
    catalog.deploy('second.example.com', APP, { accountId: 'acct-second', bindings: [{ type: 'plain_text', name: 'WHO', text: 'second' }] });
    const edge = server.running.edgeUrl!;
    const first = await edgeRequest(edge, 'first.example.com', { path: `/p?token=${QUERY_TOKEN}`, headers: { authorization: AUTH_HEADER } });
    expect(first).toMatchObject({ status: 200, body: 'hello from first' });
    const second = await edgeRequest(edge, 'second.example.com', { method: 'POST', body: 'abc' });
    expect(second).toMatchObject({ status: 200, body: 'hello from second!' });
    const unknown = await edgeRequest(edge, 'nobody.example.com');
    expect(unknown.status).toBe(530);

    await waitUntil(() => accessLines(capture.lines(), 'edge').length >= 3, 20_000, 'edge access lines');
    const lines = accessLines(capture.lines(), 'edge');
    expect(lines).toHaveLength(3);
    const one = lines.find((l) => l.requestId === first.headers['cf-ray'])!;
    expect(one).toMatchObject({ method: 'GET', route: 'script:first', status: 200, accountId: 'acct-first', msg: 'GET script:first 200', bytes: 'hello from first'.length });
    expect(typeof one.durationMs).toBe('number');
    expect(one.remote).toBe('127.0.0.1');
    expect(lines.find((l) => l.requestId === second.headers['cf-ray'])).toMatchObject({ method: 'POST', route: 'script:second', status: 200, accountId: 'acct-second', bytesIn: 3 });
    const page = lines.find((l) => l.requestId === unknown.headers['cf-ray'])!;
    expect(page).toMatchObject({ route: 'unserved', status: 530 });
    expect(page.accountId).toBeUndefined();

    const text = capture.text();
    for (const secret of [SECRET_BINDING, QUERY_TOKEN, AUTH_HEADER, 'edge-header-token']) expect(text).not.toContain(secret);
  });

  it('counts the bytes of a streamed answer (no Content-Length)', async () => {
    catalog.deploy('stream.example.com', STREAM_APP, { accountId: 'acct-stream' });
    const edge = server.running.edgeUrl!;
    const streamed = await edgeRequest(edge, 'stream.example.com');
    expect(streamed).toMatchObject({ status: 200, body: 'nineteen bytes body' });
    expect(streamed.headers['content-length']).toBeUndefined();
    await waitUntil(() => accessLines(capture.lines(), 'edge').some((l) => l.requestId === streamed.headers['cf-ray']), 20_000, 'the streamed answer in the access log');
    const line = accessLines(capture.lines(), 'edge').find((l) => l.requestId === streamed.headers['cf-ray'])!;
    expect(line).toMatchObject({ route: 'script:stream', status: 200, accountId: 'acct-stream' });
    // The workerd front counts the body's bytes; nginx (the default where installed) the bytes it sent for the
    // body, its chunked framing included (`$body_bytes_sent`).
    if (findNginx()) expect(line.bytes).toBeGreaterThanOrEqual(19);
    else expect(line.bytes).toBe(19);
  });

  it('logs every request of a burst (sent in batches, the last ones when requests stop) and of a generation replaced by a deploy', async () => {
    catalog.deploy('burst.example.com', APP, { accountId: 'acct-burst', bindings: [{ type: 'plain_text', name: 'WHO', text: 'burst' }] });
    const edge = server.running.edgeUrl!;
    const rays = new Set<string>();
    const send = async (n: number) => {
      for (let i = 0; i < n; i++) {
        const res = await edgeRequest(edge, 'burst.example.com', { path: `/n${i}` });
        expect(res.status).toBe(200);
        rays.add(String(res.headers['cf-ray']));
      }
    };
    await Promise.all(Array.from({ length: 8 }, () => send(40)));
    // A deploy right after: a request for the new version starts a new generation, and the old one drains and exits.
    catalog.deploy('other-burst.example.com', APP, { accountId: 'acct-burst', bindings: [{ type: 'plain_text', name: 'WHO', text: 'other' }] });
    expect((await edgeRequest(edge, 'other-burst.example.com')).body).toBe('hello from other!');
    const logged = () => new Set(accessLines(capture.lines(), 'edge').map((l) => String(l.requestId)));
    await waitUntil(() => [...rays].every((r) => logged().has(r)), 20_000, 'every ray of the burst in the access log').catch(() => undefined);
    expect([...rays].filter((r) => !logged().has(r))).toEqual([]);
    expect(accessLines(capture.lines(), 'edge').filter((l) => rays.has(String(l.requestId))).every((l) => l.route === 'script:burst')).toBe(true);
  });

  it("logs the front's own answers: a body over the limit (413) as route refused", async () => {
    const edge = new URL(server.running.edgeUrl!);
    // Refused from its Content-Length (over the default 100 MiB) before any body is sent.
    const text = await new Promise<string>((resolve, reject) => {
      const socket = net.connect(Number(edge.port), edge.hostname, () => socket.write('POST /upload HTTP/1.1\r\nhost: first.example.com\r\ncontent-length: 200000000\r\n\r\n'));
      let got = '';
      socket.on('data', (d: Buffer) => { got += d.toString('latin1'); if (got.includes('</html>')) { socket.destroy(); resolve(got); } });
      socket.on('error', reject);
    });
    expect(text).toMatch(/^HTTP\/1\.1 413 /);
    const ray = /\r\ncf-ray: ([^\r]+)\r\n/i.exec(text)![1];
    await waitUntil(() => accessLines(capture.lines(), 'edge').some((l) => l.requestId === ray), 20_000, 'the refused request in the access log');
    const pageBytes = Number(/\r\ncontent-length: (\d+)\r\n/i.exec(text)![1]);
    expect(pageBytes).toBeGreaterThan(0);
    expect(accessLines(capture.lines(), 'edge').find((l) => l.requestId === ray)).toMatchObject({ method: 'POST', route: 'refused', status: 413, remote: '127.0.0.1', bytes: pageBytes });
  });

  it('counts edge requests in /metrics and names the edge runtime in /readyz', async () => {
    for (const sample of COUNTED) expect(await metricSample(server.running.adminUrl!, sample), sample).toBeGreaterThan(countedBefore.get(sample)!);
    const metrics = await (await fetch(`${server.running.adminUrl}/metrics`)).text();
    expect(metrics).not.toContain('acct-first');
    const ready = await fetch(`${server.running.adminUrl}/readyz`);
    const report = await ready.json() as { ready: boolean; checks: Record<string, { ok: boolean; detail?: string }> };
    expect(ready.status).toBe(200);
    expect(report.checks.edge).toMatchObject({ ok: true });
    expect(report.checks.edge!.detail).toMatch(/\d+ workerd runtimes? serving \d+ script versions?/);
  });
});
