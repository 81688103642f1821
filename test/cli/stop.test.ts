/**
 * Stopping the parent stops everything: SIGTERM or SIGINT to `stratus serve` (run directly, or through npx,
 * which forwards the signal) leaves none of its processes (DNS UDP workers included) running, and a second
 * start on the same ports finds them free.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../dns-server/ports.js';
import { waitUntil } from '../faults/load.js';
import { alive, descendants, startCli, type RunningCli } from './run-cli.js';

const ROOT = path.resolve(import.meta.dirname, '../..');
let dir: string;
beforeAll(() => { dir = fs.mkdtempSync(path.join(os.tmpdir(), 'stratus-cli-stop-')); });
afterAll(() => { fs.rmSync(dir, { recursive: true, force: true }); });

/** Fixed free ports for the three listeners, the DNS thread, a fresh data folder. */
async function serveArgs(): Promise<string[]> {
  return ['serve', '--data-dir', fs.mkdtempSync(path.join(dir, 'd-')), '--http', `127.0.0.1:${await freePort()}`,
    '--dns', `127.0.0.1:${await freePort()}`, '--s3', `127.0.0.1:${await freePort()}`, '--dns-workers', '2', '--log-level', 'warn',
    '--edge', 'off', '--admin', '127.0.0.1:0', '--log-format', 'pretty'];
}

/** Sends `signal`, waits for the exit, and checks that every process it had started is gone. */
async function stopAndCheck(running: RunningCli, signal: NodeJS.Signals, minChildren: number): Promise<number | string> {
  const before = descendants(running.child.pid!);
  expect(before.length, running.output()).toBeGreaterThanOrEqual(minChildren);
  running.child.kill(signal);
  const code = await running.exited;
  await waitUntil(() => before.every((pid) => !alive(pid)), 30_000, `processes ${before.join(', ')} to end`);
  return code;
}

describe('stopping stratus serve', () => {
  it('SIGTERM and SIGINT stop the server with its DNS thread, and the ports are free for the next start', async () => {
    const args = await serveArgs();
    const first = await startCli(args);
    expect(await stopAndCheck(first, 'SIGTERM', 0)).toBe(0);
    expect(first.output()).toContain('stratus: stopped');
    const second = await startCli(args);
    expect(await stopAndCheck(second, 'SIGINT', 0)).toBe(0);
    expect(second.output()).not.toMatch(/worker exited|thread exited/);
  });

  it('through npx: SIGTERM to npx stops stratus', async () => {
    const args = await serveArgs();
    // npx runs the clone's `prepare` (npm run build) the first time, --no-install or not: that rewrote dist/ under
    // the other files' spawned servers (one failed to import a half-written module). The suite built it already.
    const viaNpx = await startCli(args, { command: ['npx', '--no-install', 'stratus'], cwd: ROOT, env: { npm_config_ignore_scripts: 'true' } });
    // npx -> node dist/cli.js: at least one process below npx.
    await stopAndCheck(viaNpx, 'SIGTERM', 1);
    const again = await startCli(args);
    expect(await stopAndCheck(again, 'SIGTERM', 0)).toBe(0);
  });
});
