/**
 * Temporary folders made by a test file, removed once its tests are done (`removeTempDirs`, an `afterAll` of
 * every integration test file through test/setup/temp-dirs.ts). The integration pool keeps modules loaded from
 * file to file (`isolate: false`, vitest.config.ts), so a module's own top-level `afterAll` would belong to the
 * first test file that loaded it only: later files' folders were left behind (about 25 a run).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const made: string[] = [];

/** A new empty temporary folder named `<prefix>XXXXXX`, removed after the test file's tests. */
export function madeTempDir(prefix: string): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  made.push(dir);
  return dir;
}

/** Removes every folder {@link madeTempDir} made so far, whatever the tests did with them. */
export function removeTempDirs(): void {
  for (const dir of made.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
}
