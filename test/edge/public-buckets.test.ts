/**
 * Public bucket hostnames end to end: the development hostname (`…/domains/managed`, `pub-<id>.<--public-domain>`)
 * and custom domains in the account's zones (`…/domains/custom`, created with a proxied record), served through
 * `--edge` with plain HTTP: GET/HEAD with Range, conditional headers, ETag and stored HTTP metadata; no listing;
 * other methods refused. A second user can neither enable nor add domains for the first user's bucket, nor add a
 * custom domain in a zone it does not own.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CreateBucketCommand, PutObjectCommand } from '@aws-sdk/client-s3';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { accountId as adminAccountOf, api, createZone } from '../helpers/api.js';
import { testS3Client } from '../helpers/s3-sdk.js';
import { addUser } from '../helpers/users.js';
import { edgeRequest } from './request.js';
import { eventually } from './harness.js';

const ZONE = 'public-buckets.test';
const BUCKET = 'site-files';
const BODY = 'hello public world';

let server: TestServer;
let edge: string;
let account: string;
let zoneId: string;
const base = () => `/accounts/${account}/r2/buckets/${BUCKET}/domains`;

beforeAll(async () => {
  server = await startTestServer({ flags: { edge: '127.0.0.1:0' } });
  edge = server.running.edgeUrl!;
  account = await adminAccountOf(server);
  zoneId = await createZone(server, ZONE);
  const s3 = testS3Client(server.running.s3Url!);
  await s3.send(new CreateBucketCommand({ Bucket: BUCKET }));
  await s3.send(new PutObjectCommand({ Bucket: BUCKET, Key: 'docs/hello.txt', Body: BODY, ContentType: 'text/plain; charset=utf-8', CacheControl: 'max-age=60' }));
  s3.destroy();
}, 60_000);

afterAll(async () => {
  await server?.stop();
});

describe('the development hostname', () => {
  let host: string;

  it('is off until enabled; GET and PUT …/domains/managed', async () => {
    const before = await api(server, 'GET', `${base()}/managed`);
    expect(before.status).toBe(200);
    expect(before.body.result).toEqual({ bucketId: expect.stringMatching(/^[0-9a-f]{32}$/), domain: `pub-${before.body.result.bucketId}.r2.localhost`, enabled: false });
    host = before.body.result.domain;
    expect((await edgeRequest(edge, host, { path: '/docs/hello.txt' })).status).toBe(404);
    const on = await api(server, 'PUT', `${base()}/managed`, { enabled: true });
    expect(on.body.result).toEqual({ ...before.body.result, enabled: true });
    expect((await api(server, 'GET', `${base()}/managed`)).body.result.enabled).toBe(true);
    const bad = await api(server, 'PUT', `${base()}/managed`, { enabled: 'yes' });
    expect([bad.status, bad.body.errors[0]?.code]).toEqual([400, 10040]);
    expect((await api(server, 'GET', `/accounts/${account}/r2/buckets/no-such-bucket/domains/managed`)).body.errors[0]?.code).toBe(10006);
  });

  it('serves GET and HEAD with the stored metadata, ETag, Range and conditional headers', async () => {
    const res = await eventually(async () => {
      const r = await edgeRequest(edge, host, { path: '/docs/hello.txt' });
      expect(r.status).toBe(200);
      return r;
    });
    expect(res.body).toBe(BODY);
    expect(res.headers['content-type']).toBe('text/plain; charset=utf-8');
    expect(res.headers['cache-control']).toBe('max-age=60');
    expect(res.headers['content-length']).toBe(String(BODY.length));
    const etag = res.headers.etag!;
    expect(etag).toMatch(/^"[0-9a-f]{32}"$/);
    expect(res.headers['cf-ray']).toMatch(/-STR$/);

    const head = await edgeRequest(edge, host, { path: '/docs/hello.txt', method: 'HEAD' });
    expect([head.status, head.body, head.headers.etag, head.headers['content-length']]).toEqual([200, '', etag, String(BODY.length)]);
    const part = await edgeRequest(edge, host, { path: '/docs/hello.txt', headers: { range: 'bytes=6-11' } });
    expect([part.status, part.body, part.headers['content-range']]).toEqual([206, 'public', `bytes 6-11/${BODY.length}`]);
    expect((await edgeRequest(edge, host, { path: '/docs/hello.txt', headers: { range: 'bytes=500-600' } })).status).toBe(416);
    expect((await edgeRequest(edge, host, { path: '/docs/hello.txt', headers: { 'if-none-match': etag } })).status).toBe(304);
    expect((await edgeRequest(edge, host, { path: '/docs/hello.txt', headers: { 'if-match': '"0000"' } })).status).toBe(412);
    expect((await edgeRequest(edge, host, { path: '/docs/hello.txt', headers: { 'if-match': etag } })).status).toBe(200);
  });

  it('never lists, refuses writes, and 404s a missing key or an unknown public hostname', async () => {
    for (const p of ['/', '/?list-type=2', '/docs/missing.txt']) expect((await edgeRequest(edge, host, { path: p })).status, p).toBe(404);
    for (const method of ['PUT', 'POST', 'DELETE']) {
      const res = await edgeRequest(edge, host, { path: '/docs/hello.txt', method, body: 'overwrite' });
      expect([res.status, res.headers.allow], method).toEqual([405, 'GET, HEAD']);
    }
    expect((await edgeRequest(edge, host, { path: '/docs/hello.txt' })).body).toBe(BODY);
    expect((await edgeRequest(edge, `pub-${'0'.repeat(32)}.r2.localhost`, { path: '/docs/hello.txt' })).status).toBe(404);
  });

  it('stops serving once disabled', async () => {
    await api(server, 'PUT', `${base()}/managed`, { enabled: false });
    await eventually(async () => expect((await edgeRequest(edge, host, { path: '/docs/hello.txt' })).status).toBe(404));
  });
});

describe('a bucket deleted and made again', () => {
  it('does not inherit the public hostname it had', async () => {
    const b = `/accounts/${account}/r2/buckets/gone-again`;
    expect((await api(server, 'POST', `/accounts/${account}/r2/buckets`, { name: 'gone-again' })).status).toBe(200);
    const host = (await api(server, 'PUT', `${b}/domains/managed`, { enabled: true })).body.result.domain as string;
    expect((await api(server, 'DELETE', b)).status).toBe(200);
    expect((await api(server, 'POST', `/accounts/${account}/r2/buckets`, { name: 'gone-again' })).status).toBe(200);
    const s3 = testS3Client(server.running.s3Url!);
    await s3.send(new PutObjectCommand({ Bucket: 'gone-again', Key: 'secret.txt', Body: 'not for the public' }));
    s3.destroy();
    expect((await api(server, 'GET', `${b}/domains/managed`)).body.result).toMatchObject({ domain: host, enabled: false });
    expect((await edgeRequest(edge, host, { path: '/secret.txt' })).status).toBe(404);
  });
});

describe('custom domains', () => {
  const host = `files.${ZONE}`;

  it('adds a hostname of an account zone with its proxied record; the edge serves the bucket there', async () => {
    const created = await api(server, 'POST', `${base()}/custom`, { domain: host, zoneId, enabled: true });
    expect(created.status).toBe(200);
    expect(created.body.result).toEqual({ domain: host, enabled: true, minTLS: '1.0' });
    const records = await server.sdk().dns.records.list({ zone_id: zoneId, name: { exact: host } } as never);
    expect(records.result).toEqual([expect.objectContaining({ type: 'CNAME', name: host, proxied: true })]);
    const res = await eventually(async () => {
      const r = await edgeRequest(edge, host, { path: '/docs/hello.txt' });
      expect(r.status).toBe(200);
      return r;
    });
    expect(res.body).toBe(BODY);
    expect((await edgeRequest(edge, host, { path: '/' })).status).toBe(404);

    const list = await api(server, 'GET', `${base()}/custom`);
    expect(list.body.result).toEqual({ domains: [{ domain: host, enabled: true, status: { ownership: 'active', ssl: 'active' }, minTLS: '1.0', zoneId, zoneName: ZONE }] });
    expect((await api(server, 'GET', `${base()}/custom/${host}`)).body.result).toMatchObject({ domain: host, zoneName: ZONE });
    const again = await api(server, 'POST', `${base()}/custom`, { domain: host, zoneId });
    expect([again.status, again.body.errors[0]?.code]).toEqual([409, 10062]);
    const outside = await api(server, 'POST', `${base()}/custom`, { domain: 'files.elsewhere.test', zoneId });
    expect([outside.status, outside.body.errors[0]?.code]).toEqual([400, 10040]);
  });

  it('updates and deletes it (the record goes too)', async () => {
    const off = await api(server, 'PUT', `${base()}/custom/${host}`, { enabled: false, minTLS: '1.2' });
    expect(off.body.result).toEqual({ domain: host, enabled: false, minTLS: '1.2' });
    await eventually(async () => expect((await edgeRequest(edge, host, { path: '/docs/hello.txt' })).body).not.toBe(BODY));
    const gone = await api(server, 'DELETE', `${base()}/custom/${host}`);
    expect(gone.body.result).toEqual({ domain: host });
    expect((await server.sdk().dns.records.list({ zone_id: zoneId, name: { exact: host } } as never)).result).toEqual([]);
    expect((await api(server, 'GET', `${base()}/custom/${host}`)).body.errors[0]?.code).toBe(10061);
  });
});

describe('a second user', () => {
  it("can neither enable nor add domains for the first user's bucket, nor add a custom domain in a zone it does not own", async () => {
    const other = await addUser(server, 'public-second@example.com');
    const as = { 'x-auth-email': other.email, 'x-auth-key': other.key };
    for (const [method, p, body] of [
      ['GET', `${base()}/managed`, undefined],
      ['PUT', `${base()}/managed`, { enabled: true }],
      ['GET', `${base()}/custom`, undefined],
      ['POST', `${base()}/custom`, { domain: `steal.${ZONE}`, zoneId }],
    ] as const) {
      const res = await api(server, method, p, body, as);
      expect([res.status, res.body.errors[0]?.code], `${method} ${p}`).toEqual([404, 7003]);
    }
    // in its own account: a bucket of the same name is its own; the first user's zone is not one of its zones
    await other.sdk().r2.buckets.create({ account_id: other.accountId, name: BUCKET });
    const own = `/accounts/${other.accountId}/r2/buckets/${BUCKET}/domains`;
    const managed = (await api(server, 'GET', `${own}/managed`, undefined, as)).body.result;
    expect(managed.domain).not.toBe((await api(server, 'GET', `${base()}/managed`)).body.result.domain);
    const steal = await api(server, 'POST', `${own}/custom`, { domain: `steal.${ZONE}`, zoneId }, as);
    expect([steal.status, steal.body.errors[0]?.code]).toEqual([400, 10040]);
    expect(JSON.stringify(steal.body)).not.toContain(ZONE + '"');
    expect((await server.sdk().dns.records.list({ zone_id: zoneId, name: { exact: `steal.${ZONE}` } } as never)).result).toEqual([]);
    expect((await api(server, 'GET', `${base()}/managed`)).body.result.enabled).toBe(false);
  });

  it('API tokens: R2 Storage Read reads the domain settings, Write changes them', async () => {
    const sdk = server.sdk();
    const make = async (group: string) => (await sdk.user.tokens.create({
      name: `domains ${group}`, policies: [{ effect: 'allow', permission_groups: [{ id: group }], resources: { [`com.cloudflare.api.account.${account}`]: '*' } }],
    } as never) as { value: string }).value;
    const bearer = (t: string) => ({ authorization: `Bearer ${t}`, 'x-auth-email': undefined, 'x-auth-key': undefined });
    const read = bearer(await make('b4992e1108244f5d8bfbd5744320c2e1'));
    const write = bearer(await make('bf7481a1826f439697cb59a20b22293e'));
    expect((await api(server, 'GET', `${base()}/managed`, undefined, read)).status).toBe(200);
    expect((await api(server, 'GET', `${base()}/custom`, undefined, read)).status).toBe(200);
    const refused = await api(server, 'PUT', `${base()}/managed`, { enabled: true }, read);
    expect([refused.status, refused.body.success]).toEqual([403, false]);
    expect((await api(server, 'POST', `${base()}/custom`, { domain: `t.${ZONE}`, zoneId }, read)).status).toBe(403);
    expect((await api(server, 'PUT', `${base()}/managed`, { enabled: false }, write)).body.result.enabled).toBe(false);
  });

  it('the public domain is reserved: nobody may add it as a zone', async () => {
    const res = await api(server, 'POST', '/zones', { name: 'r2.localhost', account: { id: account } });
    expect(res.body.errors[0]?.code).toBe(1093);
  });
});
