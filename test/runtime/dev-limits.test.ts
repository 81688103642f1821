/**
 * `stratus dev` (the built CLI, dist/) takes the runtime's limit flags of `serve` (--script-subrequests,
 * --script-bucket-subrequests, --script-cpu-ms, --script-memory-mb) and honours the project's `[limits]` in
 * wrangler.toml under them: the lower of the two applies; a request over a limit gets production's error (the
 * exception "Too many subrequests." in the script, the 1102 page for CPU), and the script keeps serving. A
 * wrong `[limits]` value is an error naming the file and the key.
 */
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../cli/run-cli.js';
import { startDev, type DevProcess } from '../helpers/dev-process.js';

const WORKER = `export default {
  async fetch(request, env) {
    const url = new URL(request.url);
    if (url.pathname === '/spin') { for (;;) {} }
    const out = [];
    for (let i = 0; i < 3; i++) { try { await (await fetch(url.searchParams.get('to'))).text(); out.push('fetch ok'); } catch (e) { out.push(e.message); } }
    for (let i = 0; i < 4; i++) { try { await env.FILES.put('k' + i, 'v'); out.push('put ok'); } catch (e) { out.push(e.message); } }
    return Response.json(out);
  },
};
`;

let dir: string;
let dev: DevProcess;
let url: string;
let origin: http.Server;
let to: string;

beforeAll(async () => {
  origin = http.createServer((_req, res) => res.end('hi'));
  await new Promise<void>((r) => origin.listen(0, '127.0.0.1', r));
  to = `http://127.0.0.1:${(origin.address() as AddressInfo).port}/`;
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'stratus-dev-limits-'));
  fs.writeFileSync(path.join(dir, 'worker.js'), WORKER);
  fs.writeFileSync(path.join(dir, 'wrangler.toml'), 'name = "limited"\nmain = "worker.js"\ncompatibility_date = "2025-01-01"\n\n[limits]\ncpu_ms = 500\nsubrequests = 3\n\n[[r2_buckets]]\nbinding = "FILES"\nbucket_name = "files"\n');
  // The node allows 2 fetch() calls (lower than [limits]) and 1000 bucket operations (higher: [limits] lowers it to 3).
  dev = await startDev(dir, ['--script-outbound', '127.0.0.1/32', '--script-subrequests', '2', '--script-cpu-ms', '900000'], { STRATUS_SCRIPT_BUCKET_SUBREQUESTS: '1000' });
  url = dev.url;
}, 120_000);

afterAll(async () => {
  await dev?.stop();
  await new Promise((r) => origin?.close(r));
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
});

describe('stratus dev: limit flags and [limits]', () => {
  it('applies the lower of the flag and [limits] per request: fetch() by the flag, bucket operations by [limits]', async () => {
    const res = await fetch(`${url}/?to=${encodeURIComponent(to)}`);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual(['fetch ok', 'fetch ok', 'Too many subrequests.', 'put ok', 'put ok', 'put ok', 'Too many subrequests.']);
  });

  it("stops a request over [limits].cpu_ms with the 1102 page (503) and keeps serving", async () => {
    const res = await fetch(`${url}/spin`);
    expect(res.status).toBe(503);
    expect(await res.text()).toContain('1102');
    const next = await fetch(`${url}/?to=${encodeURIComponent(to)}`);
    expect(next.status).toBe(200);
  }, 60_000);

  it('refuses a wrong [limits] value naming the file and the key, and a wrong flag naming the flag', async () => {
    const bad = fs.mkdtempSync(path.join(os.tmpdir(), 'stratus-dev-limits-bad-'));
    try {
      fs.writeFileSync(path.join(bad, 'worker.js'), WORKER);
      fs.writeFileSync(path.join(bad, 'wrangler.toml'), 'main = "worker.js"\n[limits]\ncpu_ms = -5\n');
      const r = await runCli(['dev', '--http', '127.0.0.1:0', '--data-dir', path.join(bad, '.stratus')], {}, bad);
      expect(r.code).toBe(2);
      expect(r.stderr).toContain('wrangler.toml: limits.cpu_ms must be a whole number from 1 to 300000, got -5');
      const flag = await runCli(['dev', '--http', '127.0.0.1:0', '--data-dir', path.join(bad, '.stratus'), '--script-subrequests', 'many'], {}, bad);
      expect(flag.code).toBe(2);
      expect(flag.stderr).toContain('--script-subrequests must be a whole number from 0 to 10000000, got "many"');
    } finally {
      fs.rmSync(bad, { recursive: true, force: true });
    }
  }, 60_000);
});
