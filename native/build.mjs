#!/usr/bin/env node
/**
 * Builds the native UDP addon (stratus_udp.c) with node-gyp: run by `npm install`/`npm ci` (the package's
 * `install` script) and by `npm run build:native`. Optional by design: when there is no compiler, no Python,
 * no Node.js headers on this machine or the build fails, it says so in one line and exits 0; Stratus then
 * answers UDP on its JavaScript path (docs/dns-server.md, "Native UDP path"). Never downloads anything: the
 * headers come from npm_config_nodedir, the running Node.js's own folder, the `node` devDependency or
 * /usr/include/node (N-API is ABI-stable, so any of them builds an addon every supported Node.js loads).
 * STRATUS_NATIVE_BUILD=0 skips the build.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const TIMEOUT_MS = 300_000;
const say = (msg) => process.stdout.write(`stratus: native UDP addon ${msg}\n`);

/** A folder holding include/node/node_api.h and common.gypi (node-gyp's --nodedir), or undefined. */
function nodeDir() {
  const candidates = [process.env.npm_config_nodedir, path.resolve(path.dirname(fs.realpathSync(process.execPath)), '..')];
  const dev = path.join(HERE, '..', 'node_modules', 'node', 'node_modules');
  if (fs.existsSync(dev)) for (const d of fs.readdirSync(dev)) if (d.startsWith('node-')) candidates.push(path.join(dev, d));
  candidates.push('/usr');
  return candidates.find((d) => d && fs.existsSync(path.join(d, 'include', 'node', 'node_api.h')) && fs.existsSync(path.join(d, 'include', 'node', 'common.gypi')));
}

/** node-gyp's entry script: npm's own copy (npm tells its scripts where), else the one next to npm on PATH. */
function nodeGyp() {
  const candidates = [process.env.npm_config_node_gyp];
  if (process.env.npm_execpath) candidates.push(path.join(path.dirname(process.env.npm_execpath), '..', 'node_modules', 'node-gyp', 'bin', 'node-gyp.js'));
  for (const dir of (process.env.PATH ?? '').split(path.delimiter)) {
    const npm = path.join(dir, 'npm');
    if (!fs.existsSync(npm)) continue;
    candidates.push(path.join(path.dirname(fs.realpathSync(npm)), '..', 'node_modules', 'node-gyp', 'bin', 'node-gyp.js'));
  }
  return candidates.find((c) => c && fs.existsSync(c));
}

function main() {
  if (process.env.STRATUS_NATIVE_BUILD === '0') return say('not built (STRATUS_NATIVE_BUILD=0); UDP is answered in JavaScript');
  if (process.platform !== 'linux') return say(`not built (${process.platform}: recvmmsg/sendmmsg are Linux's); UDP is answered in JavaScript`);
  if (!fs.existsSync(path.join(HERE, 'stratus_udp.c'))) return say('source absent; UDP is answered in JavaScript');
  const dir = nodeDir();
  if (!dir) return say('not built (no Node.js headers here; set npm_config_nodedir); UDP is answered in JavaScript');
  const gyp = nodeGyp();
  if (!gyp) return say('not built (node-gyp not found); UDP is answered in JavaScript');
  const r = spawnSync(process.execPath, [gyp, 'rebuild', `--nodedir=${dir}`, '--release'], {
    cwd: HERE, encoding: 'utf8', timeout: TIMEOUT_MS, env: { ...process.env, npm_config_nodedir: dir },
  });
  if (r.status === 0 && fs.existsSync(path.join(HERE, 'build', 'Release', 'stratus_udp.node'))) return say(`built (headers from ${dir})`);
  const why = (r.error?.message ?? `${r.stderr ?? ''}`.trim().split('\n').filter((l) => /error/i.test(l)).slice(-2).join(' | ')) || `exit ${r.status}`;
  say(`not built (${why}); UDP is answered in JavaScript`);
}

try {
  main();
} catch (err) {
  say(`not built (${err instanceof Error ? err.message : String(err)}); UDP is answered in JavaScript`);
}
