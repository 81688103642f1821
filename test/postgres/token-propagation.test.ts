/**
 * Token changes across two nodes on one PostgreSQL: a revoke, disable or roll made on node A fails at once
 * on A and on node B within the bound `docs/api-tokens.md` states (REMEMBER_MS of B's clock), even when B has
 * just used the token; a rolled token's new value works on B at once. Node B runs on a {@link ManualClock},
 * so the bound is crossed by moving B's clock, not by waiting.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createHash } from 'node:crypto';
import Cloudflare from 'cloudflare';
import { CreateBucketCommand, ListObjectsV2Command } from '@aws-sdk/client-s3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { accountId } from '../helpers/api.js';
import { freshPostgresUrl } from '../helpers/postgres.js';
import { ManualClock } from '../helpers/clock.js';
import { s3Failure, testS3Client } from '../helpers/s3-sdk.js';
import { REMEMBER_MS } from '../../src/accounts/remembered.js';

const R2_STORAGE_WRITE = 'bf7481a1826f439697cb59a20b22293e';

let a: TestServer;
let b: TestServer;
let drop: () => Promise<void>;
let blobsDir: string;
const clockB = new ManualClock();

beforeAll(async () => {
  const fresh = await freshPostgresUrl('tokprop');
  drop = fresh.drop;
  blobsDir = fs.mkdtempSync(path.join(os.tmpdir(), 'stratus-tokprop-'));
  const flags = { 'database-url': fresh.url, 'blobs-dir': blobsDir };
  a = await startTestServer({ flags });
  b = await startTestServer({ flags, clock: clockB });
  await testS3Client(a.running.s3Url!).send(new CreateBucketCommand({ Bucket: 'propagation' }));
});

afterAll(async () => {
  await b?.stop();
  await a?.stop();
  await drop?.();
  fs.rmSync(blobsDir, { recursive: true, force: true });
});

describe('token changes between nodes', () => {
  const v4 = (node: TestServer, value: string) => new Cloudflare({ apiToken: value, baseURL: node.apiBase, maxRetries: 0 });
  const s3 = (node: TestServer, id: string, value: string) =>
    testS3Client(node.running.s3Url!, { credentials: { accessKeyId: id, secretAccessKey: createHash('sha256').update(value).digest('hex') } });
  const list = (node: TestServer, id: string, value: string) => s3(node, id, value).send(new ListObjectsV2Command({ Bucket: 'propagation' }));
  const make = async (name: string) => (await a.sdk().user.tokens.create({
    name, policies: [{ effect: 'allow', permission_groups: [{ id: R2_STORAGE_WRITE }], resources: { [`com.cloudflare.api.account.${await accountId(a)}`]: '*' } }],
  })) as { id: string; value: string };
  /** Uses the token on B over both listeners, so B remembers it. */
  const useOnB = async (t: { id: string; value: string }) => {
    expect((await v4(b, t.value).user.tokens.verify()).status).toBe('active');
    expect((await list(b, t.id, t.value)).$metadata.httpStatusCode).toBe(200);
  };

  it('a token deleted on A fails on A at once and on B once the bound has passed', async () => {
    const t = await make('deleted-on-a');
    await useOnB(t);
    await a.sdk().user.tokens.delete(t.id);
    await expect(v4(a, t.value).user.tokens.verify()).rejects.toBeInstanceOf(Cloudflare.AuthenticationError);
    expect(await s3Failure(list(a, t.id, t.value))).toEqual({ name: 'InvalidAccessKeyId', status: 403 });
    clockB.advance(REMEMBER_MS);
    await expect(v4(b, t.value).user.tokens.verify()).rejects.toBeInstanceOf(Cloudflare.AuthenticationError);
    expect(await s3Failure(list(b, t.id, t.value))).toEqual({ name: 'InvalidAccessKeyId', status: 403 });
  });

  it('a token disabled on A fails on B once the bound has passed', async () => {
    const t = await make('disabled-on-a');
    await useOnB(t);
    const current = await a.sdk().user.tokens.get(t.id);
    await a.sdk().user.tokens.update(t.id, { name: current.name!, policies: current.policies as never, status: 'disabled' });
    clockB.advance(REMEMBER_MS);
    await expect(v4(b, t.value).user.tokens.verify()).rejects.toBeInstanceOf(Cloudflare.AuthenticationError);
    expect(await s3Failure(list(b, t.id, t.value))).toEqual({ name: 'InvalidAccessKeyId', status: 403 });
  });

  it('a token rolled on A: the new value works on B at once, the old one fails there once the bound has passed', async () => {
    const t = await make('rolled-on-a');
    await useOnB(t);
    const value = await a.sdk().user.tokens.value.update(t.id, {} as never);
    expect((await v4(b, value).user.tokens.verify()).status).toBe('active');
    expect((await list(b, t.id, value)).$metadata.httpStatusCode).toBe(200);
    clockB.advance(REMEMBER_MS);
    await expect(v4(b, t.value).user.tokens.verify()).rejects.toBeInstanceOf(Cloudflare.AuthenticationError);
    expect(await s3Failure(list(b, t.id, t.value))).toEqual({ name: 'SignatureDoesNotMatch', status: 403 });
  });

  it('expiry holds on B at the exact instant, whatever B remembers', async () => {
    const expires = Math.ceil((clockB.now().getTime() + 120_000) / 1000) * 1000;
    const t = (await a.sdk().user.tokens.create({
      name: 'expires-on-b', expires_on: new Date(expires).toISOString(),
      policies: [{ effect: 'allow', permission_groups: [{ id: R2_STORAGE_WRITE }], resources: { [`com.cloudflare.api.account.${await accountId(a)}`]: '*' } }],
    })) as { id: string; value: string };
    clockB.set(expires - 1);
    await useOnB(t);
    clockB.set(expires);
    await expect(v4(b, t.value).user.tokens.verify()).rejects.toBeInstanceOf(Cloudflare.AuthenticationError);
    expect(await s3Failure(list(b, t.id, t.value))).toEqual({ name: 'InvalidAccessKeyId', status: 403 });
    clockB.set(Date.now());
  });
});
