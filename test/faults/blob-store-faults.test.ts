/**
 * Object bodies in an S3 blob store (`--blobs-s3-*`; here a second Stratus's S3 listener) that fails: answering
 * 500s (through a proxy, http-fault-proxy.ts) or stopped and started again on its port. With writers running,
 * object writes fail cleanly (S3 503 ServiceUnavailable, binding `put: … (10043)`) with nothing committed: no
 * row without its body; reads of stored bodies fail cleanly; the SDK retries 500s with backoff; writes succeed
 * again within 5 s of the store's return, without a restart; every acknowledged object is intact.
 */
import fs from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CreateBucketCommand, GetObjectCommand, ListObjectsV2Command, PutObjectCommand, type S3Client } from '@aws-sdk/client-s3';
import { startTestServer, TEST_S3_ACCESS_KEY_ID, TEST_S3_SECRET, type TestServer } from '../helpers/server.js';
import { s3Failure, testS3Client } from '../helpers/s3-sdk.js';
import { openServedBucketStore } from '../../src/store/served.js';
import { systemClock } from '../../src/shared/clock.js';
import { silentLogger } from '../../src/shared/logger.js';
import { startHttpFaultProxy, type HttpFaultProxy } from './http-fault-proxy.js';
import { missingObjects, objectWriters, summary } from './load.js';

const BODY = 100 * 1024; // above the inline limit (64 KiB): every body goes to the blob store
let provider: TestServer;
let providerPort: number;
let proxy: HttpFaultProxy;
let viaProxy: TestServer;
let direct: TestServer;
const clients: S3Client[] = [];

function client(node: TestServer): S3Client {
  const c = testS3Client(node.running.s3Url!);
  clients.push(c);
  return c;
}

function blobFlags(endpoint: string, prefix: string): Record<string, string> {
  return {
    'blobs-s3-bucket': 'blobs', 'blobs-s3-endpoint': endpoint, 'blobs-s3-prefix': prefix,
    'blobs-s3-access-key-id': TEST_S3_ACCESS_KEY_ID, 'blobs-s3-secret-access-key': TEST_S3_SECRET,
  };
}

beforeAll(async () => {
  provider = await startTestServer({ keepDataDir: true });
  providerPort = Number(new URL(provider.running.s3Url!).port);
  await client(provider).send(new CreateBucketCommand({ Bucket: 'blobs' }));
  proxy = await startHttpFaultProxy(provider.running.s3Url!);
  viaProxy = await startTestServer({ flags: blobFlags(proxy.url, 'a/') });
  direct = await startTestServer({ flags: blobFlags(provider.running.s3Url!, 'b/') });
  for (const node of [viaProxy, direct]) await client(node).send(new CreateBucketCommand({ Bucket: 'data' }));
}, 60_000);

afterAll(async () => {
  for (const c of clients) c.destroy();
  await direct?.stop();
  await viaProxy?.stop();
  await proxy?.close();
  await provider?.stop();
  if (provider) fs.rmSync(provider.dataDir, { recursive: true, force: true });
});

/** Every object `node` lists in `data` has its body (no row without a body), and only acknowledged ones exist. */
async function expectConsistent(s3: S3Client, acked: Map<string, string>, extra: string[]): Promise<void> {
  const listed = await s3.send(new ListObjectsV2Command({ Bucket: 'data' }));
  const keys = (listed.Contents ?? []).map((o) => o.Key!);
  for (const key of keys) expect([...acked.keys(), ...extra], `listed ${key} was never acknowledged`).toContain(key);
  for (const key of keys) {
    const got = await s3.send(new GetObjectCommand({ Bucket: 'data', Key: key }));
    expect((await got.Body!.transformToByteArray()).length, key).toBeGreaterThan(BODY);
  }
  expect(await missingObjects(s3, 'data', acked)).toEqual([]);
}

describe('S3 blob store faults under load', () => {
  it('answers 503 ServiceUnavailable while the blob store answers 500s (after the SDK retried), and recovers by itself', async () => {
    const s3 = client(viaProxy);
    await s3.send(new PutObjectCommand({ Bucket: 'data', Key: 'seed', Body: 's'.repeat(BODY + 10) }));
    const writers = objectWriters(s3, 'data', 3, 'five', BODY);
    await writers.waitForSuccesses(10);
    proxy.setMode('fail');
    await writers.waitForStatus(503);
    expect(await s3Failure(s3.send(new GetObjectCommand({ Bucket: 'data', Key: 'seed' })))).toEqual({ name: 'ServiceUnavailable', status: 503 });
    const failedWrites = [...writers.report.byStatus].filter(([k]) => k.startsWith('503')).reduce((n, [, v]) => n + v, 0);
    expect(proxy.requestsFailed, 'the SDK retried each failed call').toBeGreaterThan(failedWrites);
    proxy.setMode('pass');
    const backAt = Date.now();
    await writers.waitForSuccesses(10, 30_000);
    const report = await writers.stop();
    expect(report.successes.find((t) => t >= backAt)! - backAt, summary(report)).toBeLessThan(5_000);
    for (const key of report.byStatus.keys()) expect(['200', '503:ServiceUnavailable'], summary(report)).toContain(key);
    await expectConsistent(s3, report.acked, ['seed']);
  }, 120_000);

  it('answers 503 while the blob store is stopped, the binding fails with 10043, and writes resume when it starts again', async () => {
    const s3 = client(direct);
    await s3.send(new PutObjectCommand({ Bucket: 'data', Key: 'seed', Body: 's'.repeat(BODY + 10) }));
    const served = await openServedBucketStore({
      dataDir: direct.dataDir, databaseUrl: undefined, blobsDir: '', clock: systemClock, logger: silentLogger(),
      blobsS3: { bucket: 'blobs', endpoint: provider.running.s3Url!, region: 'auto', prefix: 'b/', forcePathStyle: true, credentials: { accessKeyId: TEST_S3_ACCESS_KEY_ID, secretAccessKey: TEST_S3_SECRET } },
    });
    // The bucket S3 wrote to is the admin's account's (docs/store.md, "Accounts").
    const binding = served.forAccount(direct.running.adminAccountId);
    try {
      const writers = objectWriters(s3, 'data', 3, 'stop', BODY);
      await writers.waitForSuccesses(10);
      await provider.running.close();
      await writers.waitForStatus(503);
      expect(await s3Failure(s3.send(new GetObjectCommand({ Bucket: 'data', Key: 'seed' })))).toEqual({ name: 'ServiceUnavailable', status: 503 });
      await expect(binding.bucket('data').put('from-binding', 'b'.repeat(BODY + 1))).rejects.toThrow(/^put: Service temporarily unavailable: .* \(10043\)$/);
      await expect(binding.bucket('data').get('seed')).rejects.toThrow(/^get: Service temporarily unavailable: .* \(10043\)$/);
      expect(await binding.bucket('data').head('seed')).not.toBeNull(); // metadata alone still answers
      provider = await startTestServer({ dataDir: provider.dataDir, flags: { s3: `127.0.0.1:${providerPort}` } });
      const backAt = Date.now();
      await writers.waitForSuccesses(10, 30_000);
      const report = await writers.stop();
      expect(report.successes.find((t) => t >= backAt)! - backAt, summary(report)).toBeLessThan(5_000);
      for (const key of report.byStatus.keys()) expect(['200', '503:ServiceUnavailable'], summary(report)).toContain(key);
      await expectConsistent(s3, report.acked, ['seed']);
      expect(await binding.bucket('data').head('from-binding')).toBeNull();
    } finally {
      await served.close();
    }
  }, 120_000);
});
