/**
 * `stratus dev` (the built CLI) in a child process, started in a project folder as a user starts it, with an
 * environment free of the runner's STRATUS_* variables (plus the test's own).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { stopChild } from './stop-child.js';
import { CLI } from '../cli/run-cli.js';
import { waitUntil } from '../faults/load.js';

/** A running `stratus dev`. */
export interface DevProcess {
  child: ChildProcess;
  /** The address it printed (`http://127.0.0.1:PORT`). */
  url: string;
  /** What it printed so far on stdout. */
  stdout(): string;
  /** What it printed so far on stderr. */
  stderr(): string;
  /** Sends SIGTERM (unless it has exited) and waits for the exit. */
  stop(): Promise<void>;
}

/** Starts `stratus dev` in `cwd` on a free port, its data in `cwd/.stratus`, with more `args` and `env`; waits until it listens. */
export async function startDev(cwd: string, args: string[] = [], env: Record<string, string> = {}): Promise<DevProcess> {
  let stdout = '';
  let stderr = '';
  const clean = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('STRATUS_')));
  const child = spawn(process.execPath, [CLI, 'dev', '--http', '127.0.0.1:0', '--data-dir', path.join(cwd, '.stratus'), '--log-format', 'pretty', ...args],
    { cwd, env: { ...clean, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  child.stdout!.on('data', (d: Buffer) => { stdout += d.toString(); });
  child.stderr!.on('data', (d: Buffer) => { stderr += d.toString(); });
  await waitUntil(() => /listening on (http:\S+)/.test(stdout) || child.exitCode !== null, 90_000, 'stratus dev to listen');
  const m = /listening on (http:\S+)/.exec(stdout);
  if (!m) throw new Error(`stratus dev did not start:\n${stdout}\n${stderr}`);
  return {
    child,
    url: m[1]!,
    stdout: () => stdout,
    stderr: () => stderr,
    stop: () => stopChild(child),
  };
}
