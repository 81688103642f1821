/**
 * SIGHUP (the terminal closed) stops `stratus serve` as SIGINT does, and no `stratus-edge-*` temporary folder
 * outlives the process: after a SIGHUP, after a second signal's immediate exit, and after a start whose edge
 * failed halfway. The spawned processes get a TMPDIR of the test's own, so that the folders they make are seen.
 */
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEdge } from '../../src/runtime/start-edge.js';
import { silentLogger } from '../../src/shared/logger.js';
import { waitUntil } from '../faults/load.js';
import { startCli } from './run-cli.js';

let dir: string;
beforeAll(() => { dir = fs.mkdtempSync(path.join(os.tmpdir(), 'stratus-cli-hup-')); });
afterAll(() => { fs.rmSync(dir, { recursive: true, force: true }); });

/** The `stratus-edge-*` folders in `tmp`. */
const edgeFolders = (tmp: string) => fs.readdirSync(tmp).filter((n) => n.startsWith('stratus-edge-'));

/** What is left inside the `stratus-edge-*` folders of `tmp` (for a failure's message). */
const leftovers = (tmp: string) => edgeFolders(tmp).flatMap((n) => fs.readdirSync(path.join(tmp, n), { recursive: true }).map((f) => `${n}/${String(f)}`));

/** `stratus serve` on port 0 with the edge on, a fresh data folder and its own TMPDIR. */
function serve(name: string) {
  const tmp = fs.mkdtempSync(path.join(dir, `${name}-tmp-`));
  const args = ['serve', '--data-dir', path.join(dir, `${name}-data`), '--http', '127.0.0.1:0', '--dns', '127.0.0.1:0', '--s3', '127.0.0.1:0',
    '--admin', '127.0.0.1:0', '--edge', '127.0.0.1:0', '--dns-workers', '1', '--log-format', 'pretty'];
  return { tmp, running: startCli(args, { env: { TMPDIR: tmp } }) };
}

describe('stopping on SIGHUP, and the edge temporary folder', () => {
  it('SIGHUP stops serve gracefully (exit 0) and removes the stratus-edge folder', async () => {
    const { tmp, running } = serve('hup');
    const cli = await running;
    await waitUntil(() => /edge listening on/.test(cli.output()), 60_000, 'the edge to listen');
    expect(edgeFolders(tmp)).toHaveLength(1);
    cli.child.kill('SIGHUP');
    expect(await cli.exited, cli.output()).toBe(0);
    expect(cli.output()).toContain('stratus: SIGHUP, stopping within 30 s (requests in flight get up to 25 s)');
    expect(cli.output()).toContain('stratus: stopped');
    expect(edgeFolders(tmp)).toEqual([]);
  });

  it('a second signal exits at once, and the folder still goes', async () => {
    const { tmp, running } = serve('twice');
    const cli = await running;
    await waitUntil(() => /edge listening on/.test(cli.output()), 60_000, 'the edge to listen');
    expect(edgeFolders(tmp)).toHaveLength(1);
    cli.child.kill('SIGINT');
    await waitUntil(() => /SIGINT, stopping/.test(cli.output()), 30_000, 'the first signal to be taken');
    cli.child.kill('SIGINT');
    const code = await cli.exited;
    expect(edgeFolders(tmp), `exit ${code}, left: ${leftovers(tmp).join(' ')}: ${cli.output()}`).toEqual([]);
  });

  it('an edge whose start fails (its port is taken) leaves no folder', async () => {
    const taken = net.createServer();
    await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
    const port = (taken.address() as net.AddressInfo).port;
    const tmp = fs.mkdtempSync(path.join(dir, 'failed-tmp-'));
    const before = process.env.TMPDIR;
    process.env.TMPDIR = tmp;
    try {
      await expect(startEdge({ listen: { host: '127.0.0.1', port }, logger: silentLogger(), bucketFor: () => { throw new Error('no buckets'); } }))
        .rejects.toMatchObject({ code: 'EADDRINUSE' });
      expect(edgeFolders(tmp)).toEqual([]);
    } finally {
      if (before === undefined) delete process.env.TMPDIR; else process.env.TMPDIR = before;
      taken.close();
    }
  });
});
