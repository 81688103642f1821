/**
 * The Workers routes with the official SDK and raw requests: uploads (the SDK's bracketed metadata, JSON and
 * source-map modules), every refused binding and body, zone routes CRUD and precedence as resolve() sees it,
 * the workers subdomain, API tokens with the Workers permission groups, and a second user (key and token)
 * who is refused everywhere and never learns of the first user's scripts.
 */
import Cloudflare, { toFile } from 'cloudflare';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CreateBucketCommand } from '@aws-sdk/client-s3';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { accountId, api, createZone } from '../helpers/api.js';
import { addUser } from '../helpers/users.js';
import { testS3Client } from '../helpers/s3-sdk.js';

const ZONE = 'workers-api.test';
const SCRIPTS_READ = '1a71c399035b4950a1bd1466bbe4f420';
const SCRIPTS_WRITE = 'e086da7e2179491d91ee5f35b3ca210a';
const ROUTES_READ = '2072033d694d415a936eaeb94e6405b8';
const ROUTES_WRITE = '28f4b596e7d643029c524985477ae49a';

let server: TestServer;
let sdk: Cloudflare;
let account: string;
let zoneId: string;
const catalog = () => server.running.edgeCatalog;

/** A raw multipart upload with a JSON metadata part; returns the parsed answer. */
async function upload(name: string, metadata: Record<string, unknown>, modules: [string, string, string][], auth: Record<string, string> = {}, acct = account) {
  const form = new FormData();
  form.set('metadata', JSON.stringify(metadata));
  for (const [file, type, content] of modules) form.set(file, new File([content], file, { type }));
  const headers = Object.keys(auth).length > 0 ? auth : { 'x-auth-email': server.email, 'x-auth-key': server.key };
  const res = await fetch(`${server.apiBase}/accounts/${acct}/workers/scripts/${name}`, { method: 'PUT', headers, body: form });
  return { status: res.status, body: await res.json() as { success: boolean; result: any; errors: { code: number; message: string }[] } };
}
const ESM = 'application/javascript+module';
const okModule: [string, string, string] = ['index.js', ESM, 'export default { fetch() { return new Response("ok"); } };'];

beforeAll(async () => {
  server = await startTestServer();
  sdk = server.sdk();
  account = await accountId(server);
  zoneId = await createZone(server, ZONE);
  await sdk.dns.records.create({ zone_id: zoneId, type: 'A', name: ZONE, content: '198.51.100.20', proxied: true, ttl: 1 });
  await sdk.dns.records.create({ zone_id: zoneId, type: 'CNAME', name: `*.${ZONE}`, content: 'origin.example.net', proxied: true, ttl: 1 });
  const s3 = testS3Client(server.running.s3Url!);
  await s3.send(new CreateBucketCommand({ Bucket: 'api-bucket' }));
  s3.destroy();
}, 60_000);

afterAll(async () => { await server?.stop(); });

describe('uploads', () => {
  it('the SDK uploads modules with bracketed metadata; JSON and source maps are kept byte for byte', async () => {
    const json = '{"greeting": "héllo", "n": [1, 2]}';
    const map = '{"version":3,"sources":["main.ts"],"mappings":"AAAA"}';
    const script = await sdk.workers.scripts.update('sdk-script', {
      account_id: account,
      metadata: { main_module: 'main.js', compatibility_date: '2024-06-01', compatibility_flags: ['nodejs_compat'], bindings: [{ type: 'plain_text', name: 'MODE', text: 'sdk' }, { type: 'r2_bucket', name: 'B', bucket_name: 'api-bucket' }] },
      files: [
        await toFile(Buffer.from('import d from "./data.json"; export default { fetch() { return Response.json(d); } };'), 'main.js', { type: ESM }),
        await toFile(Buffer.from(json), 'data.json', { type: 'application/json' }),
        await toFile(Buffer.from(map), 'main.js.map', { type: 'application/source-map' }),
      ],
    });
    expect(script).toMatchObject({ id: 'sdk-script', has_modules: true, compatibility_date: '2024-06-01', compatibility_flags: ['nodejs_compat'] });
    const listed = [];
    for await (const s of sdk.workers.scripts.list({ account_id: account })) listed.push(s.id);
    expect(listed).toContain('sdk-script');
    const deployments = (await api(server, 'GET', `/accounts/${account}/workers/scripts/sdk-script/deployments`)).body.result.deployments;
    const bundle = (await catalog().bundle(deployments[0].versions[0].version_id))!;
    expect(bundle.mainModule).toBe('main.js');
    expect(bundle.modules.map((m) => [m.name, m.type, Buffer.from(m.content).toString()])).toEqual([
      ['main.js', 'esm', 'import d from "./data.json"; export default { fetch() { return Response.json(d); } };'],
      ['data.json', 'json', json],
      ['main.js.map', 'sourcemap', map],
    ]);
    expect(bundle.bindings).toEqual([{ type: 'plain_text', name: 'MODE', text: 'sdk' }, { type: 'r2_bucket', name: 'B', bucketName: 'api-bucket' }]);
    const content = await fetch(`${server.apiBase}/accounts/${account}/workers/scripts/sdk-script/content/v2`, { headers: { 'x-auth-email': server.email, 'x-auth-key': server.key } });
    expect(content.headers.get('cf-entrypoint')).toBe('main.js');
    const form = await content.formData();
    expect(await (form.get('data.json') as File).text()).toBe(json);
    expect((form.get('data.json') as File).type).toBe('application/json');
  });

  it("the SDK edits a script's settings: bindings and flags make a new deployed version, logpush is kept", async () => {
    const edited = await sdk.workers.scripts.scriptAndVersionSettings.edit('sdk-script', {
      account_id: account,
      settings: { bindings: [{ type: 'plain_text', name: 'MODE', text: 'edited' }, { type: 'inherit', name: 'B' }], compatibility_flags: ['nodejs_compat', 'url_standard'], logpush: true },
    });
    expect(edited).toMatchObject({ logpush: true, compatibility_date: '2024-06-01', compatibility_flags: ['nodejs_compat', 'url_standard'] });
    expect(edited.bindings).toEqual([{ name: 'MODE', type: 'plain_text', text: 'edited' }, { name: 'B', type: 'r2_bucket', bucket_name: 'api-bucket' }]);
    const got = await sdk.workers.scripts.scriptAndVersionSettings.get('sdk-script', { account_id: account });
    expect(got.bindings).toEqual(edited.bindings);
    const deployments = (await api(server, 'GET', `/accounts/${account}/workers/scripts/sdk-script/deployments`)).body.result.deployments;
    expect(deployments[0].annotations).toEqual({ 'workers/triggered_by': 'version_settings' });
    const bundle = (await catalog().bundle(deployments[0].versions[0].version_id))!;
    expect(bundle.modules.map((m) => m.name)).toEqual(['main.js', 'data.json', 'main.js.map']);
    expect(bundle.compatibilityFlags).toEqual(['nodejs_compat', 'url_standard']);
    const refused = await sdk.workers.scripts.scriptAndVersionSettings.edit('sdk-script', { account_id: account, settings: { bindings: [{ type: 'queue', name: 'Q' } as never] } }).catch((e: { status: number; errors: { code: number; message: string }[] }) => e);
    expect(refused).toMatchObject({ status: 400, errors: [{ code: 10021, message: expect.stringContaining('binding Q of type queue is not supported') }] });
  });

  it.each([
    ['an unsupported binding type, named', { bindings: [{ type: 'kv_namespace', name: 'CACHE', namespace_id: 'x' }] }, 10021, 'binding CACHE of type kv_namespace is not supported'],
    ['a bucket that does not exist', { bindings: [{ type: 'r2_bucket', name: 'B', bucket_name: 'no-such-bucket' }] }, 10021, 'references bucket "no-such-bucket", which does not exist'],
    ['a bucket jurisdiction', { bindings: [{ type: 'r2_bucket', name: 'B', bucket_name: 'api-bucket', jurisdiction: 'eu' }] }, 10021, 'jurisdiction "eu"'],
    ['a secret without text', { bindings: [{ type: 'secret_text', name: 'S' }] }, 10021, 'binding S of type secret_text must have a string "text"'],
    ['two bindings of one name', { bindings: [{ type: 'plain_text', name: 'X', text: 'a' }, { type: 'json', name: 'X', json: 1 }] }, 10021, 'binding X is defined more than once'],
    ['inherit without a previous version', { bindings: [{ type: 'inherit', name: 'X' }] }, 10021, 'the latest version has no binding named X'],
    ['a compatibility date in the future', { compatibility_date: '2999-01-01' }, 10021, 'future'],
    ['a missing main module', { main_module: 'nope.js' }, 10021, 'No such module "nope.js"'],
  ])('refuses %s', async (_what, extra, code, message) => {
    const res = await upload('refused', { main_module: 'index.js', compatibility_date: '2024-06-01', ...extra }, [okModule]);
    expect(res.status).toBe(400);
    expect(res.body.errors[0]!.code).toBe(code);
    expect(res.body.errors[0]!.message).toContain(message);
  });

  it('refuses a Service Worker body_part that is an ES module, unknown module types, bad names, and non-multipart bodies', async () => {
    const sw = await upload('refused', { body_part: 'index.js' }, [okModule]);
    expect(sw.body.errors[0]).toMatchObject({ code: 10021, message: expect.stringContaining('must have content type application/javascript') });
    const py = await upload('refused', { main_module: 'index.js' }, [okModule, ['x.py', 'text/x-python', 'print(1)']]);
    expect(py.body.errors[0]!.message).toContain('Python modules are not supported');
    const name = await upload('Bad.Name', { main_module: 'index.js' }, [okModule]);
    expect(name.body.errors[0]!.code).toBe(10016);
    const json = await api(server, 'PUT', `/accounts/${account}/workers/scripts/refused`, { main_module: 'index.js' });
    expect(json.status).toBe(400);
    expect(json.body.errors[0]!.code).toBe(10021);
    expect((await api(server, 'GET', `/accounts/${account}/workers/scripts/refused/settings`)).body.errors[0]!.code).toBe(10007);
  });
});

describe('versions, deployments and secrets with the SDK', () => {
  it('uploads a version, splits traffic, changes a secret and deletes a script', async () => {
    const up = await upload('split', { main_module: 'index.js', compatibility_date: '2024-06-01' }, [okModule]);
    expect(up.body.success).toBe(true);
    const first = up.body.result.deployment_id as string;
    const form = new FormData();
    form.set('metadata', JSON.stringify({ main_module: 'index.js', compatibility_date: '2024-06-01', annotations: { 'workers/message': 'second' } }));
    form.set('index.js', new File(['export default { fetch() { return new Response("2"); } };'], 'index.js', { type: ESM }));
    const res = await fetch(`${server.apiBase}/accounts/${account}/workers/scripts/split/versions`, { method: 'POST', headers: { 'x-auth-email': server.email, 'x-auth-key': server.key }, body: form });
    const second = ((await res.json()) as { result: { id: string; number: number; annotations: Record<string, string> } }).result;
    expect(second).toMatchObject({ number: 2, annotations: { 'workers/message': 'second', 'workers/triggered_by': 'upload' } });
    const versions = [];
    for await (const v of sdk.workers.scripts.versions.list('split', { account_id: account })) versions.push(v.id);
    expect(versions).toEqual([second.id, first]);
    expect((await sdk.workers.scripts.versions.get(first, { account_id: account, script_name: 'split' })).resources.script_runtime?.compatibility_date).toBe('2024-06-01');

    const deployment = await sdk.workers.scripts.deployments.create('split', { account_id: account, strategy: 'percentage', versions: [{ version_id: first, percentage: 25 }, { version_id: second.id, percentage: 75 }] });
    expect(deployment.versions).toEqual([{ version_id: first, percentage: 25 }, { version_id: second.id, percentage: 75 }]);
    const bad = await api(server, 'POST', `/accounts/${account}/workers/scripts/split/deployments`, { strategy: 'percentage', versions: [{ version_id: first, percentage: 50 }] });
    expect(bad.body.errors[0]!.code).toBe(10100);
    // a secret change needs the latest version deployed alone
    const refused = await api(server, 'PUT', `/accounts/${account}/workers/scripts/split/secrets`, { name: 'S', text: 'v', type: 'secret_text' });
    expect(refused.body.errors[0]!.code).toBe(10215);
    await sdk.workers.scripts.deployments.create('split', { account_id: account, strategy: 'percentage', versions: [{ version_id: second.id, percentage: 100 }] });
    expect(await sdk.workers.scripts.secrets.update('split', { account_id: account, name: 'S', text: 'v', type: 'secret_text' })).toEqual({ name: 'S', type: 'secret_text' });
    const secrets = [];
    for await (const sec of sdk.workers.scripts.secrets.list('split', { account_id: account })) secrets.push(sec);
    expect(secrets).toEqual([{ name: 'S', type: 'secret_text' }]);
    const missing = await api(server, 'DELETE', `/accounts/${account}/workers/scripts/split/secrets/NOPE`);
    expect([missing.status, missing.body.errors[0]!.code]).toEqual([404, 10056]);
    await sdk.workers.scripts.delete('split', { account_id: account });
    expect((await api(server, 'GET', `/accounts/${account}/workers/scripts/split/versions`)).body.errors[0]!.code).toBe(10007);
  });
});

describe('zone routes', () => {
  it('CRUD with the SDK; patterns validated against the zone; precedence and no-script routes as resolve() sees them', async () => {
    const all = await sdk.workers.routes.create({ zone_id: zoneId, pattern: `*${ZONE}/*`, script: 'sdk-script' });
    expect(all).toEqual({ id: expect.stringMatching(/^[0-9a-f]{32}$/), pattern: `*${ZONE}/*`, script: 'sdk-script' });
    const bypass = await sdk.workers.routes.create({ zone_id: zoneId, pattern: `${ZONE}/static/*` });
    expect(bypass).not.toHaveProperty('script');
    expect((await sdk.workers.routes.get(bypass.id, { zone_id: zoneId })).pattern).toBe(`${ZONE}/static/*`);
    expect((await sdk.workers.routes.list({ zone_id: zoneId })).result.map((r) => r.pattern).sort()).toEqual([`*${ZONE}/*`, `${ZONE}/static/*`]);

    // what a request the script passes on reaches: the hostname's own proxied record, as if no route matched
    expect(await catalog().resolve(ZONE, '/x')).toMatchObject({ kind: 'script', scriptName: 'sdk-script', zoneId,
      passThrough: { kind: 'origin', zoneId, hostname: ZONE, origin: '198.51.100.20' } });
    expect(await catalog().resolve(`deep.www.${ZONE}`, '/')).toMatchObject({ kind: 'script', scriptName: 'sdk-script' });
    expect(await catalog().resolve(ZONE, '/static/app.css')).toEqual({ kind: 'origin', zoneId, hostname: ZONE, origin: '198.51.100.20' });
    const moved = await sdk.workers.routes.update(bypass.id, { zone_id: zoneId, pattern: `shop.${ZONE}/*` });
    expect(moved.pattern).toBe(`shop.${ZONE}/*`);
    expect(await catalog().resolve(ZONE, '/static/app.css')).toMatchObject({ kind: 'script' });
    expect(await catalog().resolve(`shop.${ZONE}`, '/cart')).toEqual({ kind: 'origin', zoneId, hostname: `shop.${ZONE}`, origin: 'origin.example.net' });

    const failures = [
      [{ pattern: `${ZONE}/*.jpg`, script: 'sdk-script' }, 10022],
      [{ pattern: 'other.test/*', script: 'sdk-script' }, 10022],
      [{ pattern: `${ZONE}:8080/*` }, 10022],
      [{ pattern: `*${ZONE}/*` }, 10020],
      [{ pattern: `a.${ZONE}/*`, script: 'no-such-script' }, 10007],
    ] as const;
    for (const [body, code] of failures) {
      const res = await api(server, 'POST', `/zones/${zoneId}/workers/routes`, body);
      expect([res.status, res.body.errors[0]?.code]).toEqual([code === 10007 ? 404 : 400, code]);
    }
    // a record changed on this node counts at once (the remembered origin is forgotten)
    const apex = (await sdk.dns.records.list({ zone_id: zoneId, name: { exact: ZONE }, type: 'A' })).result[0]!;
    await sdk.dns.records.edit(apex.id, { zone_id: zoneId, type: 'A', name: ZONE, content: '198.51.100.21', proxied: true, ttl: 1 });
    expect(await catalog().resolve(`shop.${ZONE}`, '/cart')).toMatchObject({ kind: 'origin', origin: 'origin.example.net' });
    await sdk.workers.routes.update(moved.id, { zone_id: zoneId, pattern: `${ZONE}/static/*` });
    expect(await catalog().resolve(ZONE, '/static/app.css')).toMatchObject({ kind: 'origin', origin: '198.51.100.21' });
    await sdk.dns.records.edit(apex.id, { zone_id: zoneId, type: 'A', name: ZONE, content: '198.51.100.21', proxied: false, ttl: 300 });
    expect(await catalog().resolve(ZONE, '/static/app.css')).toMatchObject({ kind: 'unknown', status: 530 });
    await sdk.dns.records.edit(apex.id, { zone_id: zoneId, type: 'A', name: ZONE, content: '198.51.100.20', proxied: true, ttl: 1 });
    await sdk.workers.routes.delete(moved.id, { zone_id: zoneId });
    expect((await api(server, 'GET', `/zones/${zoneId}/workers/routes/${moved.id}`)).body.errors[0]!.code).toBe(10029);
  });
});

describe('workers subdomain', () => {
  it('is registered per account and serves scripts whose subdomain is enabled', async () => {
    expect((await api(server, 'GET', `/accounts/${account}/workers/subdomain`)).body.errors[0]).toMatchObject({ code: 10007 });
    expect((await api(server, 'PUT', `/accounts/${account}/workers/subdomain`, { subdomain: '-bad' })).body.errors[0]!.code).toBe(10033);
    expect(await sdk.workers.subdomains.update({ account_id: account, subdomain: 'team' })).toEqual({ subdomain: 'team' });
    expect(await sdk.workers.subdomains.get({ account_id: account })).toEqual({ subdomain: 'team' });
    expect(await catalog().resolve('sdk-script.team.workers.localhost', '/')).toMatchObject({ kind: 'unknown', status: 404 });
    expect(await sdk.workers.scripts.subdomain.create('sdk-script', { account_id: account, enabled: true })).toEqual({ enabled: true, previews_enabled: true });
    expect(await catalog().resolve('sdk-script.team.workers.localhost', '/')).toMatchObject({ kind: 'script', scriptName: 'sdk-script', accountId: account });
    expect(await catalog().resolve('sdk-script.other.workers.localhost', '/')).toMatchObject({ kind: 'unknown', status: 404 });
    await sdk.workers.scripts.subdomain.delete('sdk-script', { account_id: account });
    expect(await catalog().resolve('sdk-script.team.workers.localhost', '/')).toMatchObject({ kind: 'unknown', status: 404 });
  });
});

describe('API tokens', () => {
  const bearer = (value: string) => ({ authorization: `Bearer ${value}` });
  const raw = (method: string, path: string, token: string, body?: unknown) => api(server, method, path, body, { 'x-auth-email': undefined, 'x-auth-key': undefined, ...bearer(token) });
  const token = async (groups: string[], resources: Record<string, string>) =>
    (await sdk.user.tokens.create({ name: 'workers', policies: [{ effect: 'allow', permission_groups: groups.map((id) => ({ id })), resources }] } as never) as { value: string }).value;

  it('Workers Scripts Read lists but cannot upload; Write uploads; routes need Workers Routes on the zone', async () => {
    const reader = await token([SCRIPTS_READ], { [`com.cloudflare.api.account.${account}`]: '*' });
    expect((await raw('GET', `/accounts/${account}/workers/scripts`, reader)).body.result.map((s: { id: string }) => s.id)).toContain('sdk-script');
    const denied = await upload('by-reader', { main_module: 'index.js' }, [okModule], bearer(reader));
    expect([denied.status, denied.body.errors[0]!.code]).toEqual([403, 9109]);
    expect((await raw('GET', `/zones/${zoneId}/workers/routes`, reader)).body.errors[0]!.code).toBe(10000);

    const writer = await token([SCRIPTS_WRITE], { [`com.cloudflare.api.account.${account}`]: '*' });
    expect((await upload('by-writer', { main_module: 'index.js' }, [okModule], bearer(writer))).body.success).toBe(true);
    const routes = await token([ROUTES_READ, ROUTES_WRITE], { [`com.cloudflare.api.account.zone.${zoneId}`]: '*' });
    const made = await raw('POST', `/zones/${zoneId}/workers/routes`, routes, { pattern: `w.${ZONE}/*`, script: 'by-writer' });
    expect(made.body.errors).toEqual([]);
    expect((await raw('GET', `/accounts/${account}/workers/scripts`, routes)).status).toBe(403);
    // PUT …/scripts/:name/routes needs Workers Routes Write on every zone of the account (wrangler falls back on 10000)
    const oneZone = (await sdk.user.tokens.create({ name: 'one zone', policies: [
      { effect: 'allow', permission_groups: [{ id: SCRIPTS_WRITE }], resources: { [`com.cloudflare.api.account.${account}`]: '*' } },
      { effect: 'allow', permission_groups: [{ id: ROUTES_WRITE }], resources: { [`com.cloudflare.api.account.zone.${zoneId}`]: '*' } },
    ] } as never) as { value: string }).value;
    await createZone(server, `second-${ZONE}`);
    const partial = await raw('PUT', `/accounts/${account}/workers/scripts/by-writer/routes`, oneZone, [{ pattern: `w2.${ZONE}/*` }]);
    expect([partial.status, partial.body.errors[0]!.code]).toEqual([403, 10000]);
    const allZones = await token([SCRIPTS_WRITE, ROUTES_WRITE], { [`com.cloudflare.api.account.${account}`]: '*' });
    const replaced = await raw('PUT', `/accounts/${account}/workers/scripts/by-writer/routes`, allZones, [{ pattern: `w2.${ZONE}/*` }]);
    expect(replaced.body.result.map((r: { pattern: string }) => r.pattern)).toEqual([`w2.${ZONE}/*`]);
    const readOnly = await token([ROUTES_READ], { [`com.cloudflare.api.account.zone.${zoneId}`]: '*' });
    expect((await raw('POST', `/zones/${zoneId}/workers/routes`, readOnly, { pattern: `v.${ZONE}/*` })).body.errors[0]!.code).toBe(9109);
  });
});

describe('a second user', () => {
  it('is refused on every route of the first account and never sees its scripts, with its key or its token', async () => {
    const other = await addUser(server, 'other-workers@example.com');
    const otherSdk = other.sdk();
    const otherAccount = other.accountId;
    const otherToken = (await otherSdk.user.tokens.create({
      name: 'all', policies: [{ effect: 'allow', permission_groups: [SCRIPTS_WRITE, ROUTES_WRITE].map((id) => ({ id })), resources: { [`com.cloudflare.api.account.${otherAccount}`]: '*', 'com.cloudflare.api.account.zone.*': '*' } }],
    } as never) as { value: string }).value;
    const asKey = { 'x-auth-email': other.email, 'x-auth-key': other.key };
    const asToken = { 'x-auth-email': undefined, 'x-auth-key': undefined, authorization: `Bearer ${otherToken}` };
    const A = `/accounts/${account}/workers`;
    const requests: [string, string, unknown?][] = [
      ['GET', `${A}/scripts`], ['GET', `${A}/scripts/sdk-script`], ['GET', `${A}/scripts/sdk-script/settings`],
      ['GET', `${A}/scripts/sdk-script/versions`], ['GET', `${A}/scripts/sdk-script/deployments`], ['GET', `${A}/scripts/sdk-script/secrets`],
      ['PUT', `${A}/scripts/sdk-script/secrets`, { name: 'X', text: 'y', type: 'secret_text' }], ['DELETE', `${A}/scripts/sdk-script`],
      ['GET', `${A}/services/sdk-script`], ['DELETE', `${A}/services/sdk-script`], ['POST', `${A}/scripts/sdk-script/subdomain`, { enabled: false }],
      ['PUT', `${A}/scripts/sdk-script/routes`, [{ pattern: `${ZONE}/*` }]], ['GET', `${A}/subdomain`], ['PUT', `${A}/subdomain`, { subdomain: 'stolen' }],
      ['POST', `${A}/scripts/sdk-script/deployments`, { strategy: 'percentage', versions: [] }],
      ['GET', `/zones/${zoneId}/workers/routes`], ['POST', `/zones/${zoneId}/workers/routes`, { pattern: `x.${ZONE}/*` }],
    ];
    for (const [method, path, body] of requests) {
      for (const headers of [asKey, asToken]) {
        const res = await api(server, method, path, body, headers);
        expect(res.body.success, `${method} ${path}`).toBe(false);
        expect([403, 404], `${method} ${path}`).toContain(res.status);
        expect([7003, 9109, 10000], `${method} ${path}`).toContain(res.body.errors[0]!.code);
        expect(JSON.stringify(res.body)).not.toContain('sdk-script"');
      }
    }
    const stolen = await upload('sdk-script', { main_module: 'index.js' }, [okModule], { 'x-auth-email': other.email, 'x-auth-key': other.key });
    expect([stolen.status, stolen.body.errors[0]!.code]).toEqual([404, 7003]);
    // in its own account, the first user's script does not exist
    for (const headers of [asKey, asToken]) {
      expect((await api(server, 'GET', `/accounts/${otherAccount}/workers/scripts`, undefined, headers)).body.result).toEqual([]);
      for (const path of ['scripts/sdk-script/settings', 'services/sdk-script', 'scripts/sdk-script/secrets', 'scripts/sdk-script/deployments']) {
        const res = await api(server, 'GET', `/accounts/${otherAccount}/workers/${path}`, undefined, headers);
        expect([res.status, res.body.errors[0]!.code]).toEqual([404, 10007]);
      }
    }
    // the first user's script is untouched
    expect(await catalog().resolve(ZONE, '/x')).toMatchObject({ kind: 'script', scriptName: 'sdk-script', accountId: account });
    expect((await api(server, 'GET', `/accounts/${account}/workers/scripts/sdk-script/secrets`)).body.result).toEqual([]);
  });
});
