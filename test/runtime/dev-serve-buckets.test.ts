/**
 * `stratus dev` and `stratus serve` on one data folder share an account's buckets (issue 26): the built CLI's
 * `stratus serve` holds the folder (S3 with the admin's key pair, the v4 object routes for a second user), and
 * `stratus dev` runs a script bound to `cross` on the same `--data-dir`. An object put over S3 is read by the
 * script and one the script puts is read over S3; by default the bindings are the admin's, `--account` (or the
 * config's `account_id`) picks the second user's account, whose `cross` stays apart from the admin's; a bound
 * bucket the account lacks is created in it (S3 lists it); an unknown account is a clear error naming its source.
 * Needs `npm run build`.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { CreateBucketCommand, GetObjectCommand, ListBucketsCommand, PutObjectCommand, type S3Client } from '@aws-sdk/client-s3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { projectBuild, startCompiled, type CompiledServer } from '../helpers/compiled-server.js';
import { startDev, type DevProcess } from '../helpers/dev-process.js';
import { clientWith, r2WriteKeys } from '../helpers/s3-keys.js';
import { runCli } from '../cli/run-cli.js';
import Cloudflare from 'cloudflare';

const SCRIPT = path.join(import.meta.dirname, 'fixtures', 'bucket-app.mjs');
const ADMIN = { email: 'admin@dev-serve.test', key: '0123456789abcdef0123456789abcdef01234' };
const S3_KEYS = { accessKeyId: 'a1b2c3d4e5f60718293a4b5c6d7e8f90', secretAccessKey: 'f'.repeat(64) };

/** The body of `Bucket/Key` over S3. */
async function s3Text(s3: S3Client, bucket: string, key: string): Promise<string> {
  return (await (await s3.send(new GetObjectCommand({ Bucket: bucket, Key: key }))).Body!.transformToString());
}

/** The keys the script lists in its bucket. */
async function devKeys(dev: DevProcess): Promise<string[]> {
  return ((await (await fetch(`${dev.url}/list`)).json()) as { keys: string[] }).keys;
}

describe('stratus dev on the data folder of a stratus serve', () => {
  let project: string;
  let dataDir: string;
  let server: CompiledServer;
  let s3Url: string;
  let admin: S3Client;
  let adminAccount: string;
  let second: { accountId: string; email: string; key: string; s3: S3Client };
  const v4Object = (account: string, bucket: string, key: string) => `${server.base}/accounts/${account}/r2/buckets/${bucket}/objects/${encodeURIComponent(key)}`;
  const secondAuth = () => ({ 'X-Auth-Email': second.email, 'X-Auth-Key': second.key });
  /** Writes the project's wrangler.toml binding BUCKET to `cross` (and SPARE to `spare`), with `extra` lines. */
  const writeConfig = (extra: string[] = []) => fs.writeFileSync(path.join(project, 'wrangler.toml'), [
    'name = "cross-app"', `main = ${JSON.stringify(SCRIPT)}`, 'compatibility_date = "2025-01-01"', ...extra, '',
    '[[r2_buckets]]', 'binding = "BUCKET"', 'bucket_name = "cross"', '', '[[r2_buckets]]', 'binding = "SPARE"', 'bucket_name = "spare"', '',
  ].join('\n'));

  beforeAll(async () => {
    project = fs.mkdtempSync(path.join(os.tmpdir(), 'stratus-dev-serve-'));
    dataDir = path.join(project, '.stratus');
    server = await startCompiled(projectBuild(), {
      dataDir, ...ADMIN, flags: ['--s3-access-key-id', S3_KEYS.accessKeyId, '--s3-secret-access-key', S3_KEYS.secretAccessKey],
    });
    s3Url = /S3 API listening on (http[^\s"]+)/.exec(server.output())![1]!;
    admin = clientWith(s3Url, S3_KEYS);
    // The admin's account: the one the instance key pair acts for (ListBuckets' Owner).
    adminAccount = (await admin.send(new ListBucketsCommand({}))).Owner!.ID!;
    // A second user with an account of its own, made with the CLI while serve runs (as an operator does).
    const added = await runCli(['user', 'add', '--email', 'second@dev-serve.test', '--data-dir', dataDir]);
    expect(added.code, added.stderr).toBe(0);
    const key = /X-Auth-Key: (\S+)/.exec(added.stdout)![1]!;
    const accountId = /account id: (\S+)/.exec(added.stdout)![1]!;
    const sdk = new Cloudflare({ apiEmail: 'second@dev-serve.test', apiKey: key, baseURL: server.base, maxRetries: 0 });
    second = { accountId, email: 'second@dev-serve.test', key, s3: clientWith(s3Url, await r2WriteKeys(sdk, accountId)) };

    // The admin's `cross` and an object in it, over S3 with the instance key pair.
    await admin.send(new CreateBucketCommand({ Bucket: 'cross' }));
    await admin.send(new PutObjectCommand({ Bucket: 'cross', Key: 'from-s3.txt', Body: 'put over S3 by the admin' }));
    // The second account's `cross` (same name, its own bucket) and an object, over the v4 routes (wrangler r2's).
    await sdk.r2.buckets.create({ account_id: accountId, name: 'cross' });
    const put = await fetch(v4Object(accountId, 'cross', 'second-only.txt'), { method: 'PUT', headers: secondAuth(), body: 'put over v4 by the second user' });
    expect(put.status).toBe(200);
  }, 180_000);

  afterAll(async () => {
    await server?.stop();
    if (project) fs.rmSync(project, { recursive: true, force: true });
  });

  it('binds the admin\'s buckets by default: S3 put -> script get, script put -> S3 get; the missing bucket is created in the account', async () => {
    writeConfig();
    const dev = await startDev(project);
    try {
      const got = await fetch(`${dev.url}/obj/from-s3.txt`);
      expect(got.status).toBe(200);
      expect(await got.text()).toBe('put over S3 by the admin');
      expect(await devKeys(dev)).toEqual(['from-s3.txt']);

      expect((await fetch(`${dev.url}/obj/from-dev.txt`, { method: 'PUT', body: 'put by the dev script' })).status).toBe(201);
      expect(await s3Text(admin, 'cross', 'from-dev.txt')).toBe('put by the dev script');
      // Not in the second account's `cross`.
      expect((await fetch(v4Object(second.accountId, 'cross', 'from-dev.txt'), { headers: secondAuth() })).status).toBe(404);

      // `spare` did not exist: dev made it in the admin's account, where S3 lists it (and only there).
      const names = (c: S3Client) => c.send(new ListBucketsCommand({})).then((l) => (l.Buckets ?? []).map((b) => b.Name));
      expect(await names(admin)).toEqual(['cross', 'spare']);
      expect(await names(second.s3)).toEqual(['cross']);
      expect(dev.stdout()).toContain(`bindings name the buckets of account ${adminAccount} (the admin's)`);
    } finally {
      await dev.stop();
    }
  }, 120_000);

  it('--account picks another account (over the config\'s account_id): only that account\'s bucket of the same name', async () => {
    writeConfig([`account_id = "${adminAccount}"`]);
    const dev = await startDev(project, ['--account', second.accountId]);
    try {
      expect(await devKeys(dev)).toEqual(['second-only.txt']);
      expect(await (await fetch(`${dev.url}/obj/second-only.txt`)).text()).toBe('put over v4 by the second user');
      expect((await fetch(`${dev.url}/obj/from-s3.txt`)).status).toBe(404);

      expect((await fetch(`${dev.url}/obj/from-second-dev.txt`, { method: 'PUT', body: 'the second account\'s dev script' })).status).toBe(201);
      expect(await s3Text(second.s3, 'cross', 'from-second-dev.txt')).toBe('the second account\'s dev script');
      const v4 = await fetch(v4Object(second.accountId, 'cross', 'from-second-dev.txt'), { headers: secondAuth() });
      expect(await v4.text()).toBe('the second account\'s dev script');
      // The admin's `cross` is unchanged.
      await expect(s3Text(admin, 'cross', 'from-second-dev.txt')).rejects.toMatchObject({ name: 'NoSuchKey' });
      expect(dev.stdout()).toContain(`bindings name the buckets of account ${second.accountId} (--account)`);
    } finally {
      await dev.stop();
    }
  }, 120_000);

  it('the config\'s account_id picks the account when no --account is given', async () => {
    writeConfig([`account_id = "${second.accountId}"`]);
    const dev = await startDev(project);
    try {
      expect(await devKeys(dev)).toEqual(['from-second-dev.txt', 'second-only.txt']);
      expect(dev.stdout()).toContain(`bindings name the buckets of account ${second.accountId} (wrangler.toml's account_id)`);
    } finally {
      await dev.stop();
    }
  }, 120_000);

  it('an account the data folder does not have stops the start with an error naming where it came from', async () => {
    const unknown = 'ffffffffffffffffffffffffffffffff';
    writeConfig();
    const byFlag = await runCli(['dev', '--data-dir', dataDir, '--http', '127.0.0.1:0', '--account', unknown], {}, project);
    expect(byFlag.code).toBe(2);
    expect(byFlag.stderr).toBe(`stratus dev: --account ${unknown}: no such account in this data folder (${dataDir}); the admin's is ${adminAccount}: ` +
      'pass --account with an account of this folder (`stratus user add` makes users with accounts of their own)\n');
    writeConfig([`account_id = "${unknown}"`]);
    const byConfig = await runCli(['dev', '--data-dir', dataDir, '--http', '127.0.0.1:0'], {}, project);
    expect(byConfig.code).toBe(2);
    expect(byConfig.stderr).toContain(`stratus dev: wrangler.toml's account_id ${unknown}: no such account in this data folder`);
    const malformed = await runCli(['dev', '--data-dir', dataDir, '--http', '127.0.0.1:0', '--account', 'Not-An-Id'], {}, project);
    expect(malformed.code).toBe(2);
    expect(malformed.stderr).toBe('stratus dev: --account must be an account id (32 hex digits, lowercase), got "Not-An-Id"\n');
  }, 120_000);
});
