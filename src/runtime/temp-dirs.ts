/**
 * The runtime's private temporary folders (`stratus-edge-*`: sockets, workerd configs). Each is removed when its
 * runtime closes, and, whatever way the process ends (a failed start, a second signal's `process.exit`, the stop
 * deadline), by an `exit` hook: no folder outlives the process. The hook first kills the child processes that
 * write into those folders (workerd binds sockets there, nginx its logs and temporary files), so that none adds a
 * file while the folder is being removed.
 */
import type { ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

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

/** Makes a fresh folder `<tmpdir>/<prefix>XXXXXX` (mode 0700) that is removed at process exit at the latest. */
export function makeTempDir(prefix: string): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  fs.chmodSync(dir, 0o700);
  live.add(dir);
  hook();
  return dir;
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
