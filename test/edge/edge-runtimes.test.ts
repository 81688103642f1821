/**
 * A runtime per account (`runtimes`, `--edge-runtimes`): each account's scripts run in a workerd process of
 * their own while there are no more accounts than runtimes, so a script that loops stalls only its own
 * account's runtime: another account's script answers while the loop runs (before the watchdog replaces the
 * stalled runtime), and the looping request gets the 1102 page (503) once it does. Past the number of
 * runtimes accounts share one; with none, every script runs in the shared runtime. A runtime burning its CPU
 * without answering its watchdog runs at the lowest CPU priority (nice 19) until it is replaced.
 */
import os from 'node:os';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually, startEdgeHarness, type EdgeHarness } from './harness.js';
import { edgeRequest } from './request.js';

const HELLO = (text: string) => `export default { fetch() { return new Response(${JSON.stringify(text)}); } };`;
const LOOP = `export default { async fetch(request, env) {
  if (new URL(request.url).pathname === '/warm') return new Response('warm');
  await env.MARKS.put('looping', 'yes');
  for (;;) {}
} };`;

describe('edge: a runtime per account', () => {
  let h: EdgeHarness;

  beforeAll(async () => {
    // The node's CPU limit is far longer than another account's request may take.
    h = await startEdgeHarness({ cpuMs: 8000 });
    h.catalog.deploy('a.example.com', HELLO('a ok'), { accountId: 'acct-a' });
    h.catalog.deploy('loop.example.com', LOOP, { accountId: 'acct-b', bindings: [{ type: 'r2_bucket', name: 'MARKS', bucketName: 'marks' }] });
  }, 60_000);
  afterAll(async () => { await h?.close(); });

  it("runs each account's scripts in a workerd process of its own", async () => {
    expect((await edgeRequest(h.edge.url, 'a.example.com')).body).toBe('a ok');
    expect((await edgeRequest(h.edge.url, 'loop.example.com', { path: '/warm' })).body).toBe('warm');
    const a = h.edge.runtime.pidOf('acct-a');
    const b = h.edge.runtime.pidOf('acct-b');
    expect(a).toBeTypeOf('number');
    expect(b).toBeTypeOf('number');
    expect(a).not.toBe(b);
  });

  it("answers another account's request while a script loops (its runtime at the lowest CPU priority), and the loop gets the 1102 page when its runtime is replaced", async () => {
    const before = h.edge.runtime.restarts;
    const loopPid = h.edge.runtime.pidOf('acct-b');
    const looping = edgeRequest(h.edge.url, 'loop.example.com');
    const marks = await h.store.bucket('acct-b--marks');
    await eventually(async () => expect(await marks.head('looping')).not.toBeNull());
    const a = await edgeRequest(h.edge.url, 'a.example.com');
    expect(a.body).toBe('a ok');
    // The looping runtime yields the CPU to everyone else; A's runtime keeps its priority.
    await eventually(async () => expect(os.getPriority(loopPid!)).toBe(19));
    expect(os.getPriority(h.edge.runtime.pidOf('acct-a')!)).toBe(0);
    // Answered while the loop still held its runtime: nothing was replaced yet.
    expect(h.edge.runtime.restarts).toBe(before);
    expect(h.edge.runtime.pidOf('acct-b')).toBe(loopPid);
    const res = await looping;
    expect(res.status).toBe(503);
    expect(res.body).toContain('1102');
    expect(h.edge.runtime.restarts).toBe(before + 1);
    expect(h.edge.runtime.pidOf('acct-b')).not.toBe(loopPid);
    await eventually(async () => expect((await edgeRequest(h.edge.url, 'loop.example.com', { path: '/warm' })).body).toBe('warm'));
  }, 60_000);
});

describe('edge: more accounts than runtimes', () => {
  it.each([1, 0])('with %i account runtimes, accounts share one', async (runtimes) => {
    const h = await startEdgeHarness({ runtimes });
    try {
      h.catalog.deploy('one.example.com', HELLO('one'), { accountId: 'acct-1' });
      h.catalog.deploy('two.example.com', HELLO('two'), { accountId: 'acct-2' });
      expect((await edgeRequest(h.edge.url, 'one.example.com')).body).toBe('one');
      expect((await edgeRequest(h.edge.url, 'two.example.com')).body).toBe('two');
      expect(h.edge.runtime.pidOf('acct-1')).toBeTypeOf('number');
      expect(h.edge.runtime.pidOf('acct-1')).toBe(h.edge.runtime.pidOf('acct-2'));
    } finally {
      await h.close();
    }
  }, 60_000);
});
