/** `stratus user add` (the build, dist/cli.js: `npm run build` first) creates an isolated user that the running server accepts. */
import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { api } from '../helpers/api.js';

const run = promisify(execFile);
const root = path.resolve(import.meta.dirname, '../..');
const cli = (args: string[]) => run(process.execPath, [path.join(root, 'dist/cli.js'), ...args], { cwd: root, env: { ...process.env, STRATUS_LOG_LEVEL: 'silent' } });

describe('stratus user add', () => {
  let server: TestServer;
  beforeAll(async () => { server = await startTestServer(); });
  afterAll(async () => { await server.stop(); });

  it('creates a user with its own account, or sets the key of an existing one', async () => {
    const { stdout } = await cli(['user', 'add', '--email', 'Cli@Example.org', '--key', 'cli-key-1', '--data-dir', server.dataDir]);
    expect(stdout).toMatch(/created user cli@example\.org\n {2}X-Auth-Key: cli-key-1\n {2}account id: [0-9a-f]{32}\n/);
    const accountId = /account id: ([0-9a-f]{32})/.exec(stdout)![1];
    const mine = await api({ ...server, email: 'cli@example.org', key: 'cli-key-1' }, 'GET', '/accounts');
    expect(mine.body.result.map((a: { id: string }) => a.id)).toEqual([accountId]);

    const again = await cli(['user', 'add', '--email', 'cli@example.org', '--data-dir', server.dataDir]);
    const generated = /X-Auth-Key: ([0-9a-f]{37})/.exec(again.stdout)![1]!;
    expect(again.stdout).toContain('updated user cli@example.org');
    expect(again.stdout).toContain(`account id: ${accountId}`);
    expect((await api({ ...server, email: 'cli@example.org', key: generated }, 'GET', '/accounts')).status).toBe(200);
  });

  it('refuses a bad e-mail and a missing --email with exit code 2', async () => {
    await expect(cli(['user', 'add', '--email', 'not-an-email', '--data-dir', server.dataDir])).rejects.toMatchObject({ code: 2, stderr: expect.stringContaining('Invalid e-mail address') });
    await expect(cli(['user', 'add', '--data-dir', server.dataDir])).rejects.toMatchObject({ code: 2, stderr: expect.stringContaining('usage: stratus user add') });
  });
});
