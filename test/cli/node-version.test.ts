/**
 * `stratus` on a Node.js outside package.json's `engines` stops at once with one line naming the version it
 * found and what to do (exit 2), instead of loading the native modules (better-sqlite3 ends Node.js 20 with a
 * segmentation fault). The built entry runs under every `node` on this machine's PATH (and /usr/bin/node)
 * whose version is outside `engines`.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { SUPPORTED_NODE_MAJORS, unsupportedNode } from '../../src/cli/node-version.js';
import { CLI } from './run-cli.js';

const ROOT = path.resolve(import.meta.dirname, '../..');

/** Every distinct `node` executable on the PATH and at /usr/bin/node, with its version. */
function nodesOnMachine(): { file: string; version: string }[] {
  const candidates = [...(process.env.PATH ?? '').split(path.delimiter).filter(Boolean).map((d) => path.join(d, 'node')), '/usr/bin/node'];
  const seen = new Set<string>();
  const out: { file: string; version: string }[] = [];
  for (const file of candidates) {
    let real: string;
    try { real = fs.realpathSync(file); fs.accessSync(real, fs.constants.X_OK); } catch { continue; }
    if (seen.has(real)) continue;
    seen.add(real);
    try {
      out.push({ file: real, version: execFileSync(real, ['-p', 'process.versions.node'], { encoding: 'utf8' }).trim() });
    } catch { /* not a runnable node */ }
  }
  return out;
}

describe('the Node.js version check of the stratus entry', () => {
  it('knows the majors of package.json engines, and refuses others with one line', () => {
    const engines = (JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { engines: { node: string } }).engines.node;
    expect(engines.split('||').map((r) => Number(r.trim().replace(/^\^/, '')))).toEqual([...SUPPORTED_NODE_MAJORS]);
    expect(unsupportedNode('24.21.0')).toBeUndefined();
    expect(unsupportedNode('22.1.0')).toBeUndefined();
    for (const old of ['20.20.2', '23.0.0', '25.1.0', '18.0.0']) {
      expect(unsupportedNode(old)).toBe(`stratus: Node.js v${old} is not supported: stratus needs Node.js 22 or 24 (package.json engines); `
        + 'put Node.js 24 first on the PATH (e.g. nvm install 24) and run the command again');
    }
  });

  const outside = nodesOnMachine().filter((n) => unsupportedNode(n.version) !== undefined);
  it.skipIf(outside.length === 0)(`an unsupported node on this machine (${outside.map((n) => `${n.file} v${n.version}`).join(', ') || 'none found: skipped'}) gets one line and exit 2, no crash`, () => {
    expect(fs.existsSync(CLI), 'npm run build first').toBe(true);
    for (const node of outside) {
      for (const args of [['serve', '--data-dir', '/nonexistent/never-made'], ['--version'], ['dev']]) {
        const r = spawnSync(node.file, [CLI, ...args], { encoding: 'utf8', timeout: 60_000 });
        expect(r.signal, r.stderr).toBeNull();
        expect(r.status, r.stderr).toBe(2);
        expect(r.stdout).toBe('');
        expect(r.stderr).toBe(`${unsupportedNode(node.version)}\n`);
      }
    }
    expect(fs.existsSync('/nonexistent/never-made')).toBe(false);
  });

  it('the supported node that runs the tests gets past the check', () => {
    const r = spawnSync(process.execPath, [CLI, '--version'], { encoding: 'utf8', timeout: 60_000 });
    expect(r.status, r.stderr).toBe(0);
    expect(r.stdout.trim()).toMatch(/^\d+\.\d+\.\d+/);
  });
});
