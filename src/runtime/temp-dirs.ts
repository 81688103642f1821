/**
 * The runtime's private temporary folders (`stratus-edge-*`: sockets, workerd configs). Each is removed when its
 * runtime closes, and, whatever way the process ends (a failed start, a second signal's `process.exit`, the stop
 * deadline), by an `exit` hook: no folder outlives the process. The hook first kills the child processes that
 * write into those folders (workerd binds sockets there, nginx its logs and temporary files), so that none adds a
 * file while the folder is being removed.
 *
 * A process killed outright (SIGKILL, the OOM killer, a power cut) runs no hook: its folders stay. Each folder
 * therefore names the process that made it (an `owner` file: its pid and, on Linux, its start time, so a reused
 * pid is not taken for it), and making a folder first removes this user's folders of the same prefix whose owner
 * is gone.
 */
import type { ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { procStatFields } from './proc-stat.js';

const live = new Set<string>();
const children = new Map<ChildProcess, boolean>();
let hooked = false;

/** At exit: SIGKILL every registered child (its whole group when asked), then remove the folders, retrying while a dying child still adds a file. */
function cleanUpAtExit(): void {
  for (const [child, group] of children) {
    if (child.pid === undefined || child.exitCode !== null || child.signalCode !== null) continue;
    try { process.kill(group ? -child.pid : child.pid, 'SIGKILL'); } catch { /* gone meanwhile */ }
  }
  for (const dir of live) {
    try {
      fs.rmSync(dir, { recursive: true, force: true, maxRetries: 20, retryDelay: 10 });
    } catch (err) {
      process.stderr.write(`stratus: could not remove the temporary folder ${dir}: ${(err as Error).message}\n`);
    }
  }
}

function hook(): void {
  if (hooked) return;
  hooked = true;
  process.once('exit', cleanUpAtExit);
}

/** The file in each folder naming the process that made it: `<pid> <start time>`. */
const OWNER_FILE = 'owner';

/** A process's start time as /proc gives it (clock ticks since boot), or '' where there is none to read. */
function startTime(pid: number): string {
  return procStatFields(pid)?.[19] ?? '';
}

/** Whether the process `owner` names (`<pid> <start time>`) still runs. */
function ownerRuns(owner: string): boolean {
  const [pidText, start = ''] = owner.trim().split(' ');
  const pid = Number(pidText);
  if (!Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EPERM') return false;
  }
  const now = startTime(pid);
  return start === '' || now === '' || now === start;
}

/**
 * Removes the folders `<parent>/<prefix>*` of this user whose owner (the process that made them) is gone; folders
 * without an owner file, of other users, or of a process still running are left. The folders removed.
 */
export function removeStaleTempDirs(prefix: string, parent = os.tmpdir()): string[] {
  const removed: string[] = [];
  let names: string[];
  try {
    names = fs.readdirSync(parent).filter((n) => n.startsWith(prefix));
  } catch {
    return removed;
  }
  for (const name of names) {
    const dir = path.join(parent, name);
    if (live.has(dir)) continue;
    try {
      if (fs.lstatSync(dir).uid !== process.getuid?.()) continue;
      if (ownerRuns(fs.readFileSync(path.join(dir, OWNER_FILE), 'utf8'))) continue;
      fs.rmSync(dir, { recursive: true, force: true, maxRetries: 20, retryDelay: 10 });
      removed.push(dir);
    } catch { /* no owner file, not ours, or gone meanwhile */ }
  }
  return removed;
}

/**
 * Makes a fresh folder `<tmpdir>/<prefix>XXXXXX` (mode 0700) that is removed at process exit at the latest, after
 * removing the folders of that prefix that dead processes left ({@link removeStaleTempDirs}).
 */
export function makeTempDir(prefix: string): string {
  removeStaleTempDirs(prefix);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  fs.chmodSync(dir, 0o700);
  fs.writeFileSync(path.join(dir, OWNER_FILE), `${process.pid} ${startTime(process.pid)}\n`, { mode: 0o600 });
  live.add(dir);
  hook();
  return dir;
}

/**
 * Makes folder `dir` (mode 0700) inside a folder that must exist, never its parents: once a runtime's folder has
 * been removed (the runtime closed), work still under way fails here instead of making it again, unowned.
 */
export function makeSubfolder(dir: string): void {
  try {
    fs.mkdirSync(dir, { mode: 0o700 });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
  }
}

/** Removes a folder made by {@link makeTempDir} (and forgets it). */
export function removeTempDir(dir: string): void {
  fs.rmSync(dir, { recursive: true, force: true, maxRetries: 20, retryDelay: 10 });
  live.delete(dir);
}

/**
 * Has the `exit` hook kill `child` (with `group`, its whole process group: nginx's master and workers) before the
 * temporary folders go, unless it has exited by then. Forgotten when it exits.
 */
export function killAtExit(child: ChildProcess, group = false): void {
  children.set(child, group);
  hook();
  child.once('exit', () => children.delete(child));
}
