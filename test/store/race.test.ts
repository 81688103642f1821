/**
 * Conditional puts from several processes on one data folder: for every key exactly one create-if-absent wins,
 * and the stored value is the winner's.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import { promisify } from 'node:util';
import { Worker } from 'node:worker_threads';
import { openBucketStore } from '../../src/store/open.js';
import type { StoreObjectBody } from '../../src/store/types.js';
import { bundleChild } from './child-bundle.js';
import { tempDir } from './helpers.js';

const run = promisify(execFile);
let bundle: string;
let dir: string;
beforeAll(async () => {
  bundle = await bundleChild('race/child.ts');
  dir = tempDir('stratus-race-');
});
afterAll(() => {
  fs.rmSync(bundle, { force: true });
  fs.rmSync(dir, { recursive: true, force: true });
});

it('exactly one of four processes wins each create-if-absent', async () => {
  const KEYS = 40;
  const startAt = Date.now() + 1500;
  const outs = await Promise.all(['p1', 'p2', 'p3', 'p4'].map((id) => run(process.execPath, [bundle, dir, id, String(startAt), String(KEYS)])));
  const results = outs.map((o) => JSON.parse(o.stdout) as { id: string; won: string[] });
  const winners = new Map<string, string[]>();
  for (const r of results) for (const k of r.won) winners.set(k, [...(winners.get(k) ?? []), r.id]);
  expect(winners.size).toBe(KEYS);
  for (const [, ids] of winners) expect(ids.length).toBe(1);
  const store = await openBucketStore({ dataDir: dir, sweepOnOpen: false });
  try {
    for (const [key, [id]] of winners) {
      const text = await ((await store.bucket('race').get(key)) as StoreObjectBody).text();
      expect(text.startsWith(`${id}:`)).toBe(true);
    }
  } finally {
    await store.close();
  }
}, 60_000);

/** Runs the race child in a worker thread and returns what it printed. */
function inWorker(args: string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    const w = new Worker(bundle, { argv: args, stdout: true });
    let out = '';
    w.stdout.on('data', (d) => (out += String(d)));
    w.on('error', reject);
    w.on('exit', (code) => (code === 0 ? resolve(out) : reject(new Error(`worker exited with ${code}`))));
  });
}

it('worker threads of one process, each with its own store on the folder: one winner per key', async () => {
  const wdir = tempDir('stratus-race-w-');
  try {
    const KEYS = 30;
    const startAt = Date.now() + 1000;
    const outs = await Promise.all(['w1', 'w2', 'w3'].map((id) => inWorker([wdir, id, String(startAt), String(KEYS)])));
    const won = outs.flatMap((o) => (JSON.parse(o) as { won: string[] }).won);
    expect(won.length).toBe(KEYS);
    expect(new Set(won).size).toBe(KEYS);
  } finally {
    fs.rmSync(wdir, { recursive: true, force: true });
  }
}, 60_000);
