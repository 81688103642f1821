/**
 * No credential, token value, S3 secret or SSE-C key ever reaches a log line or an error body. A server runs
 * with a logger that keeps every line (level trace) and answers a suite of requests: bad and good
 * authentication on the v4 API (key, token), token create and roll, S3 with the instance's key and a token's
 * key pair, SSE-C put/get with the right and a wrong key, presigned URLs (valid, tampered, expired), failed
 * signatures over signed SSE-C headers. Every log line and every error body is then searched for every
 * secret used, in every form it travels in (raw, hex, base64, URL-encoded).
 */
import { createHash, randomBytes } from 'node:crypto';
import Cloudflare from 'cloudflare';
import { CreateBucketCommand, GetObjectCommand, PutObjectCommand } from '@aws-sdk/client-s3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, TEST_S3_SECRET, type TestServer } from '../helpers/server.js';
import { accountId, api } from '../helpers/api.js';
import { captureLogger } from '../helpers/capture-logger.js';
import { testS3Client } from '../helpers/s3-sdk.js';
import { presignedUrl, signedHeaders } from '../helpers/s3-sign.js';
import { rawHttp } from '../helpers/raw-http.js';
import { addUser } from '../helpers/users.js';

const R2_WRITE = 'bf7481a1826f439697cb59a20b22293e';
const DNS_WRITE = '4755a26eedb94da69e1066d98aa820be';

describe('secrets never reach a log line or an error body', () => {
  let server: TestServer;
  const { logger, lines } = captureLogger('trace');
  /** Every secret used, in clear. */
  const secrets = new Set<string>();
  /** Bodies of every failed answer. */
  const errorBodies: string[] = [];
  const keep = (...values: string[]) => { for (const v of values) secrets.add(v); };

  beforeAll(async () => {
    server = await startTestServer({ logger });
    keep(server.key, TEST_S3_SECRET);
  });
  afterAll(async () => { await server.stop(); });

  /** A fetch that keeps the body of every answer of 400 or more. */
  const call = async (url: string, init: RequestInit = {}): Promise<Response> => {
    const res = await fetch(url, init);
    const body = await res.text();
    if (res.status >= 400) errorBodies.push(body);
    return new Response(res.status === 204 || res.status === 304 ? null : body, { status: res.status, headers: res.headers });
  };

  it('runs the v4 suite: bad and good keys and tokens, token create, roll and use', async () => {
    const v4 = `${server.apiBase}/zones`;
    for (const headers of [
      { 'x-auth-email': server.email, 'x-auth-key': `${server.key}0` },
      { 'x-auth-email': server.email, 'x-auth-key': `${server.key} x` },
      { 'x-auth-email': `x${server.key}@example.com`, 'x-auth-key': server.key },
      { authorization: `Bearer ${server.key}` },
      { authorization: `Basic ${server.key}` },
      { authorization: `Bearer ${server.key}`, 'x-auth-email': server.email },
    ] as Record<string, string>[]) expect((await call(v4, { headers })).status).toBeGreaterThanOrEqual(400);
    expect((await call(v4, { headers: { 'x-auth-email': server.email, 'x-auth-key': server.key } })).status).toBe(200);

    const made = await server.sdk().user.tokens.create({ name: 'logged', policies: [
      { effect: 'allow', permission_groups: [{ id: R2_WRITE }, { id: DNS_WRITE }], resources: { [`com.cloudflare.api.account.${await accountId(server)}`]: '*' } },
    ] } as never) as { id: string; value: string };
    keep(made.value, createHash('sha256').update(made.value).digest('hex'));
    const tokenClient = new Cloudflare({ apiToken: made.value, baseURL: server.apiBase, maxRetries: 0 });
    expect((await tokenClient.user.tokens.verify()).status).toBe('active');
    expect((await call(v4, { headers: { authorization: `Bearer ${made.value}` } })).status).toBe(200);
    expect((await call(`${server.apiBase}/user/tokens/verify`, { headers: { authorization: `Bearer ${made.value}x` } })).status).toBe(401);
    const rolled = await server.sdk().user.tokens.value.update(made.id, {} as never);
    keep(rolled, createHash('sha256').update(rolled).digest('hex'));
    expect((await call(v4, { headers: { authorization: `Bearer ${made.value}` } })).status).toBe(401);
    expect((await call(v4, { headers: { authorization: `Bearer ${rolled}` } })).status).toBe(200);
    // A token used on a route it may not call, and a bad body sent with it.
    expect((await call(`${server.apiBase}/accounts`, { method: 'POST', headers: { authorization: `Bearer ${rolled}`, 'content-type': 'application/json' }, body: '{"name":"x"}' })).status).toBe(403);
    expect((await call(v4, { method: 'POST', headers: { authorization: `Bearer ${rolled}`, 'content-type': 'application/json' }, body: '{bad json' })).status).toBe(400);
    // Control bytes in each credential header.
    for (const [name, value] of [['X-Auth-Key', `${server.key}\u0000`], ['Authorization', `Bearer ${rolled}\u0000`], ['Authorization', `Bearer ${rolled}\r`]]) {
      const res = await rawHttp(server.running.httpPort, `GET /client/v4/zones HTTP/1.1\r\nHost: x\r\nX-Auth-Email: ${server.email}\r\n${name}: ${value}\r\nConnection: close\r\n\r\n`);
      expect(res.status).toBe(400);
      errorBodies.push(res.body);
    }
    // A second user with its own key: refused on the first user's token routes, learning nothing.
    const other = await addUser(server, 'second-secrets@example.com');
    keep(other.key);
    expect((await call(`${server.apiBase}/user/tokens/${made.id}`, { headers: { 'x-auth-email': other.email, 'x-auth-key': other.key } })).status).toBe(404);
    const cf = new Cloudflare({ apiToken: rolled, baseURL: server.apiBase, maxRetries: 0 });
    await cf.user.tokens.verify();
  });

  it('runs the S3 suite: keys, token key pairs, SSE-C, presigned URLs, failed signatures', async () => {
    const s3Url = server.running.s3Url!;
    const base = new URL(s3Url);
    const admin = testS3Client(s3Url);
    await admin.send(new CreateBucketCommand({ Bucket: 'secrets' }));
    const sseKey = randomBytes(32);
    const wrongKey = randomBytes(32);
    keep(sseKey.toString('base64'), sseKey.toString('hex'), wrongKey.toString('base64'), wrongKey.toString('hex'));
    const ssec = (k: Buffer) => ({ SSECustomerAlgorithm: 'AES256', SSECustomerKey: k.toString('base64'), SSECustomerKeyMD5: createHash('md5').update(k).digest('base64') });
    await admin.send(new PutObjectCommand({ Bucket: 'secrets', Key: 'sealed', Body: 'sealed body', ...ssec(sseKey) }));
    expect(await (await admin.send(new GetObjectCommand({ Bucket: 'secrets', Key: 'sealed', ...ssec(sseKey) }))).Body!.transformToString()).toBe('sealed body');
    await expect(admin.send(new GetObjectCommand({ Bucket: 'secrets', Key: 'sealed', ...ssec(wrongKey) }))).rejects.toThrow();
    await expect(admin.send(new GetObjectCommand({ Bucket: 'secrets', Key: 'sealed' }))).rejects.toThrow();

    // Raw signed requests so that error bodies are kept: a wrong SSE-C key, a bad SSE-C key, a mismatching MD5.
    const sseHeaders = (k: string, md5: string) => ({
      'x-amz-server-side-encryption-customer-algorithm': 'AES256', 'x-amz-server-side-encryption-customer-key': k,
      'x-amz-server-side-encryption-customer-key-md5': md5, 'x-amz-content-sha256': 'UNSIGNED-PAYLOAD',
    });
    const md5 = (k: Buffer) => createHash('md5').update(k).digest('base64');
    for (const headers of [
      sseHeaders(wrongKey.toString('base64'), md5(wrongKey)),
      sseHeaders(sseKey.toString('base64'), md5(wrongKey)),
      sseHeaders(sseKey.toString('hex'), md5(sseKey)),
      sseHeaders(`${sseKey.toString('base64')}AAAA`, md5(sseKey)),
    ]) {
      const signed = await signedHeaders('GET', base, '/secrets/sealed', headers);
      expect((await call(`${s3Url}/secrets/sealed`, { headers: signed })).status).toBeGreaterThanOrEqual(400);
      // The same request with a broken signature: SignatureDoesNotMatch shows its canonical request.
      const broken = { ...signed, authorization: signed.authorization!.replace(/Signature=\w+/, `Signature=${'0'.repeat(64)}`) };
      const res = await call(`${s3Url}/secrets/sealed`, { headers: broken });
      expect(res.status).toBe(403);
      expect(await res.text()).toContain('<CanonicalRequest>');
    }

    // A token's key pair: good, with a wrong secret, after the token is deleted.
    const made = await server.sdk().user.tokens.create({ name: 's3-logged', policies: [
      { effect: 'allow', permission_groups: [{ id: R2_WRITE }], resources: { [`com.cloudflare.api.account.${await accountId(server)}`]: '*' } },
    ] } as never) as { id: string; value: string };
    const tokenSecret = createHash('sha256').update(made.value).digest('hex');
    keep(made.value, tokenSecret);
    const tokenS3 = testS3Client(s3Url, { credentials: { accessKeyId: made.id, secretAccessKey: tokenSecret } });
    await tokenS3.send(new PutObjectCommand({ Bucket: 'secrets', Key: 'by-token', Body: 'x', ...ssec(sseKey) }));
    const wrong = testS3Client(s3Url, { credentials: { accessKeyId: made.id, secretAccessKey: `${tokenSecret.slice(0, -1)}0` } });
    await expect(wrong.send(new GetObjectCommand({ Bucket: 'secrets', Key: 'by-token' }))).rejects.toThrow();
    await server.sdk().user.tokens.delete(made.id);
    await expect(tokenS3.send(new GetObjectCommand({ Bucket: 'secrets', Key: 'by-token', ...ssec(sseKey) }))).rejects.toThrow();

    // Presigned URLs: valid, tampered, expired, and carrying an SSE-C key in the query.
    await admin.send(new PutObjectCommand({ Bucket: 'secrets', Key: 'plain', Body: 'plain body' }));
    const good = await presignedUrl('GET', base, '/secrets/plain');
    expect(await (await call(good)).text()).toBe('plain body');
    expect((await call(good.replace(/X-Amz-Signature=\w+/, `X-Amz-Signature=${'1'.repeat(64)}`))).status).toBe(403);
    expect((await call(await presignedUrl('GET', base, '/secrets/plain', 1, new Date(Date.now() - 3_600_000)))).status).toBe(403);
    const keyInQuery = `${good}&x-amz-server-side-encryption-customer-key=${encodeURIComponent(sseKey.toString('base64'))}`;
    expect((await call(keyInQuery)).status).toBeGreaterThanOrEqual(400);
  });

  it('found no secret in any log line or error body', () => {
    expect(lines.length).toBeGreaterThan(10);
    expect(errorBodies.length).toBeGreaterThan(20);
    const forms = [...secrets].flatMap((s) => [s, encodeURIComponent(s)]);
    for (const secret of new Set(forms)) {
      expect(lines.filter((l) => l.includes(secret)), `log lines holding ${secret.slice(0, 4)}…`).toEqual([]);
      expect(errorBodies.filter((b) => b.includes(secret)), `error bodies holding ${secret.slice(0, 4)}…`).toEqual([]);
    }
  });
});
