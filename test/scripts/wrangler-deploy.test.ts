/**
 * wrangler 4 against Stratus: deploy (first upload, then a new version and deployment), versions and
 * deployments lists, secret put/list/delete, delete — a module Worker with a bucket binding, vars, a text, a
 * data and a wasm module. After each step the control plane's catalog (what the edge runtime reads) is checked:
 * resolve() by Host and path, and bundle() byte for byte with secrets decrypted.
 */
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CreateBucketCommand } from '@aws-sdk/client-s3';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { accountId as adminAccount, createZone } from '../helpers/api.js';
import { testS3Client } from '../helpers/s3-sdk.js';
import { openDatabase } from '../../src/db/database.js';
import { addUser } from '../helpers/users.js';
import { expectSuccess, makeProject, wrangler, type WranglerAuth } from './wrangler.js';

const ZONE = 'edge-wrangler.test';
/** wrangler's resource provisioning first asks GET /accounts/:id/r2/buckets/:name whether each bound bucket exists. */
const DEPLOY = ['deploy'];
const WASM = new Uint8Array([0, 0x61, 0x73, 0x6d, 1, 0, 0, 0]);
const DATA = new Uint8Array([0, 1, 2, 250, 251, 252, 253, 254, 255]);

let server: TestServer;
let account: string;
let auth: WranglerAuth;
/** A token with what wrangler's docs ask for: Workers Scripts Write on the account, Workers Routes Write and Zone Read on all zones. */
let tokenAuth: WranglerAuth;
let project: string;
const catalog = () => server.running.edgeCatalog;

const files = (body: string): Record<string, string | Uint8Array> => ({
  'wrangler.toml': [
    'name = "hello"',
    'main = "src/index.js"',
    'compatibility_date = "2024-09-23"',
    'compatibility_flags = ["nodejs_compat"]',
    'no_bundle = true',
    'find_additional_modules = true',
    'workers_dev = true',
    'rules = [ { type = "ESModule", globs = ["**/*.mjs"], fallthrough = true } ]',
    `routes = [ { pattern = "www.${ZONE}/api/*", zone_name = "${ZONE}" } ]`,
    '',
    '[vars]',
    'GREETING = "hello"',
    'CONFIG = { a = 1, b = [true, "x"] }',
    '',
    '[[r2_buckets]]',
    'binding = "BUCKET"',
    'bucket_name = "wr-bucket"',
    '',
  ].join('\n'),
  'src/index.js': `import text from './greeting.txt';\nimport wasm from './add.wasm';\nimport data from './blob.bin';\nimport { helper } from './lib/helper.mjs';\nexport default { async fetch(req, env) { return new Response(${JSON.stringify(body)} + text + helper() + wasm + data.byteLength); } };\n`,
  'src/lib/helper.mjs': 'export function helper() { return "!"; }\n',
  'src/greeting.txt': 'héllo from a text module\n',
  'src/add.wasm': WASM,
  'src/blob.bin': DATA,
});

async function bundleAt(host: string, p: string) {
  const target = await catalog().resolve(host, p);
  expect(target.kind).toBe('script');
  if (target.kind !== 'script') throw new Error('unreachable');
  const bundle = await catalog().bundle(target.versionId);
  expect(bundle).not.toBeNull();
  return { target, bundle: bundle! };
}

function expectModulesFromDisk(bundle: { modules: { name: string; type: string; content: Uint8Array }[]; mainModule: string }): void {
  const byName = new Map(bundle.modules.map((m) => [m.name, m]));
  expect(bundle.mainModule).toBe('index.js');
  expect([...byName.keys()].sort()).toEqual(['add.wasm', 'blob.bin', 'greeting.txt', 'index.js', 'lib/helper.mjs']);
  const disk = (rel: string) => new Uint8Array(fs.readFileSync(path.join(project, 'src', rel)));
  expect(byName.get('index.js')).toMatchObject({ type: 'esm' });
  expect(Buffer.from(byName.get('index.js')!.content).equals(Buffer.from(disk('index.js')))).toBe(true);
  expect(byName.get('lib/helper.mjs')).toMatchObject({ type: 'esm', content: disk('lib/helper.mjs') });
  expect(byName.get('greeting.txt')).toMatchObject({ type: 'text', content: disk('greeting.txt') });
  expect(byName.get('add.wasm')).toMatchObject({ type: 'wasm', content: WASM });
  expect(byName.get('blob.bin')).toMatchObject({ type: 'data', content: DATA });
}

beforeAll(async () => {
  server = await startTestServer();
  account = await adminAccount(server);
  auth = { email: server.email, key: server.key };
  const zoneId = await createZone(server, ZONE);
  const sdk = server.sdk();
  for (const [name, content, proxied] of [[`origin.${ZONE}`, '198.51.100.7', true], [`dnsonly.${ZONE}`, '198.51.100.8', false], [`www.${ZONE}`, '198.51.100.9', true]] as const) {
    await sdk.dns.records.create({ zone_id: zoneId, type: 'A', name, content, proxied, ttl: 1 });
  }
  const s3 = testS3Client(server.running.s3Url!);
  await s3.send(new CreateBucketCommand({ Bucket: 'wr-bucket' }));
  s3.destroy();
  await sdk.workers.subdomains.update({ account_id: account, subdomain: 'acme' });
  project = makeProject(files('v1:'));
  const created = await sdk.user.tokens.create({
    name: 'wrangler',
    policies: [
      { effect: 'allow', permission_groups: [{ id: 'e086da7e2179491d91ee5f35b3ca210a' }], resources: { [`com.cloudflare.api.account.${account}`]: '*' } },
      { effect: 'allow', permission_groups: [{ id: '28f4b596e7d643029c524985477ae49a' }, { id: 'c8fed203ed3043cba015a93ad1616f1f' }], resources: { 'com.cloudflare.api.account.zone.*': '*' } },
    ],
  } as never) as { value: string };
  tokenAuth = { token: created.value };
}, 60_000);

afterAll(async () => {
  await server?.stop();
  if (project) fs.rmSync(project, { recursive: true, force: true });
});

describe('wrangler against Stratus', () => {
  let firstVersion: string;

  it('whoami names the user and the account', async () => {
    const run = expectSuccess(await wrangler(server, account, auth, project, ['whoami']));
    expect(run.stdout).toContain(server.email);
    expect(run.stdout).toContain(account);
  }, 60_000);

  it('deploys a new module Worker with routes, workers subdomain, vars and a bucket binding', async () => {
    const run = expectSuccess(await wrangler(server, account, auth, project, DEPLOY));
    expect(run.stdout).toContain(`hello.acme.workers.dev`); // wrangler prints its own workers.dev name
    expect(run.stdout).toContain(`www.${ZONE}/api/*`);
    const { target, bundle } = await bundleAt(`www.${ZONE}`, '/api/items?x=1');
    expect(target).toMatchObject({ kind: 'script', accountId: account, scriptName: 'hello' });
    expect(run.stdout).toContain(`Current Version ID: ${target.versionId}`);
    firstVersion = target.versionId;
    expectModulesFromDisk(bundle);
    expect(bundle.compatibilityDate).toBe('2024-09-23');
    expect(bundle.compatibilityFlags).toEqual(['nodejs_compat']);
    expect(bundle.bindings).toEqual(expect.arrayContaining([
      { type: 'plain_text', name: 'GREETING', text: 'hello' },
      { type: 'json', name: 'CONFIG', json: { a: 1, b: [true, 'x'] } },
      { type: 'r2_bucket', name: 'BUCKET', bucketName: 'wr-bucket' },
    ]));
    expect(bundle.bindings).toHaveLength(3);
    // the workers subdomain serves it; the rest of the zone goes to origins or is refused
    expect(await catalog().resolve('hello.acme.workers.localhost', '/')).toMatchObject({ kind: 'script', scriptName: 'hello', versionId: firstVersion });
    expect(await catalog().resolve(`www.${ZONE}`, '/other')).toEqual({ kind: 'origin', zoneId: expect.any(String), hostname: `www.${ZONE}`, origin: '198.51.100.9' });
    expect(await catalog().resolve(`origin.${ZONE}`, '/api/x')).toMatchObject({ kind: 'origin', origin: '198.51.100.7' });
    expect(await catalog().resolve(`dnsonly.${ZONE}`, '/')).toMatchObject({ kind: 'unknown', status: 530 });
    expect(await catalog().resolve('elsewhere.example', '/')).toMatchObject({ kind: 'unknown', status: 530 });
    expect(await catalog().resolve('198.51.100.9', '/')).toMatchObject({ kind: 'unknown', status: 403 });
    expect(await catalog().resolve('nope.acme.workers.localhost', '/')).toMatchObject({ kind: 'unknown', status: 404 });
  }, 120_000);

  it('redeploys with an API token: a new version and deployment, served at once', async () => {
    fs.writeFileSync(path.join(project, 'src/index.js'), String(files('v2:')['src/index.js']));
    expectSuccess(await wrangler(server, account, tokenAuth, project, DEPLOY));
    const { target, bundle } = await bundleAt(`www.${ZONE}`, '/api/items');
    expect(target.versionId).not.toBe(firstVersion);
    expectModulesFromDisk(bundle);
    expect(new TextDecoder().decode(bundle.modules.find((m) => m.name === 'index.js')!.content)).toContain('v2:');
    expect((await catalog().bundle(firstVersion))!.modules.find((m) => m.name === 'index.js')!.content).not.toEqual(bundle.modules.find((m) => m.name === 'index.js')!.content);

    const versions = JSON.parse(expectSuccess(await wrangler(server, account, tokenAuth, project, ['versions', 'list', '--json'])).stdout) as { id: string; metadata: { source: string; author_email: string } }[];
    expect(versions.map((v) => v.id)).toEqual([firstVersion, target.versionId]);
    expect(versions[1]!.metadata).toMatchObject({ source: 'wrangler', author_email: server.email });
    const deployments = JSON.parse(expectSuccess(await wrangler(server, account, auth, project, ['deployments', 'list', '--json'])).stdout) as { versions: { version_id: string; percentage: number }[] }[];
    expect(deployments.map((d) => d.versions)).toEqual([[{ version_id: firstVersion, percentage: 100 }], [{ version_id: target.versionId, percentage: 100 }]]);
    const pretty = expectSuccess(await wrangler(server, account, auth, project, ['deployments', 'list']));
    expect(pretty.stdout).toContain(target.versionId);
  }, 180_000);

  it('puts, lists and deletes a secret; it is sealed at rest, kept across deploys and decrypted in the bundle', async () => {
    expectSuccess(await wrangler(server, account, auth, project, ['secret', 'put', 'API_KEY'], 'sup3r-s3cret-value\n'));
    let { bundle } = await bundleAt(`www.${ZONE}`, '/api/x');
    expect(bundle.bindings).toContainEqual({ type: 'secret_text', name: 'API_KEY', text: 'sup3r-s3cret-value' });
    expectModulesFromDisk(bundle);
    const list = JSON.parse(expectSuccess(await wrangler(server, account, auth, project, ['secret', 'list'])).stdout);
    expect(list).toEqual([{ name: 'API_KEY', type: 'secret_text' }]);

    const database = await openDatabase({ dataDir: server.dataDir });
    try {
      const rows = await database.db.selectFrom('workers_versions').select('bindings').execute();
      expect(rows.some((r) => r.bindings.includes('API_KEY'))).toBe(true);
      expect(rows.every((r) => !r.bindings.includes('sup3r-s3cret-value'))).toBe(true);
    } finally {
      await database.close();
    }

    expectSuccess(await wrangler(server, account, auth, project, DEPLOY));
    ({ bundle } = await bundleAt(`www.${ZONE}`, '/api/x'));
    expect(bundle.bindings).toContainEqual({ type: 'secret_text', name: 'API_KEY', text: 'sup3r-s3cret-value' });

    expectSuccess(await wrangler(server, account, auth, project, ['secret', 'delete', 'API_KEY']));
    ({ bundle } = await bundleAt(`www.${ZONE}`, '/api/x'));
    expect(bundle.bindings.map((b) => b.name).sort()).toEqual(['BUCKET', 'CONFIG', 'GREETING']);
    expect(JSON.parse(expectSuccess(await wrangler(server, account, auth, project, ['secret', 'list'])).stdout)).toEqual([]);
  }, 180_000);

  it("another user's wrangler is refused on the first account and finds no such Worker in its own", async () => {
    const other = await addUser(server, 'other-wrangler@example.com');
    const otherAuth = { email: other.email, key: other.key };
    for (const args of [['deployments', 'list', '--json'], ['secret', 'list'], ['delete', '--force']]) {
      const foreign = await wrangler(server, account, otherAuth, project, args);
      expect(foreign.code, args.join(' ')).not.toBe(0);
      expect(foreign.stdout + foreign.stderr, args.join(' ')).toContain('[code: 7003]');
    }
    const own = await wrangler(server, other.accountId, otherAuth, project, ['deployments', 'list', '--json']);
    expect(own.code).not.toBe(0);
    expect(own.stdout + own.stderr).toContain('[code: 10007]');
    expect(await catalog().resolve(`www.${ZONE}`, '/api/x')).toMatchObject({ kind: 'script', accountId: account, scriptName: 'hello' });
  }, 120_000);

  it('deletes the Worker: its routes and subdomain stop serving it', async () => {
    expectSuccess(await wrangler(server, account, auth, project, ['delete']));
    expect(await catalog().resolve(`www.${ZONE}`, '/api/x')).toMatchObject({ kind: 'origin', origin: '198.51.100.9' });
    expect(await catalog().resolve('hello.acme.workers.localhost', '/')).toMatchObject({ kind: 'unknown', status: 404 });
    expect(await catalog().bundle(firstVersion)).toBeNull();
    expect(await server.sdk().workers.routes.list({ zone_id: (await server.sdk().zones.list({ name: ZONE })).result[0]!.id }).then((p) => p.result)).toEqual([]);
    const gone = await wrangler(server, account, auth, project, ['versions', 'list', '--json']);
    expect(gone.code).not.toBe(0);
    expect(gone.stdout + gone.stderr).toContain('10007');
  }, 120_000);
});
