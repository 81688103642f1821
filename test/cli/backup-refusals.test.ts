/**
 * `stratus backup` and `stratus restore` refuse with one line and exit status 2, writing nothing: a folder
 * without Stratus data, a used or misplaced target, and a backup that is incomplete or damaged (a changed
 * byte, a missing or truncated file, no manifest, a manifest naming a path outside the data folder).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../../src/db/database.js';
import { openBucketStore } from '../../src/store/open.js';
import { runCli, type CliResult } from './run-cli.js';

let dir: string;
let data: string;
let backup: string;
beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'stratus-backup-refusals-'));
  data = path.join(dir, 'data');
  await (await openDatabase({ dataDir: data })).close();
  const store = await openBucketStore({ dataDir: data, sweepOnOpen: false });
  for (let i = 0; i < 3; i++) await store.bucket('refusals').put(`k${i}`, new Uint8Array(100_000).fill(i + 1));
  await store.close();
  backup = path.join(dir, 'backup');
  const made = await runCli(['backup', '--data-dir', data, '--to', backup]);
  expect(made.code, made.stderr).toBe(0);
});
afterAll(() => { fs.rmSync(dir, { recursive: true, force: true }); });

/** Exit 2 and exactly one line on stderr (after any progress lines), matching `line`. */
function refused(r: CliResult, line: RegExp): void {
  expect(r.code, r.stderr).toBe(2);
  const errors = r.stderr.split('\n').filter((l) => l.startsWith('stratus: '));
  expect(errors, r.stderr).toHaveLength(1);
  expect(errors[0]).toMatch(line);
  expect(r.stderr).not.toMatch(/\n\s+at /);
}

/** A copy of the backup (files copied, not linked: the backup's blobs are links to the data folder's). */
function copyOfBackup(name: string): string {
  const to = path.join(dir, name);
  fs.cpSync(backup, to, { recursive: true });
  return to;
}

const blobsOf = (root: string) => fs.readdirSync(path.join(root, 'blobs'), { recursive: true, withFileTypes: true })
  .filter((e) => e.isFile()).map((e) => path.join(e.parentPath, e.name));

describe('stratus backup refuses', () => {
  it('a missing --to, a folder without Stratus data, a used target, a target inside the data folder', async () => {
    refused(await runCli(['backup', '--data-dir', data]), /needs --to DIR/);
    refused(await runCli(['backup', '--data-dir', path.join(dir, 'nothing'), '--to', path.join(dir, 'x1')]), /holds no Stratus data/);
    expect(fs.existsSync(path.join(dir, 'x1'))).toBe(false);
    const used = path.join(dir, 'used');
    fs.mkdirSync(used);
    fs.writeFileSync(path.join(used, 'keep.txt'), 'mine');
    refused(await runCli(['backup', '--data-dir', data, '--to', used]), /is not an empty folder/);
    expect(fs.readdirSync(used)).toEqual(['keep.txt']);
    refused(await runCli(['backup', '--data-dir', data, '--to', path.join(data, 'inside')]), /lies inside --data-dir/);
    expect(fs.existsSync(path.join(data, 'inside'))).toBe(false);
  });
});

describe('stratus restore refuses', () => {
  it('a used target, leaving it as it was', async () => {
    const used = path.join(dir, 'used-target');
    fs.mkdirSync(used);
    fs.writeFileSync(path.join(used, 'stratus.sqlite'), 'not mine to overwrite');
    refused(await runCli(['restore', '--from', backup, '--data-dir', used]), /--data-dir .* is not empty/);
    expect(fs.readdirSync(used)).toEqual(['stratus.sqlite']);
    expect(fs.readFileSync(path.join(used, 'stratus.sqlite'), 'utf8')).toBe('not mine to overwrite');
  });

  it('a changed byte in a body, a missing or truncated file, no manifest, a manifest naming other paths; nothing is left written', async () => {
    const changed = copyOfBackup('changed');
    const blob = blobsOf(changed)[0]!;
    const bytes = fs.readFileSync(blob);
    bytes[5000] = bytes[5000]! ^ 0xff;
    fs.writeFileSync(blob, bytes);
    const cases: [string, RegExp][] = [[changed, /is damaged: blobs\/.* does not match its SHA-256/]];

    const missing = copyOfBackup('missing');
    fs.rmSync(blobsOf(missing)[1]!);
    cases.push([missing, /is damaged: blobs\/.* is missing/]);

    const truncated = copyOfBackup('truncated');
    fs.truncateSync(path.join(truncated, 'buckets.sqlite'), 4096);
    cases.push([truncated, /is damaged: buckets\.sqlite has 4096 bytes/]);

    const unfinished = copyOfBackup('unfinished');
    fs.rmSync(path.join(unfinished, 'manifest.json'));
    cases.push([unfinished, /is not a finished Stratus backup: manifest\.json is missing/]);

    const escaping = copyOfBackup('escaping');
    const manifest = JSON.parse(fs.readFileSync(path.join(escaping, 'manifest.json'), 'utf8')) as { files: { path: string }[] };
    manifest.files[0]!.path = '../outside.sqlite';
    fs.writeFileSync(path.join(escaping, 'manifest.json'), JSON.stringify(manifest));
    cases.push([escaping, /manifest\.json lists malformed files/]);

    for (const [from, line] of cases) {
      const target = path.join(dir, `target-${path.basename(from)}`);
      refused(await runCli(['restore', '--from', from, '--data-dir', target]), line);
      expect(fs.existsSync(target), from).toBe(false);
    }
    // An empty folder given as the target stays, empty.
    const empty = path.join(dir, 'empty-target');
    fs.mkdirSync(empty);
    refused(await runCli(['restore', '--from', changed, '--data-dir', empty]), /does not match its SHA-256/);
    expect(fs.readdirSync(empty)).toEqual([]);
    // The intact backup restores.
    const ok = await runCli(['restore', '--from', backup, '--data-dir', path.join(dir, 'restored')]);
    expect(ok.code, ok.stderr).toBe(0);
    expect(blobsOf(path.join(dir, 'restored'))).toHaveLength(3);
  });
});
