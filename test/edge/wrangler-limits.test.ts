/**
 * Limits per request end to end, as a user deploys with wrangler: a module Worker whose wrangler.toml has
 * `[limits] cpu_ms` and `subrequests`, and a Service Worker script (no ES exports: wrangler uploads it as
 * `body_part`), served through `--edge`. The version keeps its limits (settings, version GET, the services view
 * wrangler reads); they apply per request under the node's flags (the lower wins): the call past the
 * subrequest limit throws "Too many subrequests." inside the script, a request past its CPU limit gets the
 * 1102 page (503), and the other scripts keep serving. A bad limit is a v4 error naming the field. A second
 * account's token can neither read nor change the first account's limits.
 */
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CreateBucketCommand } from '@aws-sdk/client-s3';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { accountId as adminAccountOf, api, createZone } from '../helpers/api.js';
import { testS3Client } from '../helpers/s3-sdk.js';
import { addUser } from '../helpers/users.js';
import { expectSuccess, makeProject, wrangler, type WranglerAuth } from '../scripts/wrangler.js';
import { edgeRequest } from './request.js';
import { eventually } from './harness.js';

const ZONE = 'e2e-limits.test';
const BUCKET = 'limits-bucket';
const SCRIPTS_WRITE = 'e086da7e2179491d91ee5f35b3ca210a';

const MODULE_WORKER = `export default {
  async fetch(request, env) {
    const url = new URL(request.url);
    if (url.pathname === '/spin') { for (;;) {} }
    const n = Number(url.searchParams.get('n') ?? 0);
    const out = [];
    for (let i = 0; i < n; i++) {
      try { await (await fetch(url.searchParams.get('to'))).text(); out.push('fetch ok'); } catch (e) { out.push(e.constructor.name + ': ' + e.message); }
    }
    for (let i = 0; i < Number(url.searchParams.get('puts') ?? 0); i++) {
      try { await env.BUCKET.put('m' + i, 'v'); out.push('put ok'); } catch (e) { out.push(e.message); }
    }
    return Response.json(out);
  },
};
`;

const SERVICE_WORKER = `addEventListener('fetch', (event) => { event.respondWith(handle(event.request)); });
async function handle(request) {
  const url = new URL(request.url);
  const out = [GREETING];
  for (let i = 0; i < Number(url.searchParams.get('n') ?? 0); i++) {
    try { await (await fetch(url.searchParams.get('to'))).text(); out.push('fetch ok'); } catch (e) { out.push(e.message); }
  }
  for (let i = 0; i < Number(url.searchParams.get('puts') ?? 0); i++) {
    try { await BUCKET.put('sw' + i, 'v'); out.push('put ok'); } catch (e) { out.push(e.message); }
  }
  return new Response(JSON.stringify(out), { headers: { 'content-type': 'application/json' } });
}
`;

const toml = (name: string, main: string, extra: string) => [
  `name = "${name}"`, `main = "${main}"`, 'compatibility_date = "2024-09-23"', 'no_bundle = true', 'workers_dev = false',
  `routes = [ { pattern = "${name}.${ZONE}/*", zone_name = "${ZONE}" } ]`, '', '[vars]', 'GREETING = "hello"', '',
  '[[r2_buckets]]', 'binding = "BUCKET"', `bucket_name = "${BUCKET}"`, '', extra,
].join('\n');

let server: TestServer;
let edge: string;
let account: string;
let admin: WranglerAuth;
let target: http.Server;
let to: string;
const projects: string[] = [];

async function through(host: string, path: string): Promise<{ status: number; body: string; json: any }> {
  const res = await edgeRequest(edge, host, { path });
  let json: any;
  try { json = JSON.parse(res.body); } catch { json = undefined; }
  return { status: res.status, body: res.body, json };
}
const q = (n: number, puts = 0) => `/?n=${n}&puts=${puts}&to=${encodeURIComponent(to)}`;

/** PATCH …/settings with a multipart `settings` part, as wrangler and the SDK send it. */
async function patchSettings(accountId: string, script: string, settings: unknown, headers: Record<string, string>) {
  const form = new FormData();
  form.set('settings', new Blob([JSON.stringify(settings)], { type: 'application/json' }), 'blob');
  const res = await fetch(`${server.apiBase}/accounts/${accountId}/workers/scripts/${script}/settings`, { method: 'PATCH', headers, body: form });
  return { status: res.status, body: await res.json() as any };
}

beforeAll(async () => {
  target = http.createServer((_req, res) => res.end('hi'));
  await new Promise<void>((r) => target.listen(0, '127.0.0.1', r));
  to = `http://127.0.0.1:${(target.address() as AddressInfo).port}/`;
  // The node allows 10 fetch() calls and 5 bucket operations per request; its own CPU limit is beyond the test's time.
  server = await startTestServer({ flags: {
    edge: '127.0.0.1:0', 'script-outbound': '127.0.0.1/32', 'script-subrequests': '10', 'script-bucket-subrequests': '5', 'script-cpu-ms': '900000',
  } });
  edge = server.running.edgeUrl!;
  account = await adminAccountOf(server);
  admin = { email: server.email, key: server.key };
  const zoneId = await createZone(server, ZONE);
  for (const name of ['limited', 'sw']) await server.sdk().dns.records.create({ zone_id: zoneId, type: 'A', name: `${name}.${ZONE}`, content: '127.0.0.1', proxied: true, ttl: 1 });
  const s3 = testS3Client(server.running.s3Url!);
  await s3.send(new CreateBucketCommand({ Bucket: BUCKET }));
  s3.destroy();
  projects.push(makeProject({ 'wrangler.toml': toml('limited', 'src/index.js', '[limits]\ncpu_ms = 500\nsubrequests = 3\n'), 'src/index.js': MODULE_WORKER }));
  projects.push(makeProject({ 'wrangler.toml': toml('sw', 'worker.js', ''), 'worker.js': SERVICE_WORKER }));
  for (const p of projects) expectSuccess(await wrangler(server, account, admin, p, ['deploy']));
}, 180_000);

afterAll(async () => {
  await server?.stop();
  await new Promise((r) => target?.close(r));
  for (const p of projects) fs.rmSync(p, { recursive: true, force: true });
});

describe('limits per request, deployed with wrangler', () => {
  it("keeps [limits] with the version: settings, the version's script_runtime and the services view show them", async () => {
    const sdk = server.sdk();
    const settings = await sdk.workers.scripts.scriptAndVersionSettings.get('limited', { account_id: account });
    expect(settings.limits).toEqual({ cpu_ms: 500, subrequests: 3 });
    const versions = await api(server, 'GET', `/accounts/${account}/workers/scripts/limited/versions`);
    const id = versions.body.result.items[0].id as string;
    const version = await sdk.workers.scripts.versions.get(id, { account_id: account, script_name: 'limited' });
    expect(version.resources?.script_runtime?.limits).toEqual({ cpu_ms: 500, subrequests: 3 });
    const service = await api(server, 'GET', `/accounts/${account}/workers/services/limited`);
    expect(service.body.result.default_environment.script.limits).toEqual({ cpu_ms: 500, subrequests: 3 });
    expect((await sdk.workers.scripts.scriptAndVersionSettings.get('sw', { account_id: account })).limits).toEqual({});
  });

  it('applies the lower of [limits].subrequests and the node flags to fetch() calls, and to bucket operations', async () => {
    const res = await eventually(async () => {
      const r = await through(`limited.${ZONE}`, q(4, 4));
      expect(r.status).toBe(200);
      return r;
    });
    // Each count has its own limit: 3 fetch() calls (not the node's 10), 3 bucket operations (not the node's 5).
    expect(res.json).toEqual(['fetch ok', 'fetch ok', 'fetch ok', 'Error: Too many subrequests.', 'put ok', 'put ok', 'put ok', 'Too many subrequests.']);
  });

  it("serves a Service Worker script (bindings as globals) and counts its subrequests under the node's flags", async () => {
    const res = await eventually(async () => {
      const r = await through(`sw.${ZONE}`, q(11, 6));
      expect(r.status).toBe(200);
      return r;
    });
    expect(res.json).toEqual(['hello', ...Array(10).fill('fetch ok'), 'Too many subrequests.', ...Array(5).fill('put ok'), 'Too many subrequests.']);
  });

  it('answers a request past its cpu_ms with the 1102 page (503); the script and the others keep serving', async () => {
    const spin = await through(`limited.${ZONE}`, '/spin');
    expect(spin.status).toBe(503);
    expect(spin.body).toContain('1102');
    await eventually(async () => expect((await through(`sw.${ZONE}`, q(1))).json).toEqual(['hello', 'fetch ok']));
    expect((await through(`limited.${ZONE}`, q(1))).json).toEqual(['fetch ok']);
  }, 120_000);

  it('changes limits through settings (a new version, served at once); a bad value is a v4 error naming the field', async () => {
    const auth = { 'x-auth-email': server.email, 'x-auth-key': server.key };
    const bad = await patchSettings(account, 'limited', { limits: { subrequests: 0 } }, auth);
    expect(bad.status).toBe(400);
    expect(bad.body.errors[0]).toMatchObject({ code: 10021, message: 'settings.limits.subrequests must be a whole number from 1 to 10000000, got 0' });
    const unknown = await patchSettings(account, 'limited', { limits: { wall_ms: 5 } }, auth);
    expect(unknown.body.errors[0].message).toContain('settings.limits.wall_ms is not a limit Stratus knows');
    const ok = await patchSettings(account, 'limited', { limits: { cpu_ms: 500, subrequests: 1 } }, auth);
    expect(ok.status).toBe(200);
    expect(ok.body.result.limits).toEqual({ cpu_ms: 500, subrequests: 1 });
    await eventually(async () => expect((await through(`limited.${ZONE}`, q(2))).json).toEqual(['fetch ok', 'Error: Too many subrequests.']));
  });

  it("refuses a bad [limits] at wrangler deploy with the error naming the field, and keeps the deployed version", async () => {
    const bad = makeProject({ 'wrangler.toml': toml('limited', 'src/index.js', '[limits]\ncpu_ms = 900000\n'), 'src/index.js': MODULE_WORKER });
    try {
      const run = await wrangler(server, account, admin, bad, ['deploy']);
      expect(run.code).not.toBe(0);
      expect(run.stdout + run.stderr).toContain('metadata.limits.cpu_ms must be a whole number from 1 to 300000, got 900000');
    } finally {
      fs.rmSync(bad, { recursive: true, force: true });
    }
    expect((await through(`limited.${ZONE}`, q(2))).json).toEqual(['fetch ok', 'Error: Too many subrequests.']);
  }, 120_000);

  describe('a second user', () => {
    let otherKey: Record<string, string>;
    let otherToken: string;

    beforeAll(async () => {
      const other = await addUser(server, 'limits-second@example.com');
      otherKey = { 'x-auth-email': other.email, 'x-auth-key': other.key };
      const token = await other.sdk().user.tokens.create({
        name: 'second scripts',
        policies: [{ effect: 'allow', permission_groups: [{ id: SCRIPTS_WRITE }], resources: { [`com.cloudflare.api.account.${other.accountId}`]: '*' } }],
      } as never) as { value: string };
      otherToken = token.value;
    });

    it("cannot read or change the first account's script limits with its key or its token", async () => {
      // Its key: the account is not its own (404 + 7003); its token: no permission there (403 + 9109). Nothing of the script is shown.
      for (const [auth, refused] of [[otherKey, [404, 7003]], [{ authorization: `Bearer ${otherToken}` }, [403, 9109]]] as const) {
        const asOther: Record<string, string | undefined> = { 'x-auth-email': undefined, 'x-auth-key': undefined, ...auth };
        const read = await api(server, 'GET', `/accounts/${account}/workers/scripts/limited/settings`, undefined, asOther);
        expect([read.status, read.body.errors[0]?.code]).toEqual(refused);
        expect(JSON.stringify(read.body)).not.toContain('cpu_ms');
        const versions = await api(server, 'GET', `/accounts/${account}/workers/scripts/limited/versions`, undefined, asOther);
        expect([versions.status, versions.body.errors[0]?.code]).toEqual(refused);
        expect(versions.body.result).toBeNull();
        const change = await patchSettings(account, 'limited', { limits: { subrequests: 10_000_000 } }, auth);
        expect([change.status, change.body.errors[0]?.code]).toEqual(refused);
      }
      expect((await server.sdk().workers.scripts.scriptAndVersionSettings.get('limited', { account_id: account })).limits).toEqual({ cpu_ms: 500, subrequests: 1 });
      expect((await through(`limited.${ZONE}`, q(2))).json).toEqual(['fetch ok', 'Error: Too many subrequests.']);
    });
  });
});
