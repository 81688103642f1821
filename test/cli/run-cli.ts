/**
 * Runs the built `stratus` (dist/cli.js; `npm run build` first) as an operator does, and looks at the
 * processes it leaves: the descendants of a pid, read from /proc.
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

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
