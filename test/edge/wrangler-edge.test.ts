/**
 * The edge end to end, as a user runs it: a Stratus started with `--edge 127.0.0.1:0`, the real wrangler
 * deploying a module Worker (bucket binding, vars, a secret), and plain HTTP requests with Host headers through
 * the edge listener: the Worker's bucket writes are the account's bucket as the S3 API sees it; redeploys serve
 * the new version; route precedence and no-script routes; a proxied hostname without a route reaches a local
 * origin with the forwarding headers; the workers subdomain; `wrangler delete` stops serving. A second user
 * deploys a Worker of the same name bound to a bucket of the same name in its own account: each hostname
 * serves its own Worker and data, and the second user's token cannot touch the first user's zone.
 */
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CreateBucketCommand, GetObjectCommand } from '@aws-sdk/client-s3';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { accountId as adminAccountOf, api, createZone } from '../helpers/api.js';
import { testS3Client } from '../helpers/s3-sdk.js';
import { addUser } from '../helpers/users.js';
import { expectSuccess, makeProject, wrangler, type WranglerAuth } from '../scripts/wrangler.js';
import { edgeRequest } from './request.js';
import { eventually } from './harness.js';
import { workerProject } from './worker-project.js';

const ZONE = 'e2e-edge.test';
const OTHER_ZONE = 'e2e-other.test';
const BUCKET = 'e2e-bucket';
/** Permission groups of wrangler's "Edit Workers" token: Workers Scripts Write, R2 Storage Write (wrangler looks up bound buckets), Workers Routes Write, Zone Read. */
const SCRIPTS_WRITE = 'e086da7e2179491d91ee5f35b3ca210a';
const R2_WRITE = 'bf7481a1826f439697cb59a20b22293e';
const ROUTES_WRITE = '28f4b596e7d643029c524985477ae49a';
const ZONE_READ = 'c8fed203ed3043cba015a93ad1616f1f';

let server: TestServer;
let edge: string;
let account: string;
let admin: WranglerAuth;
let zoneId: string;
let project: string;
let origin: http.Server;
let originSeen: http.IncomingHttpHeaders[] = [];

/** A GET through --edge for `host` + `p`, JSON-decoded when the answer is JSON. */
async function through(host: string, p: string, opts: { method?: string; body?: string; headers?: Record<string, string> } = {}) {
  const res = await edgeRequest(edge, host, { path: p, ...opts });
  let json: any;
  try { json = JSON.parse(res.body); } catch { json = undefined; }
  return { ...res, json };
}

beforeAll(async () => {
  origin = http.createServer((req, res) => {
    originSeen.push(req.headers);
    res.setHeader('content-type', 'application/json');
    res.end(JSON.stringify({ origin: true, host: req.headers.host, url: req.url }));
  });
  await new Promise<void>((r) => origin.listen(0, '127.0.0.1', r));
  const originPort = (origin.address() as AddressInfo).port;
  server = await startTestServer({ flags: { edge: '127.0.0.1:0', 'origin-port': String(originPort), 'origin-allow': '127.0.0.0/8' } });
  edge = server.running.edgeUrl!;
  account = await adminAccountOf(server);
  admin = { email: server.email, key: server.key };
  zoneId = await createZone(server, ZONE);
  const sdk = server.sdk();
  for (const name of [`www.${ZONE}`, `plain.${ZONE}`]) {
    await sdk.dns.records.create({ zone_id: zoneId, type: 'A', name, content: '127.0.0.1', proxied: true, ttl: 1 });
  }
  await sdk.dns.records.create({ zone_id: zoneId, type: 'A', name: `dnsonly.${ZONE}`, content: '127.0.0.1', proxied: false, ttl: 300 });
  const s3 = testS3Client(server.running.s3Url!);
  await s3.send(new CreateBucketCommand({ Bucket: BUCKET }));
  s3.destroy();
  await sdk.workers.subdomains.update({ account_id: account, subdomain: 'acme' });
  project = makeProject(workerProject({ name: 'hello', version: 'v1', bucket: BUCKET, routes: [`www.${ZONE}/api/*`], zone: ZONE }));
}, 60_000);

afterAll(async () => {
  await server?.stop();
  await new Promise((r) => origin?.close(r));
  if (project) fs.rmSync(project, { recursive: true, force: true });
});

describe('wrangler deploys, --edge serves', () => {
  it('serves the deployed Worker by Host with its vars, secret and the bucket of its account', async () => {
    const run = expectSuccess(await wrangler(server, account, admin, project, ['deploy']));
    expect(run.stdout).toContain(`www.${ZONE}/api/*`);
    expectSuccess(await wrangler(server, account, admin, project, ['secret', 'put', 'API_KEY'], 'e2e-secret-value\n'));

    const res = await eventually(async () => {
      const r = await through(`www.${ZONE}`, '/api/hello?x=1');
      expect(r.json?.secret).toBe('e2e-secret-value');
      return r;
    });
    expect(res.status).toBe(200);
    expect(res.json).toMatchObject({ version: 'v1', greeting: 'hello', config: { a: 1 }, url: `http://www.${ZONE}/api/hello?x=1`, ip: '127.0.0.1' });
    expect(res.headers['cf-ray']).toMatch(/^[0-9a-f]{16}-STR$/);

    const put = await through(`www.${ZONE}`, '/api/object/notes/a.txt', { method: 'PUT', body: 'written by a Worker' });
    expect(put.status).toBe(201);
    expect((await through(`www.${ZONE}`, '/api/object/notes/a.txt')).body).toBe('written by a Worker');
    const s3 = testS3Client(server.running.s3Url!);
    try {
      const got = await s3.send(new GetObjectCommand({ Bucket: BUCKET, Key: 'notes/a.txt' }));
      expect(await got.Body!.transformToString()).toBe('written by a Worker');
    } finally {
      s3.destroy();
    }
  }, 180_000);

  it('serves the workers subdomain hostname <script>.<subdomain>.<--workers-domain>', async () => {
    const res = await through('hello.acme.workers.localhost', '/anything');
    expect(res.status).toBe(200);
    expect(res.json).toMatchObject({ version: 'v1', url: 'http://hello.acme.workers.localhost/anything' });
    expect((await through('nope.acme.workers.localhost', '/')).status).toBe(404);
  });

  it('a redeploy serves the new version', async () => {
    fs.writeFileSync(path.join(project, 'src/index.js'), workerProject({ name: 'hello', version: 'v2', bucket: BUCKET, routes: [], zone: ZONE })['src/index.js']!);
    expectSuccess(await wrangler(server, account, admin, project, ['deploy']));
    const res = await eventually(async () => {
      const r = await through(`www.${ZONE}`, '/api/hello');
      expect(r.json?.version).toBe('v2');
      return r;
    });
    expect(res.json.secret).toBe('e2e-secret-value'); // secrets carry over to the new version
  }, 180_000);

  it('route precedence: the most specific route wins; a no-script route bypasses to the origin', async () => {
    // a second Worker on a more specific route, and a route without a script more specific still
    const second = makeProject(workerProject({ name: 'special', version: 's1', bucket: BUCKET, routes: [`www.${ZONE}/api/special/*`], zone: ZONE }));
    try {
      expectSuccess(await wrangler(server, account, admin, second, ['deploy']));
    } finally {
      fs.rmSync(second, { recursive: true, force: true });
    }
    await server.sdk().workers.routes.create({ zone_id: zoneId, pattern: `www.${ZONE}/api/special/static/*` });
    await eventually(async () => expect((await through(`www.${ZONE}`, '/api/special/x')).json?.script).toBe('special'));
    expect((await through(`www.${ZONE}`, '/api/other')).json).toMatchObject({ script: 'hello', version: 'v2' });
    const bypass = await through(`www.${ZONE}`, '/api/special/static/logo.png');
    expect(bypass.json).toEqual({ origin: true, host: `www.${ZONE}`, url: '/api/special/static/logo.png' });
    // outside every route: the record's origin
    expect((await through(`www.${ZONE}`, '/home')).json).toMatchObject({ origin: true });
  }, 180_000);

  it('a proxied hostname without a route reaches the origin with the forwarding headers', async () => {
    originSeen = [];
    // (a client's own x-stratus-bucket header never turns the request into a read of some bucket)
    const res = await through(`plain.${ZONE}`, '/page?q=1', { headers: { 'x-forwarded-for': '203.0.113.9', 'cf-connecting-ip': '198.51.100.66', 'x-stratus-bucket': JSON.stringify({ accountId: account, bucket: BUCKET }) } });
    expect(res.status).toBe(200);
    expect(res.json).toEqual({ origin: true, host: `plain.${ZONE}`, url: '/page?q=1' });
    const seen = originSeen.at(-1)!;
    expect(seen['cf-connecting-ip']).toBe('127.0.0.1'); // replaced, never the client's claim
    expect(seen['x-real-ip']).toBe('127.0.0.1');
    expect(seen['x-forwarded-for']).toBe('203.0.113.9, 127.0.0.1');
    expect(seen['x-forwarded-proto']).toBe('http');
    expect(seen['cf-visitor']).toBe('{"scheme":"http"}');
    expect(seen['cf-ray']).toMatch(/^[0-9a-f]{16}-STR$/);
    expect(res.headers['cf-ray']).toBe(seen['cf-ray']);
    // not proxied, or not a zone: production's 1001 page
    for (const host of [`dnsonly.${ZONE}`, `missing.${ZONE}`, 'nowhere.example']) {
      const refused = await through(host, '/');
      expect(refused.status, host).toBe(530);
      expect(refused.body, host).toContain('1001');
    }
  });

  describe('a second user', () => {
    let other: Awaited<ReturnType<typeof addUser>>;
    let otherToken: WranglerAuth;
    let otherProject: string;

    beforeAll(async () => {
      other = await addUser(server, 'e2e-second@example.com');
      const sdk = other.sdk();
      const zone = await sdk.zones.create({ account: { id: other.accountId }, name: OTHER_ZONE, type: 'full' });
      await sdk.dns.records.create({ zone_id: zone.id, type: 'A', name: `www.${OTHER_ZONE}`, content: '127.0.0.1', proxied: true, ttl: 1 });
      await sdk.r2.buckets.create({ account_id: other.accountId, name: BUCKET });
      const token = await sdk.user.tokens.create({
        name: 'second wrangler',
        policies: [
          { effect: 'allow', permission_groups: [{ id: SCRIPTS_WRITE }, { id: R2_WRITE }], resources: { [`com.cloudflare.api.account.${other.accountId}`]: '*' } },
          { effect: 'allow', permission_groups: [{ id: ROUTES_WRITE }, { id: ZONE_READ }], resources: { 'com.cloudflare.api.account.zone.*': '*' } },
        ],
      } as never) as { value: string };
      otherToken = { token: token.value };
      otherProject = makeProject(workerProject({ name: 'hello', version: 'other-v1', bucket: BUCKET, routes: [`www.${OTHER_ZONE}/*`], zone: OTHER_ZONE, workersDev: false }));
    }, 60_000);
    afterAll(() => { if (otherProject) fs.rmSync(otherProject, { recursive: true, force: true }); });

    it('deploys a Worker and a bucket of the same names in its own account; each host serves its own', async () => {
      expectSuccess(await wrangler(server, other.accountId, otherToken, otherProject, ['deploy']));
      await eventually(async () => expect((await through(`www.${OTHER_ZONE}`, '/api/hello')).json?.version).toBe('other-v1'));
      expect((await through(`www.${ZONE}`, '/api/hello')).json).toMatchObject({ version: 'v2', secret: 'e2e-secret-value' });
      // its bucket of the same name does not hold the first account's object
      expect((await through(`www.${OTHER_ZONE}`, '/api/object/notes/a.txt')).status).toBe(404);
      expect((await through(`www.${OTHER_ZONE}`, '/api/object/notes/a.txt', { method: 'PUT', body: 'second user data' })).status).toBe(201);
      expect((await through(`www.${OTHER_ZONE}`, '/api/object/notes/a.txt')).body).toBe('second user data');
      expect((await through(`www.${ZONE}`, '/api/object/notes/a.txt')).body).toBe('written by a Worker');
      // its own secret was never set: the first account's secret is not visible
      expect((await through(`www.${OTHER_ZONE}`, '/api/hello')).json.secret).toBeNull();
    }, 180_000);

    it("its token cannot deploy to, read or route the first user's zone", async () => {
      const intrude = makeProject(workerProject({ name: 'intruder', version: 'x', bucket: BUCKET, routes: [`evil.${ZONE}/*`], zone: ZONE, workersDev: false }));
      try {
        const run = await wrangler(server, other.accountId, otherToken, intrude, ['deploy']);
        expect(run.code).not.toBe(0);
      } finally {
        fs.rmSync(intrude, { recursive: true, force: true });
      }
      const auth = { authorization: `Bearer ${(otherToken as { token: string }).token}`, 'x-auth-email': undefined, 'x-auth-key': undefined };
      const list = await api(server, 'GET', `/zones/${zoneId}/workers/routes`, undefined, auth);
      const create = await api(server, 'POST', `/zones/${zoneId}/workers/routes`, { pattern: `evil.${ZONE}/*`, script: 'hello' }, auth);
      const put = await api(server, 'PUT', `/accounts/${other.accountId}/workers/scripts/hello/routes`, [{ pattern: `www.${ZONE}/steal/*` }], auth);
      for (const res of [list, create]) {
        expect(res.status).toBeGreaterThanOrEqual(400);
        expect(JSON.stringify(res.body)).not.toContain('/api/');
      }
      expect(put.body.success).toBe(false);
      // nothing changed for the first user's hostnames
      const routes = await server.sdk().workers.routes.list({ zone_id: zoneId });
      expect(routes.result.map((r) => r.pattern).sort()).toEqual([`www.${ZONE}/api/*`, `www.${ZONE}/api/special/*`, `www.${ZONE}/api/special/static/*`]);
      expect((await through(`evil.${ZONE}`, '/')).status).toBe(530);
      expect((await through(`www.${ZONE}`, '/steal/x')).json).toMatchObject({ origin: true });
    }, 180_000);
  });

  it('wrangler delete stops serving the Worker on its routes and subdomain', async () => {
    expectSuccess(await wrangler(server, account, admin, project, ['delete']));
    await eventually(async () => expect((await through(`www.${ZONE}`, '/api/hello')).json).toMatchObject({ origin: true }));
    expect((await through('hello.acme.workers.localhost', '/')).status).toBe(404);
    expect((await through(`www.${ZONE}`, '/api/special/x')).json?.script).toBe('special');
    expect((await through(`www.${OTHER_ZONE}`, '/api/hello')).json?.version).toBe('other-v1');
    expect(await api(server, 'GET', `/accounts/${account}/r2/buckets/${BUCKET}`).then((r) => r.status)).toBe(200); // the data stays
  }, 120_000);
});
