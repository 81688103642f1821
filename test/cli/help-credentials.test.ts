/**
 * The CLI explains itself: `--version` prints package.json's version, `--help` lists the commands, each
 * command's `--help` lists its own flags with defaults and variables; `stratus credentials` prints the
 * credentials the first start generated (as often as asked), and says so when there are none.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FLAGS, flagEnv, flagsOf } from '../../src/config/flags.js';
import { runCli, startCli } from './run-cli.js';

const pkg = JSON.parse(fs.readFileSync(path.resolve(import.meta.dirname, '../../package.json'), 'utf8')) as { version: string };
let dir: string;
beforeAll(() => { dir = fs.mkdtempSync(path.join(os.tmpdir(), 'stratus-cli-help-')); });
afterAll(() => { fs.rmSync(dir, { recursive: true, force: true }); });

describe('stratus --version and --help', () => {
  it('prints the version', async () => {
    expect(await runCli(['--version'])).toEqual({ code: 0, stdout: `${pkg.version}\n`, stderr: '' });
    expect((await runCli(['serve', '--version'])).stdout).toBe(`${pkg.version}\n`);
  });

  it('lists the commands, and each command its own flags', async () => {
    const main = await runCli(['--help']);
    expect(main.code).toBe(0);
    for (const c of ['serve', 'dev', 'user', 'credentials', 'zone import', 'zone export', 'backup', 'restore']) expect(main.stdout).toMatch(new RegExp(`^  ${c} `, 'm'));
    const texts = new Map<string, string>();
    for (const command of ['serve', 'dev', 'user', 'credentials', 'zone import', 'zone export', 'backup', 'restore'] as const) {
      const r = await runCli([...command.split(' '), '--help']);
      expect(r.code, command).toBe(0);
      texts.set(command, r.stdout);
      for (const f of flagsOf(command)) {
        expect(r.stdout, `${command} --${f.name}`).toMatch(new RegExp(`^  --${f.name}(?![\\w-])`, 'm'));
        const env = flagEnv(f);
        if (env !== undefined) expect(r.stdout).toContain(env);
      }
      for (const f of FLAGS.filter((x) => !x.commands.includes(command))) expect(r.stdout, `${command} lists --${f.name}`).not.toMatch(new RegExp(`^  --${f.name}(?![\\w-])`, 'm'));
    }
    expect(new Set(texts.values()).size).toBe(8);
    expect((await runCli(['help', 'dev'])).stdout).toBe(texts.get('dev'));
    const zone = await runCli(['zone', '--help']);
    expect(zone.stdout).toBe(`${texts.get('zone import')}\n${texts.get('zone export')}`);
  });

  it('without a command prints the help on stderr and exits 2', async () => {
    const r = await runCli([]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('usage: stratus <command>');
  });
});

describe('stratus credentials', () => {
  it('prints the generated admin and S3 credentials whenever asked', async () => {
    const dataDir = path.join(dir, 'data');
    const server = await startCli(['serve', '--data-dir', dataDir, '--http', '127.0.0.1:0', '--dns', '127.0.0.1:0', '--s3', '127.0.0.1:0', '--dns-workers', '0', '--log-level', 'warn',
      '--edge', 'off', '--admin', '127.0.0.1:0', '--log-format', 'pretty']);
    let first: string;
    try {
      first = server.output();
    } finally {
      server.child.kill('SIGTERM');
      await server.exited;
    }
    const key = /X-Auth-Key: +([0-9a-f]{37})/.exec(first)![1]!;
    const token = /Authorization: Bearer (\S+)/.exec(first)![1]!;
    const s3Id = /access key id: +([0-9a-f]{32})/.exec(first)![1]!;
    const s3Secret = /secret access key: +([0-9a-f]{64})/.exec(first)![1]!;
    for (let i = 0; i < 2; i++) {
      const r = await runCli(['credentials', '--data-dir', dataDir]);
      expect(r.code).toBe(0);
      expect(r.stdout).toContain(`X-Auth-Email: admin@example.com\n  X-Auth-Key:   ${key}\n  Authorization: Bearer ${token}\n`);
      expect(r.stdout).toContain(`access key id:     ${s3Id}\n  secret access key: ${s3Secret}\n`);
    }
    const json = JSON.parse((await runCli(['credentials', '--json'], { STRATUS_DATA_DIR: dataDir })).stdout);
    expect(json).toEqual({ admin: { email: 'admin@example.com', key, api_token: token }, s3: { access_key_id: s3Id, secret_access_key: s3Secret } });
  });

  it('says where there are none, with exit 2', async () => {
    const empty = fs.mkdtempSync(path.join(dir, 'empty-'));
    const r = await runCli(['credentials', '--data-dir', empty]);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/^stratus: no generated credentials in .*empty-/);
    expect((await runCli(['credentials', '--data-dir', path.join(dir, 'missing')])).stderr).toMatch(/does not exist/);
  });
});
