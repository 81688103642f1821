/**
 * The S3-compatible API driven by the command-line clients people use (Debian packages s3cmd, rclone and
 * awscli; CI installs them): each makes a bucket, uploads a small file and one large enough for its
 * multipart upload, lists recursively and by delimiter, downloads and compares bytes, copies and moves within
 * the bucket, syncs a tree of awkward names, deletes, and removes the bucket (refused while it is not empty).
 * Every client runs as a child process with configuration from temporary files and environment variables
 * only; @aws-sdk/client-s3 is the oracle for what the server stored. A client that is not installed is
 * skipped, with the reason printed.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HeadBucketCommand, HeadObjectCommand, ListObjectsV2Command, S3Client, type HeadObjectCommandOutput } from '@aws-sdk/client-s3';
import { startTestServer, TEST_S3_ACCESS_KEY_ID, TEST_S3_SECRET, type TestServer } from '../helpers/server.js';
import { cleanEnv, findTool, run, runOk, sha256File, treeDigest, TREE_FILES, writeFixtures } from '../helpers/s3-clients.js';

const S3CMD = findTool('s3cmd');
const RCLONE = findTool('rclone');
// Debian's aws-cli (what CI installs) before any other `aws` on PATH.
const AWS = findTool('aws', ['/usr/bin/aws']);
const missing = [!S3CMD && 's3cmd', !RCLONE && 'rclone', !AWS && 'aws'].filter(Boolean);
if (missing.length) console.log(`s3 clients: skipped, not installed: ${missing.join(', ')}`);

let server: TestServer;
let sdk: S3Client;
/** Fixtures (read-only) and one working folder per client. */
let dir: string;
let endpoint: string;

beforeAll(async () => {
  server = await startTestServer();
  endpoint = server.running.s3Url!;
  sdk = new S3Client({
    endpoint, region: 'auto', forcePathStyle: true, maxAttempts: 1,
    credentials: { accessKeyId: TEST_S3_ACCESS_KEY_ID, secretAccessKey: TEST_S3_SECRET },
  });
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'stratus-s3-clients-'));
  writeFixtures(dir);
});

afterAll(async () => {
  sdk?.destroy();
  await server?.stop();
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
});

const fixture = (name: string): string => path.join(dir, name);
const BIG_SHA = (): string => sha256File(fixture('big.bin'));

/** Every key of a bucket (under `prefix`), as the server lists them. */
async function keys(bucket: string, prefix = ''): Promise<string[]> {
  const out: string[] = [];
  let token: string | undefined;
  do {
    const page = await sdk.send(new ListObjectsV2Command({ Bucket: bucket, Prefix: prefix, ...(token ? { ContinuationToken: token } : {}) }));
    out.push(...(page.Contents ?? []).map((o) => o.Key!));
    token = page.NextContinuationToken;
  } while (token);
  return out;
}

const head = (bucket: string, key: string): Promise<HeadObjectCommandOutput> => sdk.send(new HeadObjectCommand({ Bucket: bucket, Key: key }));

async function bucketExists(bucket: string): Promise<boolean> {
  try {
    await sdk.send(new HeadBucketCommand({ Bucket: bucket }));
    return true;
  } catch (err) {
    if ((err as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode === 404) return false;
    throw err;
  }
}

/** The tree's keys under `prefix`, sorted as the server lists them (UTF-8 byte order). */
const treeKeys = (prefix: string): string[] =>
  TREE_FILES.map((f) => prefix + f).sort((a, b) => Buffer.compare(Buffer.from(a), Buffer.from(b)));

/** A fresh working folder for one client. */
function workDir(name: string): string {
  const work = path.join(dir, `work-${name}`);
  fs.mkdirSync(work, { recursive: true });
  return work;
}

describe.skipIf(!S3CMD)('s3cmd', () => {
  const bucket = 's3cmd-bucket';
  const env = cleanEnv();
  let cfg: string;
  let work: string;
  const s3cmd = (...args: string[]): Promise<string> => runOk(S3CMD!, ['-c', cfg, '--no-progress', ...args], env, work);
  /** Names listed by `s3cmd ls` (everything after `s3://bucket/`). */
  const listed = (out: string): string[] => out.split('\n').filter((l) => l.includes('s3://')).map((l) => l.slice(l.indexOf('s3://') + `s3://${bucket}/`.length));

  beforeAll(() => {
    work = workDir('s3cmd');
    const hostPort = new URL(endpoint).host;
    cfg = path.join(work, 's3cfg');
    fs.writeFileSync(cfg, [
      '[default]', `access_key = ${TEST_S3_ACCESS_KEY_ID}`, `secret_key = ${TEST_S3_SECRET}`,
      `host_base = ${hostPort}`, `host_bucket = ${hostPort}`, 'use_https = False', 'signature_v2 = False', '',
    ].join('\n'));
  });

  it('makes a bucket, uploads a small file with its content type and a 12 MiB file in 5 MiB parts', async () => {
    await s3cmd('mb', `s3://${bucket}`);
    await s3cmd('put', '--mime-type=text/x-stratus', '--add-header=Cache-Control:max-age=60', fixture('small.txt'), `s3://${bucket}/docs/small.txt`);
    await s3cmd('put', '--multipart-chunk-size-mb=5', fixture('big.bin'), `s3://${bucket}/big.bin`);
    const small = await head(bucket, 'docs/small.txt');
    expect(small.ContentType).toBe('text/x-stratus');
    expect(small.CacheControl).toBe('max-age=60');
    const big = await head(bucket, 'big.bin');
    expect(big.ContentLength).toBe(12 * 1024 * 1024);
    expect(big.ETag).toMatch(/-3"$/);
  });

  it('lists recursively and by delimiter', async () => {
    expect(listed(await s3cmd('ls', '--recursive', `s3://${bucket}`))).toEqual(['big.bin', 'docs/small.txt']);
    expect(listed(await s3cmd('ls', `s3://${bucket}/`))).toEqual(['docs/', 'big.bin']);
    expect(await s3cmd('ls', `s3://${bucket}/docs/`)).toContain(`s3://${bucket}/docs/small.txt`);
  });

  it('downloads the same bytes', async () => {
    await s3cmd('get', `s3://${bucket}/big.bin`, path.join(work, 'big.bin'));
    await s3cmd('get', `s3://${bucket}/docs/small.txt`, path.join(work, 'small.txt'));
    expect(sha256File(path.join(work, 'big.bin'))).toBe(BIG_SHA());
    expect(sha256File(path.join(work, 'small.txt'))).toBe(sha256File(fixture('small.txt')));
  });

  it('copies and moves within the bucket, keeping the content type', async () => {
    await s3cmd('cp', `s3://${bucket}/docs/small.txt`, `s3://${bucket}/copies/small ü+.txt`);
    await s3cmd('mv', `s3://${bucket}/big.bin`, `s3://${bucket}/moved/big ü.bin`);
    expect(await keys(bucket)).toEqual(['copies/small ü+.txt', 'docs/small.txt', 'moved/big ü.bin']);
    expect((await head(bucket, 'copies/small ü+.txt')).ContentType).toBe('text/x-stratus');
    await s3cmd('get', `s3://${bucket}/moved/big ü.bin`, path.join(work, 'moved.bin'));
    expect(sha256File(path.join(work, 'moved.bin'))).toBe(BIG_SHA());
  });

  it('syncs a tree of awkward names up and back down', async () => {
    await s3cmd('sync', `${fixture('tree')}/`, `s3://${bucket}/tree/`);
    expect(await keys(bucket, 'tree/')).toEqual(treeKeys('tree/'));
    await s3cmd('sync', `s3://${bucket}/tree/`, `${path.join(work, 'back')}/`);
    expect(treeDigest(path.join(work, 'back'))).toEqual(treeDigest(fixture('tree')));
  });

  it('deletes objects and removes the bucket only once it is empty', async () => {
    await s3cmd('del', `s3://${bucket}/docs/small.txt`);
    const refused = await run(S3CMD!, ['-c', cfg, 'rb', `s3://${bucket}`], env, work);
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toContain('BucketNotEmpty');
    await s3cmd('del', '--recursive', '--force', `s3://${bucket}`);
    expect(await keys(bucket)).toEqual([]);
    await s3cmd('rb', `s3://${bucket}`);
    expect(await bucketExists(bucket)).toBe(false);
  });
});

describe.skipIf(!RCLONE)('rclone', () => {
  const bucket = 'rclone-bucket';
  let env: NodeJS.ProcessEnv;
  let work: string;
  let args: string[];
  const rclone = (...more: string[]): Promise<string> => runOk(RCLONE!, [...args, ...more], env, work);
  const remote = (p = ''): string => `stratus:${bucket}${p ? `/${p}` : ''}`;
  const lines = (out: string): string[] => out.split('\n').filter(Boolean).sort();
  const MULTIPART = ['--s3-upload-cutoff', '5M', '--s3-chunk-size', '5M'];

  beforeAll(() => {
    work = workDir('rclone');
    const config = path.join(work, 'rclone.conf');
    fs.writeFileSync(config, '');
    args = ['--config', config, '--retries', '1', '--low-level-retries', '1'];
    env = cleanEnv({
      RCLONE_CONFIG_STRATUS_TYPE: 's3',
      RCLONE_CONFIG_STRATUS_PROVIDER: 'Other',
      RCLONE_CONFIG_STRATUS_ENDPOINT: endpoint,
      RCLONE_CONFIG_STRATUS_ACCESS_KEY_ID: TEST_S3_ACCESS_KEY_ID,
      RCLONE_CONFIG_STRATUS_SECRET_ACCESS_KEY: TEST_S3_SECRET,
      RCLONE_CONFIG_STRATUS_FORCE_PATH_STYLE: 'true',
    });
  });

  it('makes a bucket, uploads a small file and a 12 MiB file in 5 MiB parts', async () => {
    await rclone('mkdir', remote());
    await rclone('copyto', fixture('small.txt'), remote('docs/small.txt'));
    await rclone('copyto', ...MULTIPART, fixture('big.bin'), remote('big.bin'));
    const small = await head(bucket, 'docs/small.txt');
    expect(small.ContentType).toBe('text/plain; charset=utf-8');
    expect(small.Metadata?.mtime).toMatch(/^\d+(\.\d+)?$/);
    const big = await head(bucket, 'big.bin');
    expect(big.ContentLength).toBe(12 * 1024 * 1024);
    expect(big.ETag).toMatch(/-3"$/);
    expect(big.Metadata?.md5chksum).toBeDefined();
  });

  it('lists recursively and by delimiter (v1 and v2 listings, small pages)', async () => {
    expect(lines(await rclone('lsf', '-R', remote()))).toEqual(['big.bin', 'docs/', 'docs/small.txt']);
    expect(lines(await rclone('lsf', '--s3-list-chunk', '1', remote()))).toEqual(['big.bin', 'docs/']);
    expect(lines(await rclone('lsf', '--s3-list-version', '2', '--s3-list-chunk', '1', '-R', remote()))).toEqual(['big.bin', 'docs/', 'docs/small.txt']);
  });

  it('downloads the same bytes, whole and as a range', async () => {
    await rclone('copyto', remote('big.bin'), path.join(work, 'big.bin'));
    expect(sha256File(path.join(work, 'big.bin'))).toBe(BIG_SHA());
    const part = await rclone('cat', '--offset', '7', '--count', '5', remote('docs/small.txt'));
    expect(part).toBe(fs.readFileSync(fixture('small.txt'), 'utf8').slice(7, 12));
  });

  it('moves within the bucket (the large object by part copies)', async () => {
    await rclone('moveto', remote('docs/small.txt'), remote('moved/small ü+.txt'));
    await rclone('moveto', '--s3-copy-cutoff', '5M', remote('big.bin'), remote('moved/big ü.bin'));
    expect(await keys(bucket)).toEqual(['moved/big ü.bin', 'moved/small ü+.txt']);
    await rclone('copyto', remote('moved/big ü.bin'), path.join(work, 'moved.bin'));
    expect(sha256File(path.join(work, 'moved.bin'))).toBe(BIG_SHA());
  });

  it('syncs a tree of awkward names, then a change to it, and checks both', async () => {
    const local = path.join(work, 'tree');
    fs.cpSync(fixture('tree'), local, { recursive: true });
    await rclone('sync', local, remote('tree'));
    expect(await keys(bucket, 'tree/')).toEqual(treeKeys('tree/'));
    await rclone('check', local, remote('tree'));
    fs.rmSync(path.join(local, TREE_FILES[0]!));
    fs.writeFileSync(path.join(local, TREE_FILES[2]!), 'changed, and longer than before\n');
    await rclone('sync', local, remote('tree'));
    await rclone('check', '--download', local, remote('tree'));
    expect(await keys(bucket, 'tree/')).toEqual(treeKeys('tree/').filter((k) => k !== `tree/${TREE_FILES[0]}`));
  });

  it('removes the bucket only once it is empty', async () => {
    const refused = await run(RCLONE!, [...args, 'rmdir', remote()], env, work);
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toContain('BucketNotEmpty');
    await rclone('delete', remote());
    expect(await keys(bucket)).toEqual([]);
    await rclone('rmdir', remote());
    expect(await bucketExists(bucket)).toBe(false);
  });
});

describe.skipIf(!AWS)('aws-cli', () => {
  const bucket = 'aws-cli-bucket';
  let env: NodeJS.ProcessEnv;
  let work: string;
  const aws = (...args: string[]): Promise<string> => runOk(AWS!, ['--endpoint-url', endpoint, ...args], env, work);
  const s3 = (cmd: string, ...args: string[]): Promise<string> => aws('s3', cmd, '--only-show-errors', ...args);
  const url = (key = ''): string => `s3://${bucket}/${key}`;
  /** Names listed by `aws s3 ls` (`PRE name/` or `date time size name`). */
  const listed = (out: string): string[] =>
    out.split('\n').filter(Boolean).map((l) => /^\s*PRE (.*)$/.exec(l)?.[1] ?? /^\S+ \S+\s+\d+ (.*)$/.exec(l)![1]!);

  beforeAll(() => {
    work = workDir('aws');
    const config = path.join(work, 'config');
    const credentials = path.join(work, 'credentials');
    fs.writeFileSync(config, [
      '[default]', 'region = us-east-1', 'output = json', 's3 =', '  addressing_style = path',
      '  multipart_threshold = 5MB', '  multipart_chunksize = 5MB', '',
    ].join('\n'));
    fs.writeFileSync(credentials, ['[default]', `aws_access_key_id = ${TEST_S3_ACCESS_KEY_ID}`, `aws_secret_access_key = ${TEST_S3_SECRET}`, ''].join('\n'));
    env = cleanEnv({ AWS_CONFIG_FILE: config, AWS_SHARED_CREDENTIALS_FILE: credentials, AWS_EC2_METADATA_DISABLED: 'true', AWS_PAGER: '' });
  });

  it('makes a bucket, uploads a small file with metadata and a 12 MiB file in 5 MiB parts', async () => {
    await aws('s3', 'mb', url());
    await s3('cp', '--content-type', 'text/x-stratus', '--cache-control', 'max-age=60', '--metadata', 'owner=ops', fixture('small.txt'), url('docs/small.txt'));
    await s3('cp', fixture('big.bin'), url('big.bin'));
    const small = await head(bucket, 'docs/small.txt');
    expect(small.ContentType).toBe('text/x-stratus');
    expect(small.CacheControl).toBe('max-age=60');
    expect(small.Metadata).toEqual({ owner: 'ops' });
    const big = await head(bucket, 'big.bin');
    expect(big.ContentLength).toBe(12 * 1024 * 1024);
    expect(big.ETag).toMatch(/-3"$/);
  });

  it('lists recursively and by delimiter', async () => {
    expect(listed(await aws('s3', 'ls', '--recursive', url()))).toEqual(['big.bin', 'docs/small.txt']);
    expect(listed(await aws('s3', 'ls', url()))).toEqual(['docs/', 'big.bin']);
    const v2 = JSON.parse(await aws('s3api', 'list-objects-v2', '--bucket', bucket, '--delimiter', '/')) as { Contents: { Key: string }[]; CommonPrefixes: { Prefix: string }[] };
    expect(v2.Contents.map((o) => o.Key)).toEqual(['big.bin']);
    expect(v2.CommonPrefixes).toEqual([{ Prefix: 'docs/' }]);
  });

  it('downloads the same bytes (the large object in ranged parts); a range past the end is InvalidRange', async () => {
    await s3('cp', url('big.bin'), path.join(work, 'big.bin'));
    expect(sha256File(path.join(work, 'big.bin'))).toBe(BIG_SHA());
    const size = fs.statSync(fixture('small.txt')).size;
    const past = await run(AWS!, ['--endpoint-url', endpoint, 's3api', 'get-object', '--bucket', bucket, '--key', 'docs/small.txt', '--range', `bytes=${size}-${size + 10}`, path.join(work, 'past')], env, work);
    expect(past.code).not.toBe(0);
    expect(past.stderr).toContain('InvalidRange');
  });

  it('copies and moves within the bucket (the large object by part copies), keeping metadata', async () => {
    await s3('cp', url('docs/small.txt'), url('copies/small ü+.txt'));
    await s3('mv', url('docs/small.txt'), url('moved/small.txt'));
    await s3('mv', url('big.bin'), url('moved/big ü.bin'));
    expect(await keys(bucket)).toEqual(['copies/small ü+.txt', 'moved/big ü.bin', 'moved/small.txt']);
    const copied = await head(bucket, 'copies/small ü+.txt');
    expect([copied.ContentType, copied.Metadata]).toEqual(['text/x-stratus', { owner: 'ops' }]);
    await s3('cp', url('moved/big ü.bin'), path.join(work, 'moved.bin'));
    expect(sha256File(path.join(work, 'moved.bin'))).toBe(BIG_SHA());
  });

  it('syncs a tree of awkward names up and back down', async () => {
    await s3('sync', fixture('tree'), url('tree'));
    expect(await keys(bucket, 'tree/')).toEqual(treeKeys('tree/'));
    await s3('sync', url('tree'), path.join(work, 'back'));
    expect(treeDigest(path.join(work, 'back'))).toEqual(treeDigest(fixture('tree')));
  });

  it('removes the bucket only once it is empty', async () => {
    const refused = await run(AWS!, ['--endpoint-url', endpoint, 's3', 'rb', url()], env, work);
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toContain('BucketNotEmpty');
    await s3('rm', '--recursive', url());
    expect(await keys(bucket)).toEqual([]);
    await aws('s3', 'rb', url());
    expect(await bucketExists(bucket)).toBe(false);
  });
});
