/**
 * The runtime's isolation and limits, on a real socket: a throwing script answers 500 and the server keeps
 * serving; a handler that never returns (even a synchronous infinite loop) is stopped after the time limit
 * with a 503 and the next request is served by a fresh worker; bodies stream both ways.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDevServer, type RunningDevServer, ScriptLoadError, ScriptConfigError } from '../../src/runtime/index.js';
import { silentLogger } from '../../src/shared/logger.js';
import { buildWorker } from './worker-build.js';

const fixture = (name: string) => path.join(import.meta.dirname, 'fixtures', name);

describe('stratus dev: isolation and limits', () => {
  let dev: RunningDevServer;
  let dataDir: string;

  beforeAll(async () => {
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'stratus-dev-'));
    dev = await startDevServer({
      script: fixture('echo.mjs'), http: { host: '127.0.0.1', port: 0 }, dataDir, logger: silentLogger(),
      timeoutMs: 1000, memoryLimitMb: 96, vars: { GREETING: 'hi' }, workerUrl: await buildWorker(),
    });
  });
  afterAll(async () => {
    await dev?.close();
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  it('serves a request and streams a request body to the script and back', async () => {
    const payload = new Uint8Array(3 * 1024 * 1024).map((_, i) => i % 251);
    const res = await fetch(`${dev.url}/upload`, { method: 'PUT', body: payload });
    expect(res.status).toBe(201);
    expect(res.headers.get('x-method')).toBe('PUT');
    expect(res.headers.get('x-length')).toBe(String(payload.length));
    expect(Buffer.compare(Buffer.from(await res.arrayBuffer()), payload)).toBe(0);
  });

  it('gives the script env vars, ctx.waitUntil, ctx.passThroughOnException and FixedLengthStream', async () => {
    const res = await fetch(`${dev.url}/env`);
    expect(await res.json()).toEqual({ keys: ['GREETING'], fixed: 'function' });
  });

  it('answers 500 when the script throws, and keeps serving', async () => {
    const before = Number(await (await fetch(`${dev.url}/counter`)).text());
    const res = await fetch(`${dev.url}/throw`);
    expect(res.status).toBe(500);
    expect(await res.text()).toContain('boom from the script');
    // Same worker (its module state survived): the counter went on.
    const after = Number(await (await fetch(`${dev.url}/counter`)).text());
    expect(after).toBe(before + 2);
  });

  it('answers 500 when the handler returns something that is not a Response', async () => {
    const res = await fetch(`${dev.url}/not-a-response`);
    expect(res.status).toBe(500);
    expect(await res.text()).toContain('must return a Response');
  });

  it('stops a synchronous infinite loop after the time limit and serves the next request', async () => {
    const restarts = dev.host.restarts;
    const started = Date.now();
    const res = await fetch(`${dev.url}/loop`);
    expect(res.status).toBe(503);
    expect(await res.text()).toContain('time limit');
    expect(Date.now() - started).toBeGreaterThanOrEqual(900);
    expect(dev.host.restarts).toBe(restarts + 1);
    const next = await fetch(`${dev.url}/counter`);
    expect(next.status).toBe(200);
    expect(await next.text()).toBe('1'); // a fresh worker: module state starts over
  });

  it('stops a handler whose promise never settles', async () => {
    const res = await fetch(`${dev.url}/hang`);
    expect(res.status).toBe(503);
    expect((await fetch(`${dev.url}/x`, { method: 'POST', body: 'ok' })).status).toBe(201);
  });

  it('replaces a worker that runs out of memory', async () => {
    const restarts = dev.host.restarts;
    const res = await fetch(`${dev.url}/hog`);
    expect(res.status).toBe(503);
    expect(await res.text()).toMatch(/worker crashed: .*memory/i);
    expect(dev.host.restarts).toBe(restarts + 1);
    expect((await fetch(`${dev.url}/counter`)).status).toBe(200);
  });

  it('answers other requests in flight with 503 when their worker is restarted', async () => {
    const [looped, ok] = await Promise.all([
      fetch(`${dev.url}/loop`),
      new Promise((r) => setTimeout(r, 100)).then(() => fetch(`${dev.url}/counter`)),
    ]);
    expect(looped.status).toBe(503);
    expect(ok.status).toBe(503);
    expect((await fetch(`${dev.url}/counter`)).status).toBe(200);
  });
});

describe('stratus dev: scripts that cannot load', () => {
  const base = { http: { host: '127.0.0.1', port: 0 }, logger: silentLogger() };

  it('rejects a syntax error at start', async () => {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'stratus-dev-'));
    await expect(startDevServer({ ...base, dataDir, script: fixture('bad-syntax.mjs'), workerUrl: await buildWorker() })).rejects.toBeInstanceOf(ScriptLoadError);
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  it('rejects a module without a fetch handler', async () => {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'stratus-dev-'));
    await expect(startDevServer({ ...base, dataDir, script: fixture('no-fetch.mjs'), workerUrl: await buildWorker() })).rejects.toThrow(/no fetch handler/);
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  it('rejects a missing script and a config without main', async () => {
    await expect(startDevServer({ ...base, dataDir: os.tmpdir(), script: fixture('nope.mjs') })).rejects.toBeInstanceOf(ScriptConfigError);
    await expect(startDevServer({ ...base, dataDir: os.tmpdir() })).rejects.toThrow(/no script given/);
  });
});
