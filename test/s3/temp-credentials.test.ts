/**
 * Temporary credentials: `POST /accounts/:account_id/r2/temp-access-credentials` through the official SDK, then
 * used with @aws-sdk/client-s3 (access key, secret and session token) until and after they expire, on a
 * server whose clock the test moves (the SDK's clients sign with the same offset). What they reach: their
 * bucket, prefixes and objects, at their permission level; nothing once the parent token is gone; nothing of
 * another account.
 */
import {
  CopyObjectCommand, GetObjectCommand, ListBucketsCommand, ListObjectsV2Command, PutBucketCorsCommand, PutObjectCommand, S3Client,
} from '@aws-sdk/client-s3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { addUser } from '../helpers/users.js';
import { accountId } from '../helpers/api.js';
import { s3Failure, testS3Client } from '../helpers/s3-sdk.js';
import { R2_STORAGE_WRITE } from '../helpers/s3-keys.js';

const DENIED = { name: 'AccessDenied', status: 403 };

describe('temporary S3 credentials', () => {
  let server: TestServer;
  let account: string;
  let offsetMs = 0;
  let parentId: string;
  const clock = { now: () => new Date(Date.now() + offsetMs) };
  const issue = (body: Record<string, unknown>) =>
    server.sdk().r2.temporaryCredentials.create({ account_id: account, bucket: 'temp-b', parentAccessKeyId: parentId, permission: 'object-read-only', ttlSeconds: 3600, ...body });
  const client = (c: { accessKeyId?: string; secretAccessKey?: string; sessionToken?: string }) => new S3Client({
    endpoint: server.running.s3Url!, region: 'auto', forcePathStyle: true, maxAttempts: 1, systemClockOffset: offsetMs,
    credentials: { accessKeyId: c.accessKeyId!, secretAccessKey: c.secretAccessKey!, sessionToken: c.sessionToken! },
  });
  const text = async (s3: S3Client, Bucket: string, Key: string) => (await s3.send(new GetObjectCommand({ Bucket, Key }))).Body!.transformToString();

  beforeAll(async () => {
    server = await startTestServer({ clock });
    account = await accountId(server);
    const admin = testS3Client(server.running.s3Url!);
    for (const Bucket of ['temp-b', 'temp-other']) await server.sdk().r2.buckets.create({ account_id: account, name: Bucket });
    for (const Key of ['pub/a.txt', 'priv/b.txt', 'exact.txt']) await admin.send(new PutObjectCommand({ Bucket: 'temp-b', Key, Body: `body of ${Key}` }));
    await admin.send(new PutObjectCommand({ Bucket: 'temp-other', Key: 'x.txt', Body: 'other' }));
    const parent = await server.sdk().user.tokens.create({
      name: 'parent', policies: [{ effect: 'allow', permission_groups: [{ id: R2_STORAGE_WRITE }], resources: { [`com.cloudflare.api.account.${account}`]: '*' } }],
    });
    parentId = parent.id!;
  });
  afterAll(async () => { await server?.stop(); });

  it('a read-only credential limited to prefixes and objects reads only those', async () => {
    const creds = await issue({ prefixes: ['pub/'], objects: ['exact.txt'] });
    expect(Object.keys(creds).sort()).toEqual(['accessKeyId', 'secretAccessKey', 'sessionToken']);
    const s3 = client(creds);
    expect(await text(s3, 'temp-b', 'pub/a.txt')).toBe('body of pub/a.txt');
    expect(await text(s3, 'temp-b', 'exact.txt')).toBe('body of exact.txt');
    expect(await s3Failure(s3.send(new GetObjectCommand({ Bucket: 'temp-b', Key: 'priv/b.txt' })))).toEqual(DENIED);
    expect(await s3Failure(s3.send(new PutObjectCommand({ Bucket: 'temp-b', Key: 'pub/new.txt', Body: 'x' })))).toEqual(DENIED);
    expect((await s3.send(new ListObjectsV2Command({ Bucket: 'temp-b', Prefix: 'pub/' }))).Contents!.map((o) => o.Key)).toEqual(['pub/a.txt']);
    expect(await s3Failure(s3.send(new ListObjectsV2Command({ Bucket: 'temp-b' })))).toEqual(DENIED);
    expect(await s3Failure(s3.send(new GetObjectCommand({ Bucket: 'temp-other', Key: 'x.txt' })))).toEqual(DENIED);
    expect(await s3Failure(s3.send(new ListBucketsCommand({})))).toEqual(DENIED);
    // A forged session token (payload changed) is not accepted.
    const [payload, sig] = creds.sessionToken!.split('.');
    const widened = Buffer.from(JSON.stringify({ ...JSON.parse(Buffer.from(payload!, 'base64url').toString()), prefixes: [''] })).toString('base64url');
    expect((await s3Failure(client({ ...creds, sessionToken: `${widened}.${sig}` }).send(new GetObjectCommand({ Bucket: 'temp-b', Key: 'priv/b.txt' })))).status).toBe(403);
  });

  it('a read-write credential writes inside its prefix; admin permissions also set the bucket CORS', async () => {
    const rw = client(await issue({ permission: 'object-read-write', prefixes: ['pub/'] }));
    await rw.send(new PutObjectCommand({ Bucket: 'temp-b', Key: 'pub/written.txt', Body: 'by temp' }));
    expect(await text(testS3Client(server.running.s3Url!), 'temp-b', 'pub/written.txt')).toBe('by temp');
    expect(await s3Failure(rw.send(new CopyObjectCommand({ Bucket: 'temp-b', Key: 'pub/copy.txt', CopySource: 'temp-b/priv/b.txt' })))).toEqual(DENIED);
    const cors = { Bucket: 'temp-b', CORSConfiguration: { CORSRules: [{ AllowedOrigins: ['*'], AllowedMethods: ['GET'] }] } };
    expect(await s3Failure(rw.send(new PutBucketCorsCommand(cors)))).toEqual(DENIED);
    await client(await issue({ permission: 'admin-read-write' })).send(new PutBucketCorsCommand(cors));
  });

  it('works until it expires, then answers ExpiredToken', async () => {
    const creds = await issue({ ttlSeconds: 600 });
    offsetMs = 599_000;
    expect(await text(client(creds), 'temp-b', 'priv/b.txt')).toBe('body of priv/b.txt');
    offsetMs = 601_000;
    expect(await s3Failure(client(creds).send(new GetObjectCommand({ Bucket: 'temp-b', Key: 'priv/b.txt' })))).toEqual({ name: 'ExpiredToken', status: 400 });
    offsetMs = 0;
  });

  it('dies with its parent token', async () => {
    const parent = await server.sdk().user.tokens.create({
      name: 'short parent', policies: [{ effect: 'allow', permission_groups: [{ id: R2_STORAGE_WRITE }], resources: { [`com.cloudflare.api.account.${account}`]: '*' } }],
    });
    const creds = await issue({ parentAccessKeyId: parent.id });
    expect(await text(client(creds), 'temp-b', 'pub/a.txt')).toBe('body of pub/a.txt');
    await server.sdk().user.tokens.delete(parent.id!);
    expect(await s3Failure(client(creds).send(new GetObjectCommand({ Bucket: 'temp-b', Key: 'pub/a.txt' })))).toEqual({ name: 'InvalidAccessKeyId', status: 403 });
  });

  it('refuses bad requests, and a second user cannot mint credentials for the admin account or from its keys', async () => {
    const fails = async (p: Promise<unknown>) => p.then(() => 'ok', (e: { status?: number; errors?: { code: number }[] }) => [e.status, e.errors?.[0]?.code]);
    expect(await fails(issue({ ttlSeconds: 0 }))).toEqual([400, 10040]);
    expect(await fails(issue({ permission: 'everything' }))).toEqual([400, 10040]);
    expect(await fails(issue({ bucket: 'no-such-bucket' }))).toEqual([400, 10040]);
    expect(await fails(issue({ parentAccessKeyId: 'f'.repeat(32) }))).toEqual([400, 10040]);
    // A parent whose own groups do not cover the permission (here: read-only items on the bucket).
    const weak = await server.sdk().user.tokens.create({
      name: 'weak', policies: [{ effect: 'allow', permission_groups: [{ id: '6a018a9f2fc74eb6b293b0c548f38b39' }], resources: { [`com.cloudflare.edge.r2.bucket.${account}_default_temp-b`]: '*' } }],
    });
    expect(await fails(issue({ parentAccessKeyId: weak.id, permission: 'object-read-write' }))).toEqual([400, 10040]);
    expect(await fails(issue({ parentAccessKeyId: weak.id, permission: 'admin-read-only' }))).toEqual([400, 10040]);
    expect(await text(client(await issue({ parentAccessKeyId: weak.id })), 'temp-b', 'pub/a.txt')).toBe('body of pub/a.txt');
    const second = await addUser(server, 'temp-second@example.com');
    const other = second.sdk();
    expect(await fails(other.r2.temporaryCredentials.create({ account_id: account, bucket: 'temp-b', parentAccessKeyId: parentId, permission: 'object-read-only', ttlSeconds: 60 }))).toEqual([404, 7003]);
    await other.r2.buckets.create({ account_id: second.accountId, name: 'temp-b' });
    // The admin's token is not a key of the second account.
    expect(await fails(other.r2.temporaryCredentials.create({ account_id: second.accountId, bucket: 'temp-b', parentAccessKeyId: parentId, permission: 'object-read-only', ttlSeconds: 60 }))).toEqual([400, 10040]);
    const own = await other.user.tokens.create({
      name: 'own', policies: [{ effect: 'allow', permission_groups: [{ id: R2_STORAGE_WRITE }], resources: { [`com.cloudflare.api.account.${second.accountId}`]: '*' } }],
    });
    const mine = client(await other.r2.temporaryCredentials.create({ account_id: second.accountId, bucket: 'temp-b', parentAccessKeyId: own.id!, permission: 'object-read-write', ttlSeconds: 60 }));
    await mine.send(new PutObjectCommand({ Bucket: 'temp-b', Key: 'pub/a.txt', Body: 'second account' }));
    expect(await text(mine, 'temp-b', 'pub/a.txt')).toBe('second account');
    expect(await text(testS3Client(server.running.s3Url!), 'temp-b', 'pub/a.txt')).toBe('body of pub/a.txt');
  });
});
