/**
 * `stratus credentials --env` prints `export` lines that a shell evaluates, after which the AWS CLI and wrangler
 * work against the running Stratus without another setting: `aws s3 mb/cp/ls` (AWS_* with AWS_ENDPOINT_URL),
 * `wrangler whoami` (CLOUDFLARE_API_BASE_URL, CLOUDFLARE_API_TOKEN, CLOUDFLARE_ACCOUNT_ID). Without a running
 * Stratus the account id line is a comment, and the rest still evaluates.
 */
import { execFile, execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../dns-server/ports.js';
import { CLI, runCli, startCli, type RunningCli } from './run-cli.js';

const ROOT = path.resolve(import.meta.dirname, '../..');
let dir: string;
let dataDir: string;
let http: string;
let s3: string;
let running: RunningCli;

const has = (tool: string) => { try { execFileSync('which', [tool], { stdio: 'ignore' }); return true; } catch { return false; } };

/** Runs `script` in bash with the built `stratus` on the PATH, in a HOME of its own. */
function bash(script: string): Promise<{ code: number; out: string }> {
  const bin = path.join(dir, 'bin');
  fs.mkdirSync(bin, { recursive: true });
  fs.writeFileSync(path.join(bin, 'stratus'), `#!/usr/bin/env bash\nexec ${JSON.stringify(process.execPath)} ${JSON.stringify(CLI)} "$@"\n`, { mode: 0o755 });
  const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !/^(STRATUS_|CLOUDFLARE_|AWS_)/.test(k)));
  const home = path.join(dir, 'home');
  fs.mkdirSync(home, { recursive: true });
  return new Promise((resolve) => {
    execFile('bash', ['--noprofile', '--norc', '-c', `set -euo pipefail\n${script}`], {
      cwd: dir, timeout: 180_000,
      env: { ...env, HOME: home, PATH: `${bin}:${path.join(ROOT, 'node_modules/.bin')}:${process.env.PATH}`, WRANGLER_SEND_METRICS: 'false', CI: 'true', NO_COLOR: '1' },
    }, (err, stdout, stderr) => resolve({ code: err ? (typeof err.code === 'number' ? err.code : -1) : 0, out: stdout + stderr }));
  });
}

beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'stratus-cli-env-'));
  dataDir = path.join(dir, 'data');
  http = `127.0.0.1:${await freePort()}`;
  s3 = `127.0.0.1:${await freePort()}`;
  running = await startCli(['serve', '--data-dir', dataDir, '--http', http, '--s3', s3, '--dns', '127.0.0.1:0', '--admin', 'off', '--edge', 'off', '--dns-workers', '0']);
}, 120_000);
afterAll(async () => {
  running?.child.kill('SIGTERM');
  await running?.exited;
  fs.rmSync(dir, { recursive: true, force: true });
});

describe('stratus credentials --env', () => {
  it('prints export lines naming the saved credentials, the listeners and the account', async () => {
    const r = await runCli(['credentials', '--env', '--data-dir', dataDir, '--http', http, '--s3', s3]);
    expect(r.code, r.stderr).toBe(0);
    const admin = JSON.parse(fs.readFileSync(path.join(dataDir, 'credentials.json'), 'utf8')) as { api_token: string; key: string; email: string };
    const keys = JSON.parse(fs.readFileSync(path.join(dataDir, 's3-credentials.json'), 'utf8')) as { accessKeyId: string; secretAccessKey: string };
    const accounts = await (await fetch(`http://${http}/client/v4/accounts`, { headers: { authorization: `Bearer ${admin.api_token}` } })).json() as { result: { id: string }[] };
    expect(r.stdout).toBe([
      `export AWS_ACCESS_KEY_ID='${keys.accessKeyId}'`, `export AWS_SECRET_ACCESS_KEY='${keys.secretAccessKey}'`,
      `export AWS_ENDPOINT_URL='http://${s3}'`, "export AWS_DEFAULT_REGION='auto'", "export AWS_REGION='auto'",
      `export CLOUDFLARE_API_BASE_URL='http://${http}/client/v4'`, `export CLOUDFLARE_API_TOKEN='${admin.api_token}'`,
      `export CLOUDFLARE_ACCOUNT_ID='${accounts.result[0]!.id}'`, '',
    ].join('\n'));
    expect((await runCli(['credentials', '--env', '--json', '--data-dir', dataDir])).stderr).toBe('stratus: stratus credentials takes --json or --env, not both\n');
  });

  it.skipIf(!has('aws'))('evaluated in bash, makes the AWS CLI work against the S3 listener', async () => {
    const r = await bash(`eval "$(stratus credentials --env --data-dir ${dataDir} --http ${http} --s3 ${s3})"
echo 'hello from the env' > note.txt
aws s3 mb s3://env-bucket
aws s3 cp note.txt s3://env-bucket/note.txt
aws s3 cp s3://env-bucket/note.txt -
aws s3 ls s3://env-bucket/`);
    expect(r.code, r.out).toBe(0);
    expect(r.out).toContain('hello from the env');
    expect(r.out).toMatch(/\d+ note\.txt/);
  });

  it('evaluated in bash, makes wrangler whoami name the admin account', async () => {
    const r = await bash(`eval "$(stratus credentials --env --data-dir ${dataDir} --http ${http} --s3 ${s3})"
wrangler whoami
echo "account=$CLOUDFLARE_ACCOUNT_ID"`);
    expect(r.code, r.out).toBe(0);
    const account = /account=([0-9a-f]{32})/.exec(r.out)![1]!;
    expect(r.out).toContain(account);
    expect(r.out.split(account).length).toBeGreaterThan(2);
  });

  it('without a running Stratus the account line is a comment, and the rest evaluates', async () => {
    const closed = `127.0.0.1:${await freePort()}`;
    const r = await bash(`out="$(stratus credentials --env --data-dir ${dataDir} --http ${closed} --s3 ${s3})"
eval "$out"
echo "$out" | grep '^#'
echo "base=$CLOUDFLARE_API_BASE_URL account=\${CLOUDFLARE_ACCOUNT_ID:-none}"`);
    expect(r.code, r.out).toBe(0);
    expect(r.out).toContain(`# CLOUDFLARE_ACCOUNT_ID not set: no answer from http://${closed}/client/v4 (ECONNREFUSED) (start stratus serve, then run this again)`);
    expect(r.out).toContain(`base=http://${closed}/client/v4 account=none`);
  });
});
