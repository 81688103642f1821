/**
 * The edge's control plane on PostgreSQL: two Stratus nodes share a database; a Worker uploaded, routed and
 * given a secret on one node is resolved and bundled (secret decrypted with the shared --secrets-key) on the
 * other, whose catalog announces the change (it polls the edge serial every second); a change on the second
 * node reaches the first the same way. A node with another key refuses to decrypt, naming the key.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { toFile } from 'cloudflare';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { CreateBucketCommand } from '@aws-sdk/client-s3';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { freshPostgresUrl } from '../helpers/postgres.js';
import { accountId, api, createZone } from '../helpers/api.js';
import { testS3Client } from '../helpers/s3-sdk.js';
import type { EdgeCatalog } from '../../src/edge/types.js';

const ZONE = 'edge-nodes.test';
let drop: () => Promise<void>;
let blobsDir: string;
let x: TestServer;
let y: TestServer;
let url: string;

beforeAll(async () => {
  ({ url, drop } = await freshPostgresUrl('edge'));
  blobsDir = fs.mkdtempSync(path.join(os.tmpdir(), 'stratus-edge-blobs-'));
  const key = randomBytes(32).toString('base64');
  x = await startTestServer({ flags: { 'database-url': url, 'blobs-dir': blobsDir, 'secrets-key': key } });
  y = await startTestServer({ flags: { 'database-url': url, 'blobs-dir': blobsDir, 'secrets-key': key } });
}, 60_000);

afterAll(async () => {
  await y?.stop();
  await x?.stop();
  await drop?.();
  if (blobsDir) fs.rmSync(blobsDir, { recursive: true, force: true });
});

/** Resolves once the catalog announces a change (or fails after a generous limit on a busy machine). */
function nextChange(catalog: EdgeCatalog): Promise<void> {
  return new Promise((resolve, reject) => {
    const limit = setTimeout(() => { off(); reject(new Error('no change announced')); }, 20_000);
    const off = catalog.onChange(() => { clearTimeout(limit); off(); resolve(); });
  });
}

/** Waits until `check` passes (the catalog may announce before the snapshot is rebuilt by the next resolve). */
async function eventually<T>(fn: () => Promise<T>, check: (v: T) => boolean): Promise<T> {
  for (;;) {
    const v = await fn();
    if (check(v)) return v;
    await new Promise((r) => setTimeout(r, 50));
  }
}

it('a deploy, a route and a secret made on one node serve on the other', async () => {
  const account = await accountId(x);
  const zoneId = await createZone(x, ZONE);
  await x.sdk().dns.records.create({ zone_id: zoneId, type: 'A', name: `www.${ZONE}`, content: '198.51.100.30', proxied: true, ttl: 1 });
  const s3 = testS3Client(x.running.s3Url!);
  await s3.send(new CreateBucketCommand({ Bucket: 'nodes-bucket' }));
  s3.destroy();
  expect(await y.running.edgeCatalog.resolve(`www.${ZONE}`, '/')).toMatchObject({ kind: 'origin', origin: '198.51.100.30' });

  const code = 'export default { fetch(req, env) { return new Response(env.TOKEN); } };';
  const changed = nextChange(y.running.edgeCatalog);
  await x.sdk().workers.scripts.update('multi', {
    account_id: account,
    metadata: { main_module: 'index.js', compatibility_date: '2024-06-01', bindings: [{ type: 'r2_bucket', name: 'B', bucket_name: 'nodes-bucket' }] },
    files: [await toFile(Buffer.from(code), 'index.js', { type: 'application/javascript+module' })],
  });
  await x.sdk().workers.routes.create({ zone_id: zoneId, pattern: `www.${ZONE}/app/*`, script: 'multi' });
  const put = await api(x, 'PUT', `/accounts/${account}/workers/scripts/multi/secrets`, { name: 'TOKEN', text: 'shared-secret', type: 'secret_text' });
  expect(put.body.success).toBe(true);
  await changed;

  // the version served is the one the secret change deployed (deployments are listed newest first)
  const deployments = (await api(x, 'GET', `/accounts/${account}/workers/scripts/multi/deployments`)).body.result.deployments;
  expect(deployments).toHaveLength(2);
  const newest = deployments[0].versions[0].version_id as string;
  const target = await eventually(() => y.running.edgeCatalog.resolve(`www.${ZONE}`, '/app/x'), (t) => t.kind === 'script' && t.versionId === newest);
  if (target.kind !== 'script') throw new Error('unreachable');
  const bundle = (await y.running.edgeCatalog.bundle(target.versionId))!;
  expect(bundle.scriptName).toBe('multi');
  expect(Buffer.from(bundle.modules[0]!.content).toString()).toBe(code);
  expect(bundle.bindings).toEqual(expect.arrayContaining([
    { type: 'r2_bucket', name: 'B', bucketName: 'nodes-bucket' },
    { type: 'secret_text', name: 'TOKEN', text: 'shared-secret' },
  ]));

  // the other way round: y removes the route, x hears of it
  const back = nextChange(x.running.edgeCatalog);
  const routes = await y.sdk().workers.routes.list({ zone_id: zoneId });
  await y.sdk().workers.routes.delete(routes.result[0]!.id, { zone_id: zoneId });
  await back;
  expect(await eventually(() => x.running.edgeCatalog.resolve(`www.${ZONE}`, '/app/x'), (t) => t.kind === 'origin')).toMatchObject({ kind: 'origin', origin: '198.51.100.30' });

  // malformed names and ids (a NUL byte PostgreSQL cannot hold) are clear refusals, never a 500
  for (const [method, p, body, status, code] of [
    ['GET', `/accounts/${account}/workers/scripts/a%00b/settings`, undefined, 404, 10007],
    ['GET', `/accounts/${account}/workers/scripts/multi/versions/%00`, undefined, 404, 10007],
    ['GET', `/accounts/${account}/workers/scripts/multi/deployments/%00`, undefined, 404, 10007],
    ['GET', `/zones/${zoneId}/workers/routes/%00`, undefined, 404, 10029],
    ['POST', `/zones/${zoneId}/workers/routes`, { pattern: `x.${ZONE}/*`, script: 'a\u0000b' }, 400, 10016],
    ['PUT', `/accounts/${account}/workers/scripts/multi/secrets`, { name: 'N\u0000UL', text: 'v\u0000', type: 'secret_text' }, 200, undefined],
  ] as const) {
    const res = await api(y, method, p, body);
    expect([res.status, res.body.errors[0]?.code], `${method} ${p}`).toEqual([status, code]);
  }

  // a node with another secrets key cannot read the secret, and says why
  const stranger = await startTestServer({ flags: { 'database-url': url, 'blobs-dir': blobsDir, 'secrets-key': randomBytes(32).toString('hex') } });
  try {
    await expect(stranger.running.edgeCatalog.bundle(target.versionId)).rejects.toThrow('--secrets-key');
  } finally {
    await stranger.stop();
  }
}, 120_000);
