/**
 * One account's loop stalls no other account (issue 34, part 6), on a real `stratus serve --edge`: two accounts,
 * each with a zone, a proxied hostname and a script on a route, deployed through the v4 API with their own
 * credentials. While B's script runs a busy loop on a request, A's requests, started on schedule every 50 ms for
 * 5 s (open loop: latency counted from the scheduled start, not from when the client got round to sending),
 * keep a p99 under 50 ms more than the slowest of the same schedule with nothing looping, measured just before
 * in the same run (the machine's own scheduling delay: on a quiet machine the bound is about 50 ms; the suite runs
 * this file alone, after the rest, for that reason); B's looping request gets production's 1102 page (503) once
 * the node's CPU limit replaces the runtime running it, and B's script serves again afterwards.
 *
 * This is a behaviour test of isolation, not a speed benchmark: with one runtime for every account A's requests
 * waited for B's loop to be stopped (seconds), against tens of milliseconds at most when the loop is confined.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { toFile } from 'cloudflare';
import type Cloudflare from 'cloudflare';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { accountId } from '../helpers/api.js';
import { addUser } from '../helpers/users.js';
import { edgeRequest } from '../edge/request.js';
import { eventually } from '../edge/harness.js';

/** The node's CPU limit: longer than A's 5 s of requests, so B loops through all of them. */
const CPU_MS = 7000;
const PERIOD_MS = 50;
/** What B's loop may add to A's p99 beyond the machine's own delay (issue 34: a p99 under 50 ms). */
const LOOP_BUDGET_MS = 50;
const REQUESTS = 100;

const A_SCRIPT = 'export default { fetch() { return new Response("a ok"); } };';
/** B tells the test it is about to loop (a fetch to the test's own listener), then loops on /spin. */
const B_SCRIPT = `export default {
  async fetch(request) {
    const url = new URL(request.url);
    if (url.pathname === '/spin') {
      await (await fetch(url.searchParams.get('notify'))).text();
      for (;;) {}
    }
    return new Response('b ok');
  },
};`;

let server: TestServer;
let edge: string;
let notify: http.Server;
let notifyUrl: string;
let looping: () => void;
const loopStarted = new Promise<void>((resolve) => { looping = resolve; });

/** A zone with a proxied `www` record and `script` on `www.<zone>/*`, in the SDK client's own account. */
async function deploy(sdk: Cloudflare, account: string, zone: string, script: string, source: string): Promise<void> {
  const { id } = await sdk.zones.create({ account: { id: account }, name: zone, type: 'full' });
  await sdk.dns.records.create({ zone_id: id, type: 'A', name: `www.${zone}`, content: '192.0.2.10', proxied: true, ttl: 1 });
  await sdk.workers.scripts.update(script, {
    account_id: account,
    metadata: { main_module: 'index.js', compatibility_date: '2024-09-23' },
    files: [await toFile(Buffer.from(source), 'index.js', { type: 'application/javascript+module' })],
  });
  await sdk.workers.routes.create({ zone_id: id, pattern: `www.${zone}/*`, script });
}

beforeAll(async () => {
  notify = http.createServer((_req, res) => { res.end('go'); looping(); });
  await new Promise<void>((r) => notify.listen(0, '127.0.0.1', r));
  notifyUrl = `http://127.0.0.1:${(notify.address() as AddressInfo).port}/`;
  server = await startTestServer({ flags: { edge: '127.0.0.1:0', 'script-outbound': '127.0.0.1/32', 'script-cpu-ms': String(CPU_MS) } });
  edge = server.running.edgeUrl!;
  const other = await addUser(server, 'loop-b@example.com');
  await deploy(server.sdk(), await accountId(server), 'loop-a.test', 'a-hello', A_SCRIPT);
  await deploy(other.sdk(), other.accountId, 'loop-b.test', 'b-spin', B_SCRIPT);
  // Both scripts loaded and serving before the loop starts.
  await eventually(async () => expect((await edgeRequest(edge, 'www.loop-a.test')).body).toBe('a ok'));
  await eventually(async () => expect((await edgeRequest(edge, 'www.loop-b.test')).body).toBe('b ok'));
}, 120_000);

afterAll(async () => {
  // A loop still running (a failed assertion) holds its runtime until the shutdown's grace ends.
  await server?.stop();
  await new Promise((r) => notify?.close(r));
}, 120_000);

/** Sends `count` requests to `host`, the i-th started at `start + i * period`; each latency from its scheduled start. */
async function openLoop(host: string, count: number, period: number): Promise<{ latencies: number[]; statuses: number[] }> {
  const start = performance.now() + period;
  const runs: Promise<{ ms: number; status: number }>[] = [];
  for (let i = 0; i < count; i++) {
    const at = start + i * period;
    runs.push(new Promise((resolve, reject) => {
      setTimeout(() => {
        edgeRequest(edge, host).then((res) => resolve({ ms: performance.now() - at, status: res.status }), reject);
      }, Math.max(0, at - performance.now()));
    }));
    // Timers are set as the schedule advances: a timer set long in advance fires no earlier for it.
    if (i % 10 === 9) await new Promise((r) => setTimeout(r, Math.max(0, at - performance.now() - period)));
  }
  const done = await Promise.all(runs);
  return { latencies: done.map((d) => d.ms), statuses: done.map((d) => d.status) };
}

describe('edge: one account\'s loop', () => {
  it("leaves another account's requests a p99 within 50 ms of the machine's own delay, and ends in the 1102 page for its own request", async () => {
    // The same schedule with nothing looping: how late this machine answers A anyway.
    const quiet = (await openLoop('www.loop-a.test', 40, PERIOD_MS)).latencies.sort((x, y) => x - y);
    const bound = LOOP_BUDGET_MS + quiet.at(-1)!;
    const spinning = edgeRequest(edge, 'www.loop-b.test', { path: `/spin?notify=${encodeURIComponent(notifyUrl)}` });
    spinning.catch(() => undefined); // awaited below; a failure before then must not be an unhandled rejection
    await loopStarted;
    const sent = performance.now();
    const a = await openLoop('www.loop-a.test', REQUESTS, PERIOD_MS);
    const sorted = [...a.latencies].sort((x, y) => x - y);
    const p99 = sorted[Math.ceil(sorted.length * 0.99) - 1]!;
    const median = sorted[Math.floor(sorted.length / 2)]!;
    expect(a.statuses.every((s) => s === 200), `statuses ${a.statuses.join(',')}`).toBe(true);
    expect(p99, `A's latencies (ms): median ${median.toFixed(1)}, p99 ${p99.toFixed(1)}, max ${sorted.at(-1)!.toFixed(1)}; with nothing looping: median ${quiet[10]!.toFixed(1)}, max ${quiet.at(-1)!.toFixed(1)}; over ${Math.round(bound)} ms: ${a.latencies.map((ms, i) => [i, Math.round(ms)]).filter(([, ms]) => ms! >= bound).map(([i, ms]) => `#${i} ${ms}`).join(', ')}`).toBeLessThan(bound);

    const spun = await spinning;
    expect(spun.status).toBe(503);
    expect(spun.body).toContain('1102');
    // The loop was stopped by the CPU limit, after A's requests were all answered.
    expect(performance.now() - sent).toBeGreaterThan(REQUESTS * PERIOD_MS);
    await eventually(async () => expect((await edgeRequest(edge, 'www.loop-b.test')).body).toBe('b ok'));
    expect((await edgeRequest(edge, 'www.loop-a.test')).body).toBe('a ok');
  }, 120_000);
});
