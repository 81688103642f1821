/**
 * The v4 bucket routes with the official `cloudflare` SDK against a real Stratus: buckets, their CORS and
 * lifecycle rules, objects, and the same buckets over S3. A second user (own account, own key and token)
 * sees none of the admin's buckets through any route and may use the same names in its own account.
 */
import { CreateBucketCommand, GetBucketCorsCommand, GetObjectCommand, ListBucketsCommand, PutObjectCommand } from '@aws-sdk/client-s3';
import type Cloudflare from 'cloudflare';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { addUser } from '../helpers/users.js';
import { accountId, api } from '../helpers/api.js';
import { testS3Client } from '../helpers/s3-sdk.js';

/** The HTTP status and first error code a call fails with. */
async function failure(p: Promise<unknown>): Promise<{ status: number; code: number }> {
  try {
    await p;
  } catch (err) {
    const e = err as { status?: number; errors?: { code: number }[] };
    return { status: e.status ?? 0, code: e.errors?.[0]?.code ?? 0 };
  }
  throw new Error('expected the call to fail');
}

describe('v4 bucket routes', () => {
  let server: TestServer;
  let sdk: Cloudflare;
  let account: string;
  let second: { sdk(): Cloudflare; accountId: string; email: string; key: string };

  beforeAll(async () => {
    server = await startTestServer();
    sdk = server.sdk();
    account = await accountId(server);
    second = await addUser(server, 'r2-second@example.com');
  });
  afterAll(async () => { await server?.stop(); });

  it('creates, gets, lists (filters, cursor, direction) and deletes buckets, shared with the S3 API', async () => {
    const made = await sdk.r2.buckets.create({ account_id: account, name: 'v4-alpha', locationHint: 'weur', storageClass: 'InfrequentAccess' });
    expect(made).toMatchObject({ name: 'v4-alpha', location: 'weur', storage_class: 'InfrequentAccess', jurisdiction: 'default' });
    expect(Date.parse(made.creation_date!)).not.toBeNaN();
    for (const name of ['v4-beta', 'v4-gamma', 'other-one']) await sdk.r2.buckets.create({ account_id: account, name });
    expect(await sdk.r2.buckets.get('v4-alpha', { account_id: account })).toEqual(made);
    const all = await sdk.r2.buckets.list({ account_id: account });
    expect(all.buckets!.map((b) => b.name)).toEqual(['other-one', 'v4-alpha', 'v4-beta', 'v4-gamma']);
    const filtered = await sdk.r2.buckets.list({ account_id: account, name_contains: 'v4-', direction: 'desc' });
    expect(filtered.buckets!.map((b) => b.name)).toEqual(['v4-gamma', 'v4-beta', 'v4-alpha']);
    // Pages: per_page and the cursor of result_info.
    const first = await api(server, 'GET', `/accounts/${account}/r2/buckets?per_page=2`);
    expect(first.body.result.buckets.map((b: { name: string }) => b.name)).toEqual(['other-one', 'v4-alpha']);
    const next = await api(server, 'GET', `/accounts/${account}/r2/buckets?per_page=2&cursor=${(first.body.result_info as { cursor?: string }).cursor}`);
    expect(next.body.result.buckets.map((b: { name: string }) => b.name)).toEqual(['v4-beta', 'v4-gamma']);
    expect((next.body.result_info as { cursor?: string }).cursor).toBeUndefined();
    // The S3 API sees the same buckets, and objects put there take the bucket's default storage class.
    const s3 = testS3Client(server.running.s3Url!);
    expect((await s3.send(new ListBucketsCommand({}))).Buckets!.map((b) => b.Name)).toContain('v4-alpha');
    await s3.send(new PutObjectCommand({ Bucket: 'v4-alpha', Key: 'k', Body: 'v' }));
    expect((await s3.send(new GetObjectCommand({ Bucket: 'v4-alpha', Key: 'k' }))).StorageClass).toBe('STANDARD_IA');
    expect(await failure(sdk.r2.buckets.delete('v4-alpha', { account_id: account }))).toEqual({ status: 409, code: 10008 });
    await sdk.r2.buckets.objects.delete('k', { account_id: account, bucket_name: 'v4-alpha' });
    await sdk.r2.buckets.delete('v4-alpha', { account_id: account });
    expect(await failure(sdk.r2.buckets.get('v4-alpha', { account_id: account }))).toEqual({ status: 404, code: 10006 });
    const edited = await sdk.r2.buckets.edit('v4-beta', { account_id: account, storage_class: 'InfrequentAccess' });
    expect(edited.storage_class).toBe('InfrequentAccess');
  });

  it('refuses bad input with v4 errors', async () => {
    expect(await failure(sdk.r2.buckets.create({ account_id: account, name: 'Bad_Name' }))).toEqual({ status: 400, code: 10005 });
    expect(await failure(sdk.r2.buckets.create({ account_id: account, name: 'v4-beta' }))).toEqual({ status: 409, code: 10004 });
    expect(await failure(sdk.r2.buckets.create({ account_id: account, name: 'fine-name', storageClass: 'Glacier' as 'Standard' }))).toEqual({ status: 400, code: 10040 });
    expect(await failure(sdk.r2.buckets.create({ account_id: account, name: 'fine-name', locationHint: 'mars' as 'weur' }))).toEqual({ status: 400, code: 10040 });
    expect(await failure(sdk.r2.buckets.create({ account_id: account, name: 'eu-bucket', 'cf-r2-jurisdiction': 'eu' }))).toEqual({ status: 400, code: 10040 });
    await sdk.r2.buckets.create({ account_id: account, name: 'default-j', 'cf-r2-jurisdiction': 'default' });
    expect((await api(server, 'GET', `/accounts/${account}/r2/buckets?direction=up`)).status).toBe(400);
    expect((await api(server, 'POST', `/accounts/${account}/r2/buckets`, '{not json')).status).toBe(400);
  });

  it('keeps CORS rules (the same the S3 API reads) and lifecycle rules, with the default rule on new buckets', async () => {
    await sdk.r2.buckets.create({ account_id: account, name: 'v4-config' });
    expect(await failure(sdk.r2.buckets.cors.get('v4-config', { account_id: account }))).toEqual({ status: 404, code: 10059 });
    const rules = [{ id: 'web', allowed: { origins: ['https://app.example.com'], methods: ['GET' as const, 'PUT' as const], headers: ['x-custom'] }, exposeHeaders: ['etag'], maxAgeSeconds: 60 }];
    await sdk.r2.buckets.cors.update('v4-config', { account_id: account, rules });
    expect((await sdk.r2.buckets.cors.get('v4-config', { account_id: account })).rules).toEqual(rules);
    const viaS3 = await testS3Client(server.running.s3Url!).send(new GetBucketCorsCommand({ Bucket: 'v4-config' }));
    expect(viaS3.CORSRules).toEqual([{ ID: 'web', AllowedOrigins: ['https://app.example.com'], AllowedMethods: ['GET', 'PUT'], AllowedHeaders: ['x-custom'], ExposeHeaders: ['etag'], MaxAgeSeconds: 60 }]);
    expect(await failure(sdk.r2.buckets.cors.update('v4-config', { account_id: account, rules: [{ allowed: { origins: ['*'], methods: ['PATCH' as 'GET'] } }] }))).toEqual({ status: 400, code: 10040 });
    await sdk.r2.buckets.cors.delete('v4-config', { account_id: account });
    expect(await failure(sdk.r2.buckets.cors.get('v4-config', { account_id: account }))).toEqual({ status: 404, code: 10059 });

    expect((await sdk.r2.buckets.lifecycle.get('v4-config', { account_id: account })).rules).toEqual([
      { id: 'Default Multipart Abort Rule', enabled: true, conditions: { prefix: '' }, abortMultipartUploadsTransition: { condition: { type: 'Age', maxAge: 604800 } } },
    ]);
    const lifecycle = [
      { id: 'logs', enabled: true, conditions: { prefix: 'logs/' }, deleteObjectsTransition: { condition: { type: 'Age' as const, maxAge: 86400 * 30 } },
        storageClassTransitions: [{ condition: { type: 'Age' as const, maxAge: 86400 * 7 }, storageClass: 'InfrequentAccess' as const }] },
      { id: 'cutoff', enabled: false, conditions: { prefix: 'tmp/' }, deleteObjectsTransition: { condition: { type: 'Date' as const, date: '2030-01-01T00:00:00.000Z' } } },
    ];
    await sdk.r2.buckets.lifecycle.update('v4-config', { account_id: account, rules: lifecycle });
    expect((await sdk.r2.buckets.lifecycle.get('v4-config', { account_id: account })).rules).toEqual(lifecycle);
    const bad = [{ id: 'x', enabled: true, conditions: { prefix: '' }, deleteObjectsTransition: { condition: { type: 'Age' as const, maxAge: -5 } } }];
    expect(await failure(sdk.r2.buckets.lifecycle.update('v4-config', { account_id: account, rules: bad }))).toEqual({ status: 400, code: 10040 });
    const noAction = [{ id: 'y', enabled: true, conditions: { prefix: '' } }];
    expect(await failure(sdk.r2.buckets.lifecycle.update('v4-config', { account_id: account, rules: noAction }))).toEqual({ status: 400, code: 10040 });
  });

  it('puts, gets, lists and deletes objects with their HTTP metadata', async () => {
    await sdk.r2.buckets.create({ account_id: account, name: 'v4-objects' });
    const put = await sdk.r2.buckets.objects.upload('dir/hello.txt', 'hello world', {
      account_id: account, bucket_name: 'v4-objects',
    }, { headers: { 'content-type': 'text/plain', 'cache-control': 'max-age=60' } });
    expect(put).toMatchObject({ key: 'dir/hello.txt', size: 11, storage_class: 'Standard' });
    const res = await fetch(`${server.apiBase}/accounts/${account}/r2/buckets/v4-objects/objects/dir/hello.txt`, { headers: { 'x-auth-email': server.email, 'x-auth-key': server.key } });
    expect(res.status).toBe(200);
    expect(await res.text()).toBe('hello world');
    expect(res.headers.get('content-type')).toBe('text/plain');
    expect(res.headers.get('cache-control')).toBe('max-age=60');
    expect(res.headers.get('etag')).toBe(`"${put.etag}"`);
    const url = `${server.apiBase}/accounts/${account}/r2/buckets/v4-objects/objects/dir/hello.txt`;
    const auth = { 'x-auth-email': server.email, 'x-auth-key': server.key };
    const part = await fetch(url, { headers: { ...auth, range: 'bytes=6-' } });
    expect([part.status, part.headers.get('content-range'), await part.text()]).toEqual([206, 'bytes 6-10/11', 'world']);
    expect((await fetch(url, { headers: { ...auth, 'if-none-match': `"${put.etag}"` } })).status).toBe(304);
    expect((await fetch(url, { headers: { ...auth, 'if-match': '"nope"' } })).status).toBe(412);
    const listed = await api(server, 'GET', `/accounts/${account}/r2/buckets/v4-objects/objects?prefix=dir/`);
    expect(listed.body.result.map((o: { key: string }) => o.key)).toEqual(['dir/hello.txt']);
    await sdk.r2.buckets.objects.delete('dir/hello.txt', { account_id: account, bucket_name: 'v4-objects' });
    const gone = await api(server, 'GET', `/accounts/${account}/r2/buckets/v4-objects/objects/dir/hello.txt`);
    expect([gone.status, gone.body.errors[0].code]).toEqual([404, 10007]);
    // A body without Content-Length (chunked) is refused rather than buffered.
    const chunked = await fetch(`${server.apiBase}/accounts/${account}/r2/buckets/v4-objects/objects/chunked`, {
      method: 'PUT', headers: { 'x-auth-email': server.email, 'x-auth-key': server.key }, duplex: 'half',
      body: new ReadableStream({ start(ctl) { ctl.enqueue(new TextEncoder().encode('x')); ctl.close(); } }),
    } as RequestInit);
    expect([chunked.status, ((await chunked.json()) as { errors: { code: number }[] }).errors[0]!.code]).toEqual([400, 10040]);
    const noBucket = await api(server, 'PUT', `/accounts/${account}/r2/buckets/nope-bucket/objects/x`, 'x');
    expect([noBucket.status, noBucket.body.errors[0].code]).toEqual([404, 10006]);
  });

  it('takes custom metadata on a v4 PUT as production does (cf-r2-custom-metadata, JSON), read back over v4 and S3', async () => {
    await sdk.r2.buckets.create({ account_id: account, name: 'v4-meta' });
    const meta = { owner: 'team-a', note: 'crème ☕' };
    const header = JSON.stringify(meta).replace(/[\u007f-\uffff]/g, (ch) => `\\u${ch.charCodeAt(0).toString(16).padStart(4, '0')}`);
    await sdk.r2.buckets.objects.upload('m.txt', 'meta', { account_id: account, bucket_name: 'v4-meta' }, { headers: { 'content-type': 'text/plain', 'cf-r2-custom-metadata': header } });
    const listed = await api(server, 'GET', `/accounts/${account}/r2/buckets/v4-meta/objects`);
    expect(listed.body.result[0].custom_metadata).toEqual(meta);
    const head = await testS3Client(server.running.s3Url!).send(new GetObjectCommand({ Bucket: 'v4-meta', Key: 'm.txt' }));
    expect(head.Metadata).toMatchObject({ owner: 'team-a' });
    // A key S3 cannot send as a header is left out of GetObject's x-amz-meta-* and counted in x-amz-missing-meta.
    await sdk.r2.buckets.objects.upload('odd.txt', 'odd', { account_id: account, bucket_name: 'v4-meta' }, { headers: { 'cf-r2-custom-metadata': '{"caf\\u00e9 key":"x","ok":"y"}' } });
    const odd = await testS3Client(server.running.s3Url!).send(new GetObjectCommand({ Bucket: 'v4-meta', Key: 'odd.txt' }));
    expect(odd.Metadata).toEqual({ ok: 'y' });
    expect(odd.MissingMeta).toBe(1);
    for (const bad of ['not json', '["a"]', '{"n":1}']) {
      const res = await api(server, 'PUT', `/accounts/${account}/r2/buckets/v4-meta/objects/bad`, 'x', { 'cf-r2-custom-metadata': bad });
      expect([res.status, res.body.errors[0].code], bad).toEqual([400, 10040]);
    }
    const tooBig = await api(server, 'PUT', `/accounts/${account}/r2/buckets/v4-meta/objects/big`, 'x', { 'cf-r2-custom-metadata': JSON.stringify({ k: 'v'.repeat(9000) }) });
    expect(tooBig.status).toBe(400);
    // Another user cannot write into the admin's bucket, metadata or not.
    const foreign = await api(server, 'PUT', `/accounts/${account}/r2/buckets/v4-meta/objects/x`, 'x', { 'x-auth-email': second.email, 'x-auth-key': second.key, 'cf-r2-custom-metadata': '{"a":"b"}' });
    expect(foreign.status).toBeGreaterThanOrEqual(403);
  });

  it("a second user sees none of the admin's buckets through any route, and may reuse their names", async () => {
    const other = second.sdk();
    await sdk.r2.buckets.create({ account_id: account, name: 'admin-only' });
    await testS3Client(server.running.s3Url!).send(new PutObjectCommand({ Bucket: 'admin-only', Key: 's.txt', Body: 'secret' }));
    // The admin's account in the path: 7003 for every route, as for any foreign account.
    for (const [method, path] of [
      ['GET', `/accounts/${account}/r2/buckets`], ['GET', `/accounts/${account}/r2/buckets/admin-only`],
      ['DELETE', `/accounts/${account}/r2/buckets/admin-only`], ['GET', `/accounts/${account}/r2/buckets/admin-only/cors`],
      ['GET', `/accounts/${account}/r2/buckets/admin-only/lifecycle`], ['GET', `/accounts/${account}/r2/buckets/admin-only/objects/s.txt`],
      ['PUT', `/accounts/${account}/r2/buckets/admin-only/objects/planted`], ['GET', `/accounts/${account}/r2/buckets/admin-only/objects`],
      ['POST', `/accounts/${account}/r2/temp-access-credentials`],
    ] as const) {
      const res = await fetch(`${server.apiBase}${path}`, { method, headers: { 'x-auth-email': 'r2-second@example.com', 'x-auth-key': (second as unknown as { key: string }).key, 'content-type': 'application/json' }, ...(method === 'PUT' || method === 'POST' ? { body: '{}' } : {}) });
      expect([method, path, res.status, ((await res.json()) as { errors: { code: number }[] }).errors[0]!.code]).toEqual([method, path, 404, 7003]);
    }
    // The bucket analytics wrangler reads: nothing about another account.
    const q = { query: 'query getR2StorageMetrics { r2StorageAdaptiveGroups }', variables: { accountTag: account, filter: { bucketName: 'admin-only' } } };
    const spy = await fetch(`${server.apiBase}/graphql`, { method: 'POST', headers: { 'x-auth-email': 'r2-second@example.com', 'x-auth-key': (second as unknown as { key: string }).key, 'content-type': 'application/json' }, body: JSON.stringify(q) });
    expect(await spy.json()).toEqual({ data: { viewer: { accounts: [] } }, errors: null });
    const mine = await api(server, 'POST', '/graphql', q);
    expect(mine.body).toMatchObject({ data: { viewer: { accounts: [{ r2StorageAdaptiveGroups: [{ max: { objectCount: 1, payloadSize: 6 } }] }] } } });
    // Its own account: nothing of the admin's, and the same name is free.
    expect((await other.r2.buckets.list({ account_id: second.accountId })).buckets).toEqual([]);
    expect(await failure(other.r2.buckets.get('admin-only', { account_id: second.accountId }))).toEqual({ status: 404, code: 10006 });
    await other.r2.buckets.create({ account_id: second.accountId, name: 'admin-only' });
    await other.r2.buckets.objects.upload('s.txt', 'second', { account_id: second.accountId, bucket_name: 'admin-only' });
    const admins = await testS3Client(server.running.s3Url!).send(new GetObjectCommand({ Bucket: 'admin-only', Key: 's.txt' }));
    expect(await admins.Body!.transformToString()).toBe('secret');
    expect((await sdk.r2.buckets.list({ account_id: account, name_contains: 'admin-only' })).buckets!.length).toBe(1);
    await testS3Client(server.running.s3Url!).send(new CreateBucketCommand({ Bucket: 'admin-s3-made' }));
    expect((await other.r2.buckets.list({ account_id: second.accountId })).buckets!.map((b) => b.name)).toEqual(['admin-only']);
  });

  it('API tokens: R2 groups decide what each route allows, per account and per bucket', async () => {
    const other = second.sdk();
    const acct = second.accountId;
    await other.r2.buckets.create({ account_id: acct, name: 'tok-a' });
    await other.r2.buckets.create({ account_id: acct, name: 'tok-b' });
    const tokenSdk = async (groups: string[], resources: Record<string, string>) => {
      const t = await other.user.tokens.create({ name: 't', policies: [{ effect: 'allow', permission_groups: groups.map((id) => ({ id })), resources }] });
      return new (sdk.constructor as typeof Cloudflare)({ apiToken: t.value!, baseURL: server.apiBase, maxRetries: 0 });
    };
    const accountKey = `com.cloudflare.api.account.${acct}`;
    const reader = await tokenSdk(['b4992e1108244f5d8bfbd5744320c2e1'], { [accountKey]: '*' }); // Workers R2 Storage Read
    expect((await reader.r2.buckets.list({ account_id: acct })).buckets!.map((b) => b.name)).toEqual(['admin-only', 'tok-a', 'tok-b']);
    expect(await failure(reader.r2.buckets.create({ account_id: acct, name: 'tok-c' }))).toEqual({ status: 403, code: 9109 });
    expect(await failure(reader.r2.buckets.delete('tok-a', { account_id: acct }))).toEqual({ status: 403, code: 9109 });
    expect(await failure(reader.r2.buckets.objects.upload('x', 'x', { account_id: acct, bucket_name: 'tok-a' }))).toEqual({ status: 403, code: 9109 });
    // A bucket-scoped Bucket Item Write token: objects of its bucket only, no bucket management.
    const item = await tokenSdk(['2efd5506f9c8494dacb1fa10a3e7d5b6'], { [`com.cloudflare.edge.r2.bucket.${acct}_default_tok-a`]: '*' });
    await item.r2.buckets.objects.upload('in-a.txt', 'a', { account_id: acct, bucket_name: 'tok-a' });
    expect(await failure(item.r2.buckets.objects.upload('in-b.txt', 'b', { account_id: acct, bucket_name: 'tok-b' }))).toEqual({ status: 403, code: 9109 });
    expect(await failure(item.r2.buckets.list({ account_id: acct }))).toEqual({ status: 403, code: 9109 });
    // A token without R2 groups, and any token on another account's path.
    const dns = await tokenSdk(['4755a26eedb94da69e1066d98aa820be'], { [accountKey]: '*' });
    expect(await failure(dns.r2.buckets.list({ account_id: acct }))).toEqual({ status: 403, code: 9109 });
    expect(await failure(reader.r2.buckets.list({ account_id: account }))).toEqual({ status: 403, code: 9109 });
    expect(await failure(item.r2.buckets.objects.get('s.txt', { account_id: account, bucket_name: 'admin-only' }))).toEqual({ status: 404, code: 7003 });
  });
});
