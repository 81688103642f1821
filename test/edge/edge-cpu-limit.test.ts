/**
 * A script version's own CPU limit (`limits.cpu_ms`, below the node's --script-cpu-ms): a request of it that
 * keeps the runtime busy past its limit gets production's 1102 page (503) long before the node's limit, while
 * waiting (timers, I/O) does not count; the node keeps serving that script and the others afterwards.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EdgeAccessRecord } from '../../src/runtime/control-service.js';
import { eventually, startEdgeHarness, type EdgeHarness } from './harness.js';
import { edgeRequest } from './request.js';

const SPIN = `export default {
  async fetch(request) {
    const path = new URL(request.url).pathname;
    if (path === '/spin') { for (;;) {} }
    if (path === '/wait') { await new Promise((r) => setTimeout(r, 3000)); return new Response('waited'); }
    return new Response('spin ok');
  },
};`;

describe('edge: a version\'s own CPU limit', () => {
  let h: EdgeHarness;
  const records: EdgeAccessRecord[] = [];

  beforeAll(async () => {
    // The node's own limit is far beyond the test's time: only the version's limit can stop the loop.
    // (The default front: nginx where installed, whose access log ends a budget; else the workerd front's reports.)
    h = await startEdgeHarness({ cpuMs: 900_000, access: (r) => records.push(...r) });
    h.catalog.deploy('spin.example.com', SPIN, { limits: { cpuMs: 1000 } });
    // the same account, so the same runtime, without a limit of its own: busy for 2.5 s of CPU
    h.catalog.deploy('busy.example.com', `export default { fetch() { const end = Date.now() + 2500; while (Date.now() < end) {} return new Response('busy done'); } };`);
    h.catalog.deploy('other.example.com', 'export default { fetch() { return new Response("other ok"); } };');
  }, 60_000);
  afterAll(async () => { await h?.close(); });

  it('lets a request wait longer than its CPU limit (waiting is not CPU time)', async () => {
    const res = await edgeRequest(h.edge.url, 'spin.example.com', { path: '/wait' });
    expect(res.status).toBe(200);
    expect(res.body).toBe('waited');
    expect(h.edge.runtime.restarts).toBe(0);
  });

  it("ends the request's budget with its access record: a longer busy request after it, of a script without a limit, is served", async () => {
    const res = await edgeRequest(h.edge.url, 'spin.example.com', { path: '/wait' });
    expect(res.body).toBe('waited');
    await eventually(async () => expect(records.some((r) => r.requestId === res.headers['cf-ray'])).toBe(true));
    const busy = await edgeRequest(h.edge.url, 'busy.example.com');
    expect(busy).toMatchObject({ status: 200, body: 'busy done' });
    expect(h.edge.runtime.restarts).toBe(0);
  }, 60_000);

  it('answers a request over its CPU limit with the 1102 page (503); the script and the others keep serving', async () => {
    const res = await edgeRequest(h.edge.url, 'spin.example.com', { path: '/spin' });
    expect(res.status).toBe(503);
    expect(res.body).toContain('1102');
    expect(h.edge.runtime.restarts).toBe(1);
    expect((await edgeRequest(h.edge.url, 'other.example.com')).body).toBe('other ok');
    expect((await edgeRequest(h.edge.url, 'spin.example.com')).body).toBe('spin ok');
  }, 120_000);
});
