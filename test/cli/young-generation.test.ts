/**
 * `stratus` runs with a young generation of at most 1 MiB per semi-space (docs/configuration.md, "Node's young
 * generation"): the executable's first line passes the flag to Node, and `npm start` passes the same. Checked on a
 * real `stratus serve` started through the executable (Linux: the flags Node was started with, in /proc), against
 * one started as `node dist/cli.js`, which keeps Node's defaults.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { CLI, spawnStratus, type SpawnedStratus } from '../faults/spawn.js';

const FLAG = '--max-semi-space-size=1';
const started: SpawnedStratus[] = [];
const dirs: string[] = [];
afterAll(async () => {
  for (const s of started) { s.child.kill('SIGTERM'); await s.exited; }
  for (const d of dirs) fs.rmSync(d, { recursive: true, force: true });
});

/** The command line a process was started with. */
function commandLine(pid: number): string[] {
  return fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').filter(Boolean);
}

describe.skipIf(process.platform !== 'linux')('Node\'s young generation for stratus', () => {
  it('is small when stratus runs through its executable or npm start, and Node\'s default otherwise', async () => {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'stratus-young-'));
    dirs.push(dataDir);
    const viaBin = await spawnStratus(dataDir, {}, true);
    started.push(viaBin);
    const line = commandLine(viaBin.child.pid!);
    expect(path.basename(line[0]!)).toMatch(/^node/); // env replaced itself with node
    expect(line.slice(1, line.indexOf(CLI))).toEqual([FLAG]);
    expect((await fetch(`${viaBin.adminUrl}/readyz`)).status).toBe(200);

    const otherDir = fs.mkdtempSync(path.join(os.tmpdir(), 'stratus-young-'));
    dirs.push(otherDir);
    const plain = await spawnStratus(otherDir);
    started.push(plain);
    expect(commandLine(plain.child.pid!)).not.toContain(FLAG);

    const pkg = JSON.parse(fs.readFileSync(path.resolve(import.meta.dirname, '../../package.json'), 'utf8')) as { scripts: Record<string, string> };
    expect(pkg.scripts['start']!.split(' ')).toContain(FLAG);
  }, 120_000);
});
