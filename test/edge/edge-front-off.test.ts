/**
 * `--edge-front off`: generations accept on the edge socket themselves. Scripts are served, a Content-Length
 * over the body limit is still refused, and the client cannot pass a `request.cf` of its own (the header the
 * front would send is not read); the trade: a request in flight on a killed runtime loses its connection.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually, startEdgeHarness, type EdgeHarness } from './harness.js';
import { edgeRequest } from './request.js';

describe('edge: without the front process', () => {
  let h: EdgeHarness;

  beforeAll(async () => {
    h = await startEdgeHarness({ front: false, maxRequestBytes: 1024 });
    h.catalog.deploy('ip.example.com', 'export default { fetch(r) { return Response.json({ ip: r.headers.get("cf-connecting-ip"), cf: r.cf ?? null }); } }');
  }, 60_000);
  afterAll(async () => {
    await h?.close();
  });

  it("serves scripts and never takes the client's word for its address", async () => {
    const res = await edgeRequest(h.edge.url, 'ip.example.com', { headers: { 'x-stratus-cf': JSON.stringify({ clientIp: '203.0.113.66:1' }) } });
    expect(res.status).toBe(200);
    expect(JSON.parse(res.body).ip).toBe('127.0.0.1');
    expect(res.headers['cf-ray']).toMatch(/^[0-9a-f]{16}-STR$/);
  });

  it('refuses a Content-Length over the body limit', async () => {
    expect((await edgeRequest(h.edge.url, 'ip.example.com', { method: 'POST', body: Buffer.alloc(2048) })).status).toBe(413);
  });

  it('replaces a killed runtime and serves again (its requests in flight are lost)', async () => {
    const before = h.edge.runtime.restarts;
    process.kill(h.edge.runtime.pid!, 'SIGKILL');
    await eventually(async () => expect(h.edge.runtime.restarts).toBeGreaterThan(before));
    await eventually(async () => expect((await edgeRequest(h.edge.url, 'ip.example.com')).status).toBe(200));
  });
});
