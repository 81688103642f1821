/**
 * `stratus serve` killed outright (SIGKILL: no handler runs) with the nginx front: nginx goes with it, workers
 * included, so the edge port is free again and the next start on the same addresses serves.
 */
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { findNginx } from '../../src/runtime/front/nginx-front.js';
import { spawnStratus, type SpawnedStratus } from '../faults/spawn.js';
import { waitUntil } from '../faults/load.js';
import { freePort } from '../dns-server/ports.js';

const dirs: string[] = [];
const started: SpawnedStratus[] = [];
afterAll(async () => {
  for (const s of started) { s.child.kill('SIGKILL'); await s.exited; }
  for (const d of dirs) fs.rmSync(d, { recursive: true, force: true });
});

/** Whether a listener can be bound on 127.0.0.1:`port` now (nothing holds it). */
function bindable(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const s = net.createServer();
    s.once('error', () => resolve(false));
    s.listen(port, '127.0.0.1', () => s.close(() => resolve(true)));
  });
}

/** The parent pid of each nginx process on the machine. */
function nginxParents(): Map<number, number> {
  const out = new Map<number, number>();
  for (const e of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(e)) continue;
    try {
      const stat = fs.readFileSync(`/proc/${e}/stat`, 'utf8');
      if (!stat.includes('(nginx)')) continue;
      out.set(Number(e), Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]));
    } catch { /* gone meanwhile */ }
  }
  return out;
}

/** The nginx master `stratusPid` started and that master's workers. */
function nginxOf(stratusPid: number): number[] {
  const parents = nginxParents();
  const masters = [...parents].filter(([, ppid]) => ppid === stratusPid).map(([pid]) => pid);
  return [...masters, ...[...parents].filter(([, ppid]) => masters.includes(ppid)).map(([pid]) => pid)];
}

describe.skipIf(!findNginx())('stratus serve killed with SIGKILL, nginx front', () => {
  it('leaves no nginx process holding the edge port; the next start on the same address serves', async () => {
    const port = await freePort();
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'stratus-kill-front-'));
    dirs.push(dataDir);
    const flags = { edge: `127.0.0.1:${port}`, 'edge-front': 'nginx' };
    const first = await spawnStratus(dataDir, flags);
    started.push(first);
    const ours = nginxOf(first.child.pid!);
    expect(ours.length).toBeGreaterThanOrEqual(2); // a master and its workers
    expect((await fetch(`http://127.0.0.1:${port}/`)).status).toBe(403); // an address as Host: production's 1003
    first.child.kill('SIGKILL');
    await first.exited;
    await waitUntil(() => ours.every((p) => !fs.existsSync(`/proc/${p}`)), 30_000, 'nginx master and workers to exit');
    expect(await bindable(port)).toBe(true);
    const second = await spawnStratus(dataDir, flags);
    started.push(second);
    expect((await fetch(`http://127.0.0.1:${port}/`)).status).toBe(403); // an address as Host: production's 1003
  }, 120_000);
});
