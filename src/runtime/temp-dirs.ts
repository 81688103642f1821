/**
 * The runtime's private temporary folders (`stratus-edge-*`: sockets, workerd configs). Each is removed when its
 * runtime closes, and, whatever way the process ends (a failed start, a second signal's `process.exit`, the stop
 * deadline), by an `exit` hook: no folder outlives the process.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const live = new Set<string>();
let hooked = false;

/** Makes a fresh folder `<tmpdir>/<prefix>XXXXXX` (mode 0700) that is removed at process exit at the latest. */
export function makeTempDir(prefix: string): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  fs.chmodSync(dir, 0o700);
  live.add(dir);
  if (!hooked) {
    hooked = true;
    process.once('exit', () => { for (const d of live) fs.rmSync(d, { recursive: true, force: true }); });
  }
  return dir;
}

/** Removes a folder made by {@link makeTempDir} (and forgets it). */
export function removeTempDir(dir: string): void {
  fs.rmSync(dir, { recursive: true, force: true });
  live.delete(dir);
}
