/**
 * wrangler's `r2 bucket` and `r2 object --remote` commands, unchanged, against a real Stratus (the CLI from
 * node_modules with CLOUDFLARE_API_BASE_URL): create, list, info, object put (with metadata flags) / get /
 * delete, bucket delete. A second user's token works in its own account only.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { GetObjectCommand } from '@aws-sdk/client-s3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { addUser } from '../helpers/users.js';
import { accountId } from '../helpers/api.js';
import { testS3Client } from '../helpers/s3-sdk.js';
import { wrangler, type WranglerAuth } from '../helpers/wrangler.js';
import { R2_STORAGE_WRITE } from '../helpers/s3-keys.js';

describe('wrangler r2', () => {
  let server: TestServer;
  let account: string;
  let admin: WranglerAuth;
  let work: string;
  const run = (args: string[], auth = admin, acct = account) => wrangler(server.apiBase, acct, auth, args, { cwd: work });

  beforeAll(async () => {
    server = await startTestServer();
    account = await accountId(server);
    admin = { email: server.email, key: server.key };
    work = fs.mkdtempSync(path.join(os.tmpdir(), 'stratus-wrangler-'));
  });
  afterAll(async () => {
    await server?.stop();
    fs.rmSync(work, { recursive: true, force: true });
  });

  it('creates, lists, shows and deletes a bucket; puts, gets and deletes objects with their metadata', async () => {
    const created = await run(['r2', 'bucket', 'create', 'wr-demo']);
    expect(created.code, created.stderr).toBe(0);
    expect(created.stdout).toContain("Created bucket 'wr-demo'");
    const listed = await run(['r2', 'bucket', 'list']);
    expect(listed.stdout).toMatch(/name:\s+wr-demo/);

    const file = path.join(work, 'page.html');
    const body = '<h1>hello from wrangler</h1>\n'.repeat(5000);
    fs.writeFileSync(file, body);
    const put = await run(['r2', 'object', 'put', 'wr-demo/site/index.html', '--file', file, '--remote',
      '--content-type', 'text/html', '--cache-control', 'max-age=300', '--content-language', 'en']);
    expect(put.code, put.stderr + put.stdout).toBe(0);
    const got = await testS3Client(server.running.s3Url!).send(new GetObjectCommand({ Bucket: 'wr-demo', Key: 'site/index.html' }));
    expect(await got.Body!.transformToString()).toBe(body);
    expect([got.ContentType, got.CacheControl, got.ContentLanguage]).toEqual(['text/html', 'max-age=300', 'en']);
    const info = await run(['r2', 'bucket', 'info', 'wr-demo', '--json']);
    expect(info.code, info.stderr).toBe(0);
    expect(JSON.parse(info.stdout.slice(info.stdout.indexOf('{')))).toMatchObject({
      name: 'wr-demo', default_storage_class: 'Standard', object_count: '1', bucket_size: '145 kB',
    });
    const out = path.join(work, 'back.html');
    const fetched = await run(['r2', 'object', 'get', 'wr-demo/site/index.html', '--file', out, '--remote']);
    expect(fetched.code, fetched.stderr).toBe(0);
    expect(fs.readFileSync(out, 'utf8')).toBe(body);

    const refused = await run(['r2', 'bucket', 'delete', 'wr-demo']);
    expect(refused.code).not.toBe(0);
    expect(refused.stdout + refused.stderr).toContain('not empty');
    const deleted = await run(['r2', 'object', 'delete', 'wr-demo/site/index.html', '--remote']);
    expect(deleted.code, deleted.stderr).toBe(0);
    const missing = await run(['r2', 'object', 'get', 'wr-demo/site/index.html', '--pipe', '--remote']);
    expect(missing.code).not.toBe(0);
    const gone = await run(['r2', 'bucket', 'delete', 'wr-demo']);
    expect(gone.code, gone.stderr).toBe(0);
    expect((await run(['r2', 'bucket', 'list'])).stdout).not.toContain('wr-demo');
  }, 300_000);

  it('sets and lists CORS and lifecycle rules', async () => {
    expect((await run(['r2', 'bucket', 'create', 'wr-config'])).code).toBe(0);
    const corsFile = path.join(work, 'cors.json');
    fs.writeFileSync(corsFile, JSON.stringify({ rules: [{ allowed: { origins: ['https://app.example.com'], methods: ['GET', 'HEAD'] }, maxAgeSeconds: 120 }] }));
    const setCors = await run(['r2', 'bucket', 'cors', 'set', 'wr-config', '--file', corsFile, '--force']);
    expect(setCors.code, setCors.stderr + setCors.stdout).toBe(0);
    const cors = await run(['r2', 'bucket', 'cors', 'list', 'wr-config']);
    expect(cors.stdout).toMatch(/allowed_origins:\s+https:\/\/app\.example\.com/);
    expect(cors.stdout).toMatch(/max_age_seconds:\s+120/);
    const add = await run(['r2', 'bucket', 'lifecycle', 'add', 'wr-config', 'expire-logs', 'logs/', '--expire-days', '30', '--force']);
    expect(add.code, add.stderr + add.stdout).toBe(0);
    const rules = await run(['r2', 'bucket', 'lifecycle', 'list', 'wr-config']);
    expect(rules.stdout).toMatch(/name:\s+Default Multipart Abort Rule/);
    expect(rules.stdout).toMatch(/name:\s+expire-logs[\s\S]*prefix:\s+logs\/[\s\S]*action:\s+Expire objects after 30 days/);
  }, 300_000);

  it("a second user's token manages its own account's buckets and reaches nothing of the admin's", async () => {
    await run(['r2', 'bucket', 'create', 'wr-admin']);
    const second = await addUser(server, 'wrangler-second@example.com');
    const token = await second.sdk().user.tokens.create({
      name: 'wrangler r2', policies: [{ effect: 'allow', permission_groups: [{ id: R2_STORAGE_WRITE }], resources: { [`com.cloudflare.api.account.${second.accountId}`]: '*' } }],
    });
    const auth = { token: token.value! };
    const own = await run(['r2', 'bucket', 'create', 'wr-admin'], auth, second.accountId);
    expect(own.code, own.stderr + own.stdout).toBe(0);
    expect((await run(['r2', 'bucket', 'list'], auth, second.accountId)).stdout).toMatch(/name:\s+wr-admin/);
    const foreign = await run(['r2', 'bucket', 'list'], auth, account);
    expect(foreign.code).not.toBe(0);
    const foreignGet = await run(['r2', 'object', 'get', 'wr-admin/anything', '--pipe', '--remote'], auth, account);
    expect(foreignGet.code).not.toBe(0);
  }, 300_000);
});
