/**
 * The generations' internal operations (ping, drain, flush, hand-off: in-workerd/supervisor/internal.ts) answer
 * only Node, which holds the per-process secret: the watchdog's pings (runtime/ping-client.ts) and the slots' own
 * requests. A client of the edge and a local process at a generation's internal port, each with a guessed secret,
 * are refused (403, a body naming nothing), and a hand-off naming another account's version runs nothing of it.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { edgeRequest } from './request.js';
import { eventually, startEdgeHarness, type EdgeHarness } from './harness.js';
import { listeningPorts } from './listening-ports.js';

describe('the generations\' internal operations, asked without the secret', () => {
  let h: EdgeHarness;
  let versionB: string;

  beforeAll(async () => {
    h = await startEdgeHarness();
    h.catalog.deploy('a.example.com', 'export default { fetch() { return new Response("A serves"); } }', { accountId: 'acct-a' });
    versionB = h.catalog.deploy('b.example.com', 'export default { fetch() { return new Response("B\'s own answer"); } }', { accountId: 'acct-b' }).versionId;
    expect((await edgeRequest(h.edge.url, 'a.example.com')).body).toBe('A serves');
    expect((await edgeRequest(h.edge.url, 'b.example.com')).body).toBe("B's own answer");
  }, 60_000);

  afterAll(async () => { await h?.close(); });

  const handoffToB = () => ({
    'x-stratus-op': 'handoff', 'x-stratus-url': 'http://b.example.com/', 'x-stratus-ray': 'aaaaaaaaaaaaaaaa',
    'x-stratus-target': JSON.stringify({ kind: 'script', accountId: 'acct-b', scriptName: 'b', versionId: versionB }),
  });

  it("refuses a client of the edge who sends the internal header with a guessed secret, running nothing of another account's", async () => {
    for (const op of [{ 'x-stratus-op': 'ping' }, { 'x-stratus-op': 'drain' }, { 'x-stratus-op': 'flush' }, handoffToB()]) {
      const res = await edgeRequest(h.edge.url, 'a.example.com', { headers: { 'x-stratus-internal': 'guessed', ...op } });
      expect(res.status).toBe(403);
      expect(res.body).toBe('forbidden');
    }
    // nothing was drained or flushed: both accounts are served as before
    expect((await edgeRequest(h.edge.url, 'a.example.com')).body).toBe('A serves');
    expect((await edgeRequest(h.edge.url, 'b.example.com')).body).toBe("B's own answer");
  });

  it("refuses a local process at account A's generation's internal port with a guessed secret", async () => {
    const pids = await eventually(async () => { const p = h.edge.runtime.pidsOf('acct-a'); expect(p.length).toBeGreaterThan(0); return p; });
    const ports = pids.flatMap((pid) => (pid === undefined ? [] : listeningPorts(pid)));
    expect(ports.length).toBeGreaterThan(0);
    for (const port of ports) {
      for (const op of [{ 'x-stratus-op': 'ping' }, { 'x-stratus-op': 'drain' }, { 'x-stratus-op': 'flush' }, handoffToB()]) {
        const res = await fetch(`http://127.0.0.1:${port}/`, { headers: { 'x-stratus-internal': 'guessed', ...op } });
        expect(res.status).toBe(403);
        expect(await res.text()).toBe('forbidden');
      }
    }
    expect((await edgeRequest(h.edge.url, 'a.example.com')).body).toBe('A serves');
    expect((await edgeRequest(h.edge.url, 'b.example.com')).body).toBe("B's own answer");
  });
});
