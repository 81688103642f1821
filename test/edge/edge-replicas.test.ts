/**
 * `--edge-replicas 2`: every generation of an account's runtime is two workerd processes with the same versions,
 * each with sockets of its own; nginx's fast path sends each request to the one with the fewest in flight
 * (`least_conn`), so one process's garbage collection holds only its own requests. Both processes serve, a deploy
 * reaches both, a process killed outright has its generation replaced, two processes again, and a second account's
 * scripts never run in the first account's processes.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config/config.js';
import { findNginx } from '../../src/runtime/front/nginx-front.js';
import { replicaCount } from '../../src/runtime/edge-options.js';
import { eventually, startEdgeHarness, type EdgeHarness } from './harness.js';
import { edgeRequest } from './request.js';

/**
 * Answers its version and its process's id; `/slow` first waits 300 ms (a request held in flight); `/held` marks
 * itself in bucket MARKS (`held/<process id>/…`), then waits 1.5 s.
 */
const SCRIPT = (version: string) => `let id;
export default { async fetch(request, env) {
  id ??= crypto.randomUUID();
  const path = new URL(request.url).pathname;
  if (path === '/slow') await new Promise((r) => setTimeout(r, 300));
  if (path === '/held') { await env.MARKS.put('held/' + id + '/' + crypto.randomUUID(), ''); await new Promise((r) => setTimeout(r, 1500)); }
  return new Response(${JSON.stringify(version)} + ' ' + id);
} };`;
const MARKS = [{ type: 'r2_bucket' as const, name: 'MARKS', bucketName: 'marks' }];

const nginx = findNginx();

describe('--edge-replicas', () => {
  it('is 0 (two on two cores or more, one on one) unless set, by flag or environment, to 1-16', () => {
    expect(loadConfig({}, {}).edgeReplicas).toBe(0);
    expect([1, 2, 3, 64].map(replicaCount)).toEqual([1, 2, 2, 2]);
    expect(loadConfig({ 'edge-replicas': '1' }, {}).edgeReplicas).toBe(1);
    expect(loadConfig({}, { STRATUS_EDGE_REPLICAS: '3' }).edgeReplicas).toBe(3);
    for (const bad of ['-1', '17', 'two']) expect(() => loadConfig({ 'edge-replicas': bad }, {}), bad).toThrow();
  });
});

describe.skipIf(!nginx)('edge: two processes per runtime (--edge-replicas 2)', () => {
  let h: EdgeHarness;

  beforeAll(async () => {
    h = await startEdgeHarness({ front: 'nginx', fastPath: true, replicas: 2 });
  }, 60_000);
  afterAll(async () => { await h?.close(); });

  /** Twelve `/slow` requests at once: the answers' bodies. */
  const burst = async (host: string): Promise<string[]> => {
    const answers = await Promise.all(Array.from({ length: 12 }, () => edgeRequest(h.edge.url, host, { path: '/slow' })));
    for (const a of answers) expect(a.status, a.body).toBe(200);
    return answers.map((a) => a.body);
  };

  /** Deploys `source` on `host` and waits until nginx sends its requests to the version's two sockets. */
  const deployFast = async (host: string, source: string, accountId: string): Promise<string> => {
    const { versionId } = h.catalog.deploy(host, source, { accountId, bindings: MARKS });
    await eventually(async () => {
      expect((await edgeRequest(h.edge.url, host)).status).toBe(200);
      expect(h.edge.runtime.nginxConfig()).toMatch(new RegExp(`upstream stratus_v\\d+ \\{ least_conn; server unix:\\S+ max_fails=0; server unix:\\S+ max_fails=0; server unix:\\S+ max_fails=0 backup;`));
      expect(h.edge.runtime.nginxConfig()).toContain(`${host} $stratus_fh`);
    });
    return versionId;
  };

  it('serves a version from both processes of its generation, nginx sending requests to the one with fewer in flight', async () => {
    await deployFast('twin.test', SCRIPT('v1'), 'acct-1');
    const pids = h.edge.runtime.pidsOf('acct-1');
    expect(pids).toHaveLength(2);
    expect(new Set(pids).size).toBe(2);
    await eventually(async () => {
      const bodies = await burst('twin.test');
      expect(new Set(bodies.map((b) => b.split(' ')[0]))).toEqual(new Set(['v1']));
      expect(new Set(bodies.map((b) => b.split(' ')[1])).size).toBe(2); // both processes answered
    });
  });

  it("a second account's script runs in its own two processes, never in the first account's", async () => {
    await deployFast('other.test', SCRIPT('b1'), 'acct-2');
    const mine = h.edge.runtime.pidsOf('acct-1');
    const theirs = h.edge.runtime.pidsOf('acct-2');
    expect(theirs).toHaveLength(2);
    for (const pid of theirs) expect(mine).not.toContain(pid);
    const bodies = await burst('other.test');
    expect(new Set(bodies.map((b) => b.split(' ')[0]))).toEqual(new Set(['b1']));
    expect(new Set((await burst('twin.test')).map((b) => b.split(' ')[0]))).toEqual(new Set(['v1']));
  });

  it('a deploy reaches both processes', async () => {
    const before = h.edge.runtime.pidsOf('acct-1');
    h.catalog.deploy('twin.test', SCRIPT('v2'), { accountId: 'acct-1', bindings: MARKS });
    await eventually(async () => {
      const bodies = await burst('twin.test');
      expect(new Set(bodies.map((b) => b.split(' ')[0]))).toEqual(new Set(['v2']));
      expect(new Set(bodies.map((b) => b.split(' ')[1])).size).toBe(2);
    });
    const after = h.edge.runtime.pidsOf('acct-1');
    expect(after).toHaveLength(2);
    for (const pid of after) expect(before).not.toContain(pid); // a new generation: two new processes
  });

  it("a process killed outright: only its requests are lost (1102), the other's finish; a new generation of two takes over", async () => {
    const [first, second] = h.edge.runtime.pidsOf('acct-1');
    const sentAt = Date.now();
    const held = Promise.all(Array.from({ length: 12 }, () => edgeRequest(h.edge.url, 'twin.test', { path: '/held' })));
    const marks = await h.store.bucket('acct-1--marks');
    // both processes hold requests in flight
    const ids = await eventually(async () => {
      const seen = new Set((await marks.list({ prefix: 'held/' })).objects.map((o) => o.key.split('/')[1]));
      expect(seen.size).toBe(2);
      return seen;
    });
    // nginx passes a GET whose upstream failed to the next server within 100 ms of sending it
    // (`proxy_next_upstream_timeout`, docs/runtime.md): the requests are older than that when their process dies.
    while (Date.now() - sentAt < 300) await new Promise((r) => setTimeout(r, 20));
    process.kill(second!, 'SIGKILL');
    const answers = await held;
    const served = answers.filter((a) => a.status === 200);
    expect(served.length).toBeGreaterThan(0); // the surviving process's requests finished
    const survivorId = served[0]!.body.split(' ')[1]!;
    expect(ids.has(survivorId)).toBe(true);
    for (const a of answers) {
      if (a.status === 200) expect(a.body).toBe(`v2 ${survivorId}`);
      else {
        expect(a.status).toBe(503);
        expect(a.body).toContain('Error 1102');
      }
    }
    expect(answers.some((a) => a.status === 503)).toBe(true); // the killed process's were lost
    await eventually(async () => {
      const now = h.edge.runtime.pidsOf('acct-1');
      expect(now).toHaveLength(2);
      expect(now).not.toContain(second);
      expect(now).not.toContain(first); // a new generation; the survivor served meanwhile, then drained
      const bodies = await burst('twin.test');
      expect(new Set(bodies.map((b) => b.split(' ')[0]))).toEqual(new Set(['v2']));
      expect(new Set(bodies.map((b) => b.split(' ')[1])).size).toBe(2);
    });
  });
});
