#!/usr/bin/env node
/**
 * Runs every benchmark one after the other (`npm run bench`, after `npm run build`), or the ones named:
 * `npm run bench -- store dns-server`. Each prints its own numbers and ratios against peers measured in the
 * same run; none asserts a timing.
 */
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const all = ['dns-api', 'dns-list', 'dns-import', 'dns-server', 'store', 'edge', 'limits'];
const chosen = process.argv.slice(2).filter((a) => !a.startsWith('-'));
const names = chosen.length > 0 ? chosen : all;
for (const name of names) {
  if (!all.includes(name)) {
    process.stderr.write(`bench: unknown benchmark "${name}" (known: ${all.join(', ')})\n`);
    process.exit(2);
  }
}
for (const [i, name] of names.entries()) {
  process.stdout.write(`\n== [${i + 1}/${names.length}] bench/${name}.mjs\n`);
  const result = spawnSync(process.execPath, [path.join(here, `${name}.mjs`)], { stdio: 'inherit' });
  if (result.status !== 0) process.stdout.write(`bench/${name}.mjs exited with ${result.status}\n`);
}
