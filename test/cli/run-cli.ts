/**
 * Runs the built `stratus` (dist/cli.js; `npm run build` first) as an operator does, and looks at the
 * processes it leaves: the descendants of a pid, read from /proc.
 */
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { waitUntil } from '../faults/load.js';

/** The CLI entry of the build. */
export const CLI = path.resolve(import.meta.dirname, '../../dist/cli.js');

/** What a finished command did. */
export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs `stratus ARGS` to its end (`env` is added to a copy of this process's environment without STRATUS_*). */
export function runCli(args: string[], env: Record<string, string> = {}, cwd?: string): Promise<CliResult> {
  if (!fs.existsSync(CLI)) throw new Error(`${CLI} is missing: run npm run build`);
  const base = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('STRATUS_')));
  return new Promise((resolve) => {
    execFile(process.execPath, [CLI, ...args], { env: { ...base, ...env }, timeout: 120_000, ...(cwd ? { cwd } : {}) }, (err, stdout, stderr) => {
      resolve({ code: err ? (typeof err.code === 'number' ? err.code : -1) : 0, stdout, stderr });
    });
  });
}

/** The pids of every living descendant of `pid` (children, grandchildren, …). */
export function descendants(pid: number): number[] {
  const parent = new Map<number, number>();
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      // The command name (field 2) is in parentheses and may contain spaces: the ppid follows the last ')'.
      const stat = fs.readFileSync(`/proc/${entry}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      if (fields[0] !== 'Z') parent.set(Number(entry), Number(fields[1]));
    } catch { /* gone meanwhile */ }
  }
  const out: number[] = [];
  const walk = (p: number) => { for (const [child, pp] of parent) if (pp === p) { out.push(child); walk(child); } };
  walk(pid);
  return out;
}

/** True while `pid` is a living (not zombie) process. */
export function alive(pid: number): boolean {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2)[0] !== 'Z';
  } catch {
    return false;
  }
}

/** A `stratus serve` running in a child process. */
export interface RunningCli {
  child: ChildProcess;
  /** Everything it printed so far (stdout and stderr). */
  output(): string;
  /** Resolves with the exit code (or the signal's name). */
  exited: Promise<number | string>;
}

/**
 * Starts `stratus ARGS` (or `command ARGS` when given, e.g. npx; `env` added to the environment) and waits until it prints that S3 listens,
 * or until it exits (then throws with its output).
 */
export async function startCli(args: string[], opts: { command?: string[]; cwd?: string; env?: Record<string, string> } = {}): Promise<RunningCli> {
  const base = { ...Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('STRATUS_'))), ...opts.env };
  const [exe, ...prefix] = opts.command ?? [process.execPath, CLI];
  const child = spawn(exe!, [...prefix, ...args], { stdio: ['ignore', 'pipe', 'pipe'], env: base, ...(opts.cwd ? { cwd: opts.cwd } : {}) });
  let out = '';
  child.stdout!.on('data', (d: Buffer) => { out += d.toString(); });
  child.stderr!.on('data', (d: Buffer) => { out += d.toString(); });
  let code: number | string | undefined;
  const exited = new Promise<number | string>((resolve) => child.on('exit', (c, signal) => { code = c ?? signal ?? -1; resolve(code); }));
  await waitUntil(() => code !== undefined || /S3 API listening/.test(out), 90_000, 'stratus to start');
  if (code !== undefined) throw new Error(`stratus exited (${code}) while starting:\n${out}`);
  return { child, output: () => out, exited };
}
