/**
 * The runtime's temporary folders left by a process killed outright (SIGKILL: no exit hook runs) are removed by the
 * next process that makes one; a running process's folder, another's without an owner file, and a folder whose
 * owner's pid now belongs to another process are told apart. Real processes, each making its folder with the built
 * module (`npm run build` first, as `npm test` does).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { removeStaleTempDirs } from '../../src/runtime/temp-dirs.js';

const MODULE = path.resolve('dist/runtime/temp-dirs.js');
const PREFIX = 'stratus-edge-';
const parent = fs.mkdtempSync(path.join(os.tmpdir(), 'stratus-stale-dirs-'));
const children: ChildProcess[] = [];

afterAll(() => {
  for (const c of children) c.kill('SIGKILL');
  fs.rmSync(parent, { recursive: true, force: true });
});

/** A Node process that makes a runtime folder in `parent` and stays; resolves with the process and its folder. */
function folderMaker(): Promise<{ child: ChildProcess; dir: string }> {
  const code = `import { makeTempDir } from ${JSON.stringify(MODULE)}; console.log(makeTempDir(${JSON.stringify(PREFIX)})); setInterval(() => {}, 1000);`;
  const child = spawn(process.execPath, ['--input-type=module', '-e', code], { env: { ...process.env, TMPDIR: parent }, stdio: ['ignore', 'pipe', 'inherit'] });
  children.push(child);
  return new Promise((resolve, reject) => {
    let out = '';
    child.stdout!.on('data', (d: Buffer) => {
      out += d.toString();
      if (out.includes('\n')) resolve({ child, dir: out.trim() });
    });
    child.once('exit', (code) => reject(new Error(`the folder maker exited (${code}) before making its folder`)));
  });
}

/** Kills `child` outright and waits for it to be gone. */
async function killOutright(child: ChildProcess): Promise<void> {
  const gone = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGKILL');
  await gone;
}

describe('temporary folders of a process killed outright', () => {
  it('are removed by the next process making one; live and foreign folders are kept', async () => {
    const killed = await folderMaker();
    const running = await folderMaker();
    expect(killed.dir.startsWith(path.join(parent, PREFIX))).toBe(true);
    fs.mkdirSync(path.join(killed.dir, 'nginx'));
    fs.writeFileSync(path.join(killed.dir, 'nginx', 'access.log'), '{}\n');
    await killOutright(killed.child);
    expect(fs.existsSync(killed.dir)).toBe(true); // no hook ran
    // A folder without an owner file (an older version's, or not ours to judge), and one whose owner's pid is a
    // running process started at another time (the pid reused).
    const unowned = fs.mkdtempSync(path.join(parent, PREFIX));
    const reused = fs.mkdtempSync(path.join(parent, PREFIX));
    fs.writeFileSync(path.join(reused, 'owner'), `${running.child.pid} 1\n`);

    // The next process to make a folder: the dead process's and the reused pid's folders go.
    const next = await folderMaker();
    expect(fs.existsSync(killed.dir)).toBe(false);
    expect(fs.existsSync(reused)).toBe(false);
    for (const kept of [running.dir, next.dir, unowned]) expect(fs.existsSync(kept)).toBe(true);

    // Once the running one is killed too, a sweep removes its folder and keeps the live one's.
    await killOutright(running.child);
    expect(removeStaleTempDirs(PREFIX, parent)).toEqual([running.dir]);
    expect(fs.existsSync(next.dir)).toBe(true);
  });
});
