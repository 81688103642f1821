/**
 * Tests run the TypeScript sources, but a worker thread cannot load .ts files: this bundles
 * src/runtime/worker-main.ts (with the store library) into one ESM file inside node_modules/.cache, so that
 * its bare imports (better-sqlite3, ...) still resolve. One build per test process.
 */
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { build } from 'esbuild';

let built: Promise<URL> | undefined;

/** Bundles the worker entry once per process and returns its file: URL. */
export function buildWorker(): Promise<URL> {
  built ??= (async () => {
    const root = path.resolve(import.meta.dirname, '../..');
    const outfile = path.join(root, 'node_modules/.cache/stratus-test', `worker-main-${process.pid}.mjs`);
    await build({
      entryPoints: [path.join(root, 'src/runtime/worker-main.ts')],
      bundle: true, platform: 'node', format: 'esm', target: 'node20', outfile, packages: 'external', logLevel: 'error',
    });
    return pathToFileURL(outfile);
  })();
  return built;
}
