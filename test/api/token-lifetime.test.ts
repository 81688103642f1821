/**
 * An API token's life ends at the exact instant its rules say, on every listener (v4 and the S3 key pair
 * derived from it), even right after a successful (remembered) use: `expires_on`, `not_before`, a revoke,
 * a disable and a roll. Time is a {@link ManualClock} injected into the server, never a wait.
 */
import { createHash } from 'node:crypto';
import Cloudflare from 'cloudflare';
import { CreateBucketCommand, ListObjectsV2Command } from '@aws-sdk/client-s3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { accountId } from '../helpers/api.js';
import { ManualClock } from '../helpers/clock.js';
import { addUser } from '../helpers/users.js';
import { s3Failure, testS3Client } from '../helpers/s3-sdk.js';

const R2_STORAGE_WRITE = 'bf7481a1826f439697cb59a20b22293e';

describe('API token lifetime', () => {
  let server: TestServer;
  let account: string;
  const clock = new ManualClock();
  const v4 = (value: string) => new Cloudflare({ apiToken: value, baseURL: server.apiBase, maxRetries: 0 });
  const s3Of = (id: string, value: string) => testS3Client(server.running.s3Url!, { credentials: { accessKeyId: id, secretAccessKey: createHash('sha256').update(value).digest('hex') } });
  const iso = (ms: number) => new Date(ms).toISOString();
  const make = async (name: string, extra: Record<string, unknown> = {}) => (await server.sdk().user.tokens.create({
    name, policies: [
      { effect: 'allow', permission_groups: [{ id: R2_STORAGE_WRITE }], resources: { [`com.cloudflare.api.account.${account}`]: '*' } },
    ], ...extra,
  } as never)) as { id: string; value: string };
  const s3Works = async (id: string, value: string) => (await s3Of(id, value).send(new ListObjectsV2Command({ Bucket: 'lifetime' }))).$metadata.httpStatusCode === 200;

  beforeAll(async () => {
    server = await startTestServer({ clock });
    account = await accountId(server);
    await testS3Client(server.running.s3Url!).send(new CreateBucketCommand({ Bucket: 'lifetime' }));
  });
  afterAll(async () => { await server.stop(); });

  it('stops at expires_on exactly, on v4 and S3, right after a remembered success', async () => {
    const expires = Math.ceil((clock.now().getTime() + 120_000) / 1000) * 1000;
    const token = await make('expiring', { expires_on: iso(expires) });
    clock.set(expires - 1);
    expect(await v4(token.value).user.tokens.verify()).toMatchObject({ id: token.id, status: 'active' });
    expect(await s3Works(token.id, token.value)).toBe(true);
    clock.set(expires);
    await expect(v4(token.value).user.tokens.verify()).rejects.toBeInstanceOf(Cloudflare.AuthenticationError);
    expect(await s3Failure(s3Of(token.id, token.value).send(new ListObjectsV2Command({ Bucket: 'lifetime' })))).toEqual({ name: 'InvalidAccessKeyId', status: 403 });
    clock.set(Date.now());
  });

  it('starts at not_before exactly, and a refusal before it is not remembered', async () => {
    const start = Math.ceil((clock.now().getTime() + 60_000) / 1000) * 1000;
    const token = await make('later', { not_before: iso(start) });
    clock.set(start - 1);
    await expect(v4(token.value).user.tokens.verify()).rejects.toBeInstanceOf(Cloudflare.AuthenticationError);
    expect(await s3Failure(s3Of(token.id, token.value).send(new ListObjectsV2Command({ Bucket: 'lifetime' })))).toEqual({ name: 'InvalidAccessKeyId', status: 403 });
    clock.set(start);
    expect(await v4(token.value).user.tokens.verify()).toMatchObject({ id: token.id, status: 'active' });
    expect(await s3Works(token.id, token.value)).toBe(true);
    clock.set(Date.now());
  });

  it('a deleted, disabled or rolled token fails at once on the node that changed it, right after a use', async () => {
    const deleted = await make('deleted');
    expect(await s3Works(deleted.id, deleted.value)).toBe(true);
    expect((await v4(deleted.value).user.tokens.verify()).status).toBe('active');
    await server.sdk().user.tokens.delete(deleted.id);
    await expect(v4(deleted.value).user.tokens.verify()).rejects.toBeInstanceOf(Cloudflare.AuthenticationError);
    expect((await s3Failure(s3Of(deleted.id, deleted.value).send(new ListObjectsV2Command({ Bucket: 'lifetime' })))).status).toBe(403);

    const disabled = await make('disabled');
    expect(await s3Works(disabled.id, disabled.value)).toBe(true);
    expect((await v4(disabled.value).user.tokens.verify()).status).toBe('active');
    const current = await server.sdk().user.tokens.get(disabled.id);
    await server.sdk().user.tokens.update(disabled.id, { name: current.name!, policies: current.policies as never, status: 'disabled' });
    await expect(v4(disabled.value).user.tokens.verify()).rejects.toBeInstanceOf(Cloudflare.AuthenticationError);
    expect((await s3Failure(s3Of(disabled.id, disabled.value).send(new ListObjectsV2Command({ Bucket: 'lifetime' })))).status).toBe(403);

    const rolled = await make('rolled');
    expect((await v4(rolled.value).user.tokens.verify()).status).toBe('active');
    expect(await s3Works(rolled.id, rolled.value)).toBe(true);
    const fresh = await server.sdk().user.tokens.value.update(rolled.id, {} as never);
    await expect(v4(rolled.value).user.tokens.verify()).rejects.toBeInstanceOf(Cloudflare.AuthenticationError);
    expect(await s3Failure(s3Of(rolled.id, rolled.value).send(new ListObjectsV2Command({ Bucket: 'lifetime' })))).toEqual({ name: 'SignatureDoesNotMatch', status: 403 });
    expect((await v4(fresh).user.tokens.verify()).status).toBe('active');
    expect(await s3Works(rolled.id, fresh)).toBe(true);
  });

  it('a second user can neither see nor revoke the first user\'s token, which keeps working', async () => {
    const token = await make('private');
    const other = await addUser(server, 'second-lifetime@example.com');
    await expect(other.sdk().user.tokens.get(token.id)).rejects.toBeInstanceOf(Cloudflare.NotFoundError);
    await expect(other.sdk().user.tokens.delete(token.id)).rejects.toBeInstanceOf(Cloudflare.NotFoundError);
    expect((await v4(token.value).user.tokens.verify()).status).toBe('active');
    expect(await s3Works(token.id, token.value)).toBe(true);
  });
});
