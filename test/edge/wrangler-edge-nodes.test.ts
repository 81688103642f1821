/**
 * Two Stratus nodes on one PostgreSQL database, each with its own `--edge` listener: wrangler deploys to one
 * node, and the other node's edge serves the Worker (and its bucket writes) within 5 s; a redeploy too.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { CreateBucketCommand } from '@aws-sdk/client-s3';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { freshPostgresUrl } from '../helpers/postgres.js';
import { accountId, api, createZone } from '../helpers/api.js';
import { testS3Client } from '../helpers/s3-sdk.js';
import { expectSuccess, makeProject, wrangler } from '../scripts/wrangler.js';
import { edgeRequest } from './request.js';
import { eventually } from './harness.js';
import { workerProject } from './worker-project.js';

const ZONE = 'edge-two-nodes.test';
let drop: () => Promise<void>;
let blobsDir: string;
let project: string;
let x: TestServer;
let y: TestServer;

beforeAll(async () => {
  const { url, drop: dropDb } = await freshPostgresUrl('edge_e2e');
  drop = dropDb;
  blobsDir = fs.mkdtempSync(path.join(os.tmpdir(), 'stratus-edge-e2e-blobs-'));
  const flags = { 'database-url': url, 'blobs-dir': blobsDir, 'secrets-key': randomBytes(32).toString('base64'), edge: '127.0.0.1:0' };
  x = await startTestServer({ flags });
  y = await startTestServer({ flags });
}, 60_000);

afterAll(async () => {
  await y?.stop();
  await x?.stop();
  await drop?.();
  if (blobsDir) fs.rmSync(blobsDir, { recursive: true, force: true });
  if (project) fs.rmSync(project, { recursive: true, force: true });
});

/**
 * Waits until y's catalog routes to a version x's catalog serves (the propagation the 5 s bound is about;
 * returns how long that took from `since`), then until y's edge answers as `check` wants (starting a workerd
 * generation for the new version is not propagation and is not timed).
 */
async function servedOnY(since: number, check: (json: any) => void): Promise<number> {
  const want = await x.running.edgeCatalog.resolve(`www.${ZONE}`, '/app/hello');
  if (want.kind !== 'script') throw new Error(`x does not serve a script: ${JSON.stringify(want)}`);
  await eventually(async () => expect(await y.running.edgeCatalog.resolve(`www.${ZONE}`, '/app/hello')).toMatchObject({ versionId: want.versionId }), 20_000);
  const took = Date.now() - since;
  await eventually(async () => {
    const res = await edgeRequest(y.running.edgeUrl!, `www.${ZONE}`, { path: '/app/hello' });
    check(JSON.parse(res.body));
  }, 30_000);
  return took;
}

it('a deploy on one node is served through the other node\'s --edge within 5 s', async () => {
  const account = await accountId(x);
  const zoneId = await createZone(x, ZONE);
  await x.sdk().dns.records.create({ zone_id: zoneId, type: 'A', name: `www.${ZONE}`, content: '198.51.100.30', proxied: true, ttl: 1 });
  const s3 = testS3Client(x.running.s3Url!);
  await s3.send(new CreateBucketCommand({ Bucket: 'nodes-e2e' }));
  s3.destroy();
  const auth = { email: x.email, key: x.key };
  project = makeProject(workerProject({ name: 'nodes', version: 'n1', bucket: 'nodes-e2e', routes: [`www.${ZONE}/app/*`], zone: ZONE, workersDev: false }));

  expectSuccess(await wrangler(x, account, auth, project, ['deploy']));
  const first = await servedOnY(Date.now(), (json) => expect(json.version).toBe('n1'));
  expect(first).toBeLessThan(5_000);

  // a bucket write through x's edge is read through y's
  const put = await edgeRequest(x.running.edgeUrl!, `www.${ZONE}`, { path: '/app/object/k.txt', method: 'PUT', body: 'from x' });
  expect(put.status).toBe(201);
  expect((await edgeRequest(y.running.edgeUrl!, `www.${ZONE}`, { path: '/app/object/k.txt' })).body).toBe('from x');

  fs.writeFileSync(path.join(project, 'src/index.js'), workerProject({ name: 'nodes', version: 'n2', bucket: 'nodes-e2e', routes: [], zone: ZONE })['src/index.js']!);
  expectSuccess(await wrangler(x, account, auth, project, ['deploy']));
  const second = await servedOnY(Date.now(), (json) => expect(json.version).toBe('n2'));
  expect(second).toBeLessThan(5_000);

  // a bucket's development hostname enabled on x is served through y's edge
  const managed = await api(x, 'PUT', `/accounts/${account}/r2/buckets/nodes-e2e/domains/managed`, { enabled: true });
  const since = Date.now();
  await eventually(async () => expect(await y.running.edgeCatalog.resolve(managed.body.result.domain, '/k.txt')).toMatchObject({ kind: 'bucket', bucket: 'nodes-e2e' }), 20_000);
  expect(Date.now() - since).toBeLessThan(5_000);
  await eventually(async () => expect((await edgeRequest(y.running.edgeUrl!, managed.body.result.domain, { path: '/k.txt' })).body).toBe('from x'), 20_000);
}, 180_000);
