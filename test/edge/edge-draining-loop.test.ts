/**
 * A script that loops in a generation after that generation was replaced (a deploy of another version of the
 * same account's runtime swapped it out, and it is draining: told to stop, it answers no ping) is stopped at the
 * CPU limit, the node's or its version's own, and its request gets the 1102 page (503), not the end of the
 * minute a draining generation has to finish; a request merely waiting on a draining generation still completes,
 * and another account's runtime answers throughout.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually, startEdgeHarness, type EdgeHarness } from './harness.js';
import { edgeRequest } from './request.js';

/** Waits at `gate` (the test answers it once the generation is replaced), then loops or waits past the limit. */
const SCRIPT = `export default {
  async fetch(request) {
    const url = new URL(request.url);
    const gate = url.searchParams.get('gate');
    if (gate) await (await fetch(gate)).text();
    if (url.pathname === '/loop') { for (;;) {} }
    if (url.pathname === '/wait') { await new Promise((r) => setTimeout(r, 3000)); return new Response('waited'); }
    return new Response('ok');
  },
};`;

/** An HTTP server whose `/<name>` requests wait until {@link Gates.open} answers them. */
class Gates {
  private readonly waiting = new Map<string, http.ServerResponse>();
  readonly server = http.createServer((req, res) => { this.waiting.set(req.url!.slice(1), res); });
  url(name: string): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/${name}`;
  }
  reached(name: string): boolean {
    return this.waiting.has(name);
  }
  open(name: string): void {
    this.waiting.get(name)!.end('go');
  }
}

describe('edge: a script looping on a replaced, draining generation', () => {
  let h: EdgeHarness;
  const gates = new Gates();
  let deploys = 0;

  /** Starts `path` on `host` held at a gate, replaces the generation under it, then opens the gate. */
  async function onDrainingGeneration(host: string, path: string): Promise<Promise<{ status: number; body: string }>> {
    const gate = `g${deploys}`;
    const answer = edgeRequest(h.edge.url, host, { path: `${path}?gate=${encodeURIComponent(gates.url(gate))}` });
    await eventually(async () => expect(gates.reached(gate)).toBe(true));
    // another script of the same account: the runtime builds the next generation with it and retires this one
    const fresh = `fresh${++deploys}.example.com`;
    h.catalog.deploy(fresh, 'export default { fetch() { return new Response("fresh"); } };');
    await eventually(async () => expect((await edgeRequest(h.edge.url, fresh)).body).toBe('fresh'), 60_000);
    gates.open(gate);
    return answer;
  }

  beforeAll(async () => {
    await new Promise<void>((r) => gates.server.listen(0, '127.0.0.1', r));
    // the node's limit (8 s) is far below the minute a draining generation has; `own` has its own, lower limit
    h = await startEdgeHarness({ cpuMs: 8000, scriptOutbound: ['127.0.0.1/32'] });
    h.catalog.deploy('plain.example.com', SCRIPT);
    h.catalog.deploy('own.example.com', SCRIPT, { limits: { cpuMs: 1000 } });
    h.catalog.deploy('other.example.com', 'export default { fetch() { return new Response("other ok"); } };', { accountId: 'acct-2' });
    for (const host of ['plain.example.com', 'own.example.com', 'other.example.com']) {
      await eventually(async () => expect((await edgeRequest(h.edge.url, host)).status).toBe(200), 60_000);
    }
  }, 120_000);
  afterAll(async () => {
    await h?.close();
    gates.server.closeAllConnections();
    await new Promise((r) => gates.server.close(r));
  });

  it('lets a request that only waits on a draining generation finish (waiting is not CPU time)', async () => {
    const res = await onDrainingGeneration('plain.example.com', '/wait');
    expect(await res).toMatchObject({ status: 200, body: 'waited' });
    expect(h.edge.runtime.restarts).toBe(0);
  }, 120_000);

  /** A loop on `host`'s draining generation gets the 1102 page well before the 60 s grace; every script answers after. */
  async function loopStopped(host: string): Promise<void> {
    const restarts = h.edge.runtime.restarts;
    const res = await onDrainingGeneration(host, '/loop');
    const opened = Date.now();
    const answer = await res;
    expect(answer.status).toBe(503);
    expect(answer.body).toContain('1102');
    expect(Date.now() - opened).toBeLessThan(45_000); // the grace is 60 s
    expect(h.edge.runtime.restarts).toBeGreaterThan(restarts);
    expect((await edgeRequest(h.edge.url, 'other.example.com')).body).toBe('other ok');
    expect((await edgeRequest(h.edge.url, host)).body).toBe('ok');
  }

  it("stops a loop on a draining generation at the node's CPU limit with the 1102 page, not at the end of its grace", async () => {
    await loopStopped('plain.example.com');
  }, 120_000);

  it("holds a draining generation to a version's own, lower CPU limit", async () => {
    await loopStopped('own.example.com');
  }, 120_000);
});
