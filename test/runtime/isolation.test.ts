/**
 * `stratus dev`'s isolation and limits (workerd), on a real socket: a throwing script answers the 1101 page
 * and the runtime keeps serving; a handler that never settles answers 1102 (503) at the time limit; a
 * synchronous infinite loop or unbounded allocation gets the runtime replaced and the next request served
 * by a fresh one; bodies stream both ways.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { startDevServer, type RunningDevServer, ScriptLoadError, ScriptConfigError } from '../../src/runtime/index.js';
import { silentLogger } from '../../src/shared/logger.js';
import { eventually } from '../edge/harness.js';

const fixture = (name: string) => path.join(import.meta.dirname, 'fixtures', name);

describe('stratus dev: isolation and limits', () => {
  let dev: RunningDevServer;
  let dataDir: string;

  beforeAll(async () => {
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'stratus-dev-'));
    dev = await startDevServer({
      script: fixture('echo.mjs'), http: { host: '127.0.0.1', port: 0 }, dataDir, logger: silentLogger(),
      timeoutMs: 3000, memoryLimitMb: 300, vars: { GREETING: 'hi' },
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

  it('answers 1101 (500) when the script throws, and keeps serving', async () => {
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
    expect(await res.text()).toContain('1101');
  });

  it('stops a synchronous infinite loop after the time limit and serves the next request', async () => {
    const restarts = dev.runtime.restarts;
    const outcome = await fetch(`${dev.url}/loop`).then((r) => r.status, () => 'closed');
    expect(outcome).not.toBe(200);
    // The connection may close before the runtime sees its process exit: the replacement follows at once.
    await vi.waitFor(() => expect(dev.runtime.restarts).toBeGreaterThan(restarts), { timeout: 30_000, interval: 50 });
    // A keep-alive connection to the replaced runtime may still be pooled by the client: retry on a reset.
    const next = await eventually(() => fetch(`${dev.url}/counter`));
    expect(next.status).toBe(200);
    expect(await next.text()).toBe('1'); // a fresh runtime: module state starts over
  });

  it('answers 1101 (500) to a handler whose promise can never settle, as production, and keeps serving', async () => {
    const res = await fetch(`${dev.url}/hang`);
    expect(res.status).toBe(500);
    expect(await res.text()).toMatch(/1101[\s\S]*never generate a response/);
    expect((await fetch(`${dev.url}/x`, { method: 'POST', body: 'ok' })).status).toBe(201);
  });

  it('replaces a runtime that allocates without bound', async () => {
    const restarts = dev.runtime.restarts;
    const outcome = await fetch(`${dev.url}/hog`).then((r) => r.status, () => 'closed');
    expect(outcome).not.toBe(200);
    // The connection may close before the runtime sees its process exit: the replacement follows at once.
    await vi.waitFor(() => expect(dev.runtime.restarts).toBeGreaterThan(restarts), { timeout: 30_000, interval: 50 });
    expect((await eventually(() => fetch(`${dev.url}/counter`))).status).toBe(200);
  });
});

describe('stratus dev: scripts that cannot load', () => {
  const base = { http: { host: '127.0.0.1', port: 0 }, logger: silentLogger() };

  it('rejects a syntax error at start', async () => {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'stratus-dev-'));
    await expect(startDevServer({ ...base, dataDir, script: fixture('bad-syntax.mjs') })).rejects.toBeInstanceOf(ScriptLoadError);
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  it('answers 1101 for a module without a fetch handler', async () => {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'stratus-dev-'));
    const dev = await startDevServer({ ...base, dataDir, script: fixture('no-fetch.mjs') });
    try {
      const res = await fetch(dev.url);
      expect(res.status).toBe(500);
      expect(await res.text()).toContain('1101');
    } finally {
      await dev.close();
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
  });

  it('rejects a missing script and a config without main', async () => {
    await expect(startDevServer({ ...base, dataDir: os.tmpdir(), script: fixture('nope.mjs') })).rejects.toBeInstanceOf(ScriptConfigError);
    await expect(startDevServer({ ...base, dataDir: os.tmpdir() })).rejects.toThrow(/no script given/);
  });
});
