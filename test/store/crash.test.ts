/**
 * Crash safety: a child process writing large streamed puts, multipart uploads and deletes is killed with
 * SIGKILL at random moments, several times on the same folder. After each kill the bucket must be
 * consistent: every listed object reads back fully, its bytes are exactly the value its metadata names (old
 * or new, never torn), size and etag match; and the next open's sweep leaves no unreferenced blob.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { openBucketStore } from '../../src/store/open.js';
import { SqliteMetadataStore } from '../../src/store/adapters/sqlite-metadata.js';
import { FileBlobStore } from '../../src/store/adapters/file-blobs.js';
import type { StoreObjectBody } from '../../src/store/types.js';
import { content } from './crash/content.js';
import { tempDir } from './helpers.js';
import { bundleChild } from './child-bundle.js';

const MiB = 1024 * 1024;
let bundle: string;
let dir: string;
/** Blobs the sweeps removed over all rounds (printed; kills land at random points, so not asserted). */
let swept = 0;

beforeAll(async () => {
  bundle = await bundleChild('crash/child.ts');
  dir = tempDir('stratus-crash-');
});
afterAll(() => {
  fs.rmSync(dir, { recursive: true, force: true });
  fs.rmSync(bundle, { force: true });
});

/** Runs the child until it reported `minOps` operations, then waits a random time and kills it. */
async function runAndKill(round: number): Promise<number> {
  const child = spawn(process.execPath, [bundle, dir, `r${round}`], { stdio: ['ignore', 'pipe', 'pipe'], cwd: process.cwd() });
  let ops = 0;
  let stderr = '';
  child.stderr.on('data', (d) => (stderr += String(d)));
  await new Promise<void>((resolve, reject) => {
    child.stdout.on('data', (d: Buffer) => {
      ops += String(d).split('\n').filter(Boolean).length;
      if (ops >= 2) resolve();
    });
    child.on('exit', (code) => reject(new Error(`child exited early (${code}): ${stderr}`)));
  });
  await new Promise((r) => setTimeout(r, 20 + Math.floor(Math.random() * 700)));
  const exited = new Promise((r) => child.on('exit', r));
  child.kill('SIGKILL');
  await exited;
  return ops;
}

function multipartEtag(seed: string, size: number): string {
  const h = createHash('md5');
  let n = 0;
  for (let off = 0; off < size; off += 5 * MiB, n++) h.update(createHash('md5').update(content(seed, Math.min(5 * MiB, size - off), off)).digest());
  return `${h.digest('hex')}-${n}`;
}

async function verify(): Promise<number> {
  const store = await openBucketStore({ dataDir: dir, sweepOnOpen: false, orphanGraceMs: 0, gcDelayMs: 0 });
  try {
    const b = store.bucket('crash');
    let checked = 0;
    let cursor: string | undefined;
    for (;;) {
      const page = await b.list({ include: ['customMetadata'], ...(cursor ? { cursor } : {}) });
      for (const o of page.objects) {
        const { seed, size } = o.customMetadata!;
        expect(o.size, o.key).toBe(Number(size));
        const got = (await b.get(o.key)) as StoreObjectBody;
        const body = Buffer.from(await got.bytes());
        expect(body.length, o.key).toBe(o.size);
        expect(body.equals(content(seed!, Number(size))), `${o.key} holds exactly the value of ${seed}`).toBe(true);
        const etag = o.key.startsWith('m') ? multipartEtag(seed!, Number(size)) : createHash('md5').update(body).digest('hex');
        expect(o.etag, o.key).toBe(etag);
        checked++;
      }
      if (!page.truncated) break;
      cursor = page.cursor;
    }
    const report = await store.sweep();
    swept += report.orphanBlobs + report.garbageBlobs;
    return checked;
  } finally {
    await store.close();
  }
}

async function unreferencedBlobs(): Promise<{ orphans: number; temps: number }> {
  const meta = SqliteMetadataStore.inDataDir(dir);
  const blobs = new FileBlobStore(path.join(dir, 'blobs'));
  try {
    const ids: string[] = [];
    for await (const { blobId } of blobs.list()) ids.push(blobId);
    const referenced = await meta.referencedBlobs(ids);
    return { orphans: ids.filter((id) => !referenced.has(id)).length, temps: fs.readdirSync(path.join(dir, 'blobs', 'tmp')).length };
  } finally {
    await meta.close();
  }
}

describe('crash safety', () => {
  it('survives SIGKILL at random moments during large puts and multipart completes', async () => {
    let verified = 0;
    for (let round = 0; round < 6; round++) {
      await runAndKill(round);
      verified += await verify();
      expect(await unreferencedBlobs()).toEqual({ orphans: 0, temps: 0 });
    }
    expect(verified).toBeGreaterThan(0);
    console.log(`crash test: ${verified} object reads verified, ${swept} leftover blobs swept`);
  }, 240_000);
});
