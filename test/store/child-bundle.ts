/**
 * Bundles a TypeScript child-process entry (test/store/<dir>/<file>.ts) with esbuild so a plain `node` can run
 * it. The bundle goes under node_modules/.cache so it resolves the project's packages.
 */
import fs from 'node:fs';
import path from 'node:path';
import { build } from 'esbuild';

/** Bundles `entry` (relative to test/store) and returns the .mjs path; remove it when done. */
export async function bundleChild(entry: string): Promise<string> {
  const out = path.join(process.cwd(), 'node_modules', '.cache', 'stratus-store-tests');
  fs.mkdirSync(out, { recursive: true });
  const file = path.join(out, `${path.basename(entry, '.ts')}-${process.pid}-${Date.now()}.mjs`);
  await build({
    entryPoints: [path.join(import.meta.dirname, entry)],
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    outfile: file,
    packages: 'external',
    logLevel: 'silent',
  });
  return file;
}
