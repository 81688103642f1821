/**
 * `stratus backup` while `stratus serve` runs under a write load (S3 puts and deletes, DNS record creates and
 * deletes, by two accounts), then `stratus restore` and `stratus serve` on the restored folder: each writer's
 * data is as it was after some prefix of its acknowledged operations (a state that existed), every object's
 * body reads whole, and the second account's bucket and token are restored and still its own. Once to a
 * folder on the same file system (blobs hard-linked), once to another (/dev/shm: copied).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import Cloudflare from 'cloudflare';
import { CreateBucketCommand, GetObjectCommand, ListBucketsCommand, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { runCli, startCli, type RunningCli } from '../cli/run-cli.js';
import { clientWith, r2WriteKeys, type KeyPair } from '../helpers/s3-keys.js';
import { s3Failure } from '../helpers/s3-sdk.js';
import { matchingState, objectWriter, readObjects, readRecords, recordWriter, type LoggedWriter } from './backup-writers.js';

let dir: string;
let other: string;
beforeAll(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'stratus-backup-'));
  // Another file system when the machine has one (tmpfs), so that blobs are copied rather than linked.
  other = fs.mkdtempSync(path.join(fs.existsSync('/dev/shm') ? '/dev/shm' : os.tmpdir(), 'stratus-backup-'));
});
afterAll(() => {
  fs.rmSync(dir, { recursive: true, force: true });
  fs.rmSync(other, { recursive: true, force: true });
});

interface Served {
  cli: RunningCli;
  admin: Cloudflare;
  s3: S3Client;
  api: string;
  s3Url: string;
}

/** `stratus serve` on `dataDir` with free ports; the admin's SDK and S3 client from the generated credentials. */
async function serve(dataDir: string): Promise<Served> {
  const cli = await startCli(['serve', '--data-dir', dataDir, '--http', '127.0.0.1:0', '--dns', '127.0.0.1:0', '--s3', '127.0.0.1:0',
    '--dns-workers', '0', '--edge', 'off', '--admin', '127.0.0.1:0', '--log-format', 'pretty', '--log-level', 'warn']);
  const api = /v4 API listening on (\S+)/.exec(cli.output())![1]!;
  const s3Url = /S3 API listening on (\S+)/.exec(cli.output())![1]!;
  const creds = JSON.parse(fs.readFileSync(path.join(dataDir, 'credentials.json'), 'utf8')) as { email: string; key: string };
  const s3Creds = JSON.parse(fs.readFileSync(path.join(dataDir, 's3-credentials.json'), 'utf8')) as KeyPair;
  const admin = new Cloudflare({ apiEmail: creds.email, apiKey: creds.key, baseURL: api, maxRetries: 0 });
  return { cli, admin, api, s3Url, s3: clientWith(s3Url, { accessKeyId: s3Creds.accessKeyId, secretAccessKey: s3Creds.secretAccessKey }) };
}

async function stop(served: Served): Promise<void> {
  served.cli.child.kill('SIGTERM');
  expect(await served.cli.exited).toBe(0);
}

/**
 * Checks that a snapshot's data equals a state of the writer's log taken while it wrote (neither the start nor
 * the end: the writers ran on before and after each backup).
 */
function existedIn(writer: LoggedWriter, found: Map<string, string>, what: string): void {
  const at = matchingState(writer.log, found);
  expect(at, `${what}: ${JSON.stringify([...found])} is no state of ${writer.log.length} operations`).toBeGreaterThan(0);
  expect(at, `${what}: the state after the last operation`).toBeLessThan(writer.log.length);
}

describe('stratus backup under a write load, then stratus restore', () => {
  it('restores states that existed, every body whole, and the second account still its own', async () => {
    const data = path.join(dir, 'data');
    const live = await serve(data);
    const account = (await live.admin.accounts.list()).result[0]!.id;
    const zone = await live.admin.zones.create({ account: { id: account }, name: 'backup-load.example' });
    await live.s3.send(new CreateBucketCommand({ Bucket: 'backup-load' }));

    // A second user with its own account, token-derived S3 keys and a bucket.
    const added = await runCli(['user', 'add', '--email', 'second@example.com', '--data-dir', data]);
    expect(added.code, added.stderr).toBe(0);
    const key2 = /X-Auth-Key: (\S+)/.exec(added.stdout)![1]!;
    const account2 = /account id: (\S+)/.exec(added.stdout)![1]!;
    const sdk2 = new Cloudflare({ apiEmail: 'second@example.com', apiKey: key2, baseURL: live.api, maxRetries: 0 });
    const keys2 = await r2WriteKeys(sdk2, account2);
    const s3two = clientWith(live.s3Url, keys2);
    await s3two.send(new CreateBucketCommand({ Bucket: 'second-private' }));
    const secret = Buffer.alloc(150_000, 7);
    await s3two.send(new PutObjectCommand({ Bucket: 'second-private', Key: 'mine', Body: secret }));

    const writers = {
      o0: objectWriter(live.s3, 'backup-load', 'w0/'),
      o1: objectWriter(live.s3, 'backup-load', 'w1/'),
      o2: objectWriter(s3two, 'second-private', 'w2/'),
      dns: recordWriter(live.admin, zone.id, 'backup-load.example', 'r'),
    };
    const progressed = async (n: number) => {
      const start = Object.values(writers).map((w) => w.log.length);
      const end = Date.now() + 120_000;
      while (Object.values(writers).some((w, i) => w.log.length < start[i]! + n)) {
        if (Date.now() > end) throw new Error('the writers made no progress');
        await new Promise((r) => setTimeout(r, 20));
      }
    };
    await progressed(10);
    const linkedTo = path.join(dir, 'backup-linked');
    const first = await runCli(['backup', '--data-dir', data, '--to', linkedTo]);
    await progressed(5);
    const copiedTo = path.join(other, 'backup-copied');
    const second = await runCli(['backup', '--data-dir', data, '--to', copiedTo]);
    await progressed(5);
    for (const w of Object.values(writers)) await w.stop();
    await stop(live);

    for (const [result, to, how] of [[first, linkedTo, 'linked'], [second, copiedTo, 'copied']] as const) {
      expect(result.code, result.stderr).toBe(0);
      expect(result.stderr).toMatch(/holding garbage collection/);
      expect(result.stderr).toMatch(/bodies \d+ of \d+/);
      const summary = /\((\d+) object bodies, (\d+) hard-linked\)/.exec(result.stdout)!;
      expect(Number(summary[1])).toBeGreaterThan(0);
      if (how === 'linked') expect(summary[2]).toBe(summary[1]);
      else if (other.startsWith('/dev/shm')) expect(summary[2]).toBe('0');
      expect(fs.statSync(to).mode & 0o777).toBe(0o700);

      const restoredDir = path.join(dir, `restored-${how}`);
      const restored = await runCli(['restore', '--from', to, '--data-dir', restoredDir]);
      expect(restored.code, restored.stderr).toBe(0);
      expect(restored.stdout).toMatch(/^restored \d+ files/);
      const back = await serve(restoredDir);
      try {
        existedIn(writers.o0, await readObjects(back.s3, 'backup-load', 'w0/'), `${how} w0`);
        existedIn(writers.o1, await readObjects(back.s3, 'backup-load', 'w1/'), `${how} w1`);
        existedIn(writers.dns, await readRecords(back.admin, zone.id), `${how} records`);
        const s3twoBack = clientWith(back.s3Url, keys2);
        existedIn(writers.o2, await readObjects(s3twoBack, 'second-private', 'w2/'), `${how} w2`);
        // The second account's token, bucket and object came back, and stay its own.
        const mine = await s3twoBack.send(new GetObjectCommand({ Bucket: 'second-private', Key: 'mine' }));
        expect(Buffer.from(await mine.Body!.transformToByteArray()).equals(secret)).toBe(true);
        expect(((await s3twoBack.send(new ListBucketsCommand({}))).Buckets ?? []).map((b) => b.Name)).toEqual(['second-private']);
        expect(((await back.s3.send(new ListBucketsCommand({}))).Buckets ?? []).map((b) => b.Name)).toEqual(['backup-load']);
        expect((await s3Failure(back.s3.send(new GetObjectCommand({ Bucket: 'second-private', Key: 'mine' })))).name).toBe('NoSuchBucket');
        expect((await sdk2WithBase(key2, back.api).zones.list()).result).toEqual([]);
      } finally {
        await stop(back);
      }
    }
  }, 400_000);
});

function sdk2WithBase(key: string, api: string): Cloudflare {
  return new Cloudflare({ apiEmail: 'second@example.com', apiKey: key, baseURL: api, maxRetries: 0 });
}
