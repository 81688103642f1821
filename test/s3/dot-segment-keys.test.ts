/**
 * S3 keys holding `.`, `..` or empty path segments are stored and served under exactly that key: with
 * @aws-sdk/client-s3 (header-signed), with raw signed requests and presigned URLs sent byte for byte (no
 * client-side URL normalisation), and back in ListObjects. A second key pair (an API token's) without access
 * to the bucket is refused whatever the dot segments say.
 */
import http from 'node:http';
import { createHash } from 'node:crypto';
import { CreateBucketCommand, DeleteObjectCommand, GetObjectCommand, HeadObjectCommand, ListObjectsCommand, ListObjectsV2Command, PutObjectCommand } from '@aws-sdk/client-s3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { accountId } from '../helpers/api.js';
import { s3Failure, testS3Client } from '../helpers/s3-sdk.js';
import { presignedUrl, signedHeaders } from '../helpers/s3-sign.js';

const KEYS = ['a/./b', 'a/../b', 'a//b', '/./', './x', '../x', 'x/..', 'x/.', '//lead', 'trail//', 'a/.../b', '..a/b..', 'dots/%2e%2e/lit'];

/** A request sent with `path` exactly as given (Node's http.request with a URL string would normalise it). */
function send(base: URL, method: string, path: string, headers: Record<string, string> = {}, body?: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = http.request({ host: base.hostname, port: Number(base.port), method, path, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode!, body: Buffer.concat(chunks).toString('utf8') }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

/** The path of `key` in `bucket` as the SDK sends it: each segment URI-encoded, `/` kept, dots kept. */
const pathOf = (bucket: string, key: string) => `/${bucket}/${key.split('/').map((s) => encodeURIComponent(s)).join('/')}`;

describe('S3 keys with dot segments and empty segments', () => {
  let server: TestServer;
  let base: URL;
  beforeAll(async () => {
    server = await startTestServer();
    base = new URL(server.running.s3Url!);
    await testS3Client(server.running.s3Url!).send(new CreateBucketCommand({ Bucket: 'dots' }));
    await testS3Client(server.running.s3Url!).send(new CreateBucketCommand({ Bucket: 'dots-raw' }));
  });
  afterAll(async () => { await server.stop(); });

  it('round-trip through @aws-sdk/client-s3 and list under exactly that key', async () => {
    const s3 = testS3Client(server.running.s3Url!);
    for (const key of KEYS) {
      await s3.send(new PutObjectCommand({ Bucket: 'dots', Key: key, Body: `body of ${key}` }));
      const got = await s3.send(new GetObjectCommand({ Bucket: 'dots', Key: key }));
      expect(await got.Body!.transformToString(), key).toBe(`body of ${key}`);
      expect((await s3.send(new HeadObjectCommand({ Bucket: 'dots', Key: key }))).ContentLength, key).toBe(`body of ${key}`.length);
    }
    const listed = (await s3.send(new ListObjectsV2Command({ Bucket: 'dots' }))).Contents!.map((o) => o.Key);
    expect(listed.sort()).toEqual([...KEYS].sort());
    const listedV1 = (await s3.send(new ListObjectsCommand({ Bucket: 'dots' }))).Contents!.map((o) => o.Key);
    expect(listedV1.sort()).toEqual([...KEYS].sort());
    const underA = (await s3.send(new ListObjectsV2Command({ Bucket: 'dots', Prefix: 'a/', Delimiter: '/' })));
    expect(underA.CommonPrefixes!.map((p) => p.Prefix).sort()).toEqual(['a/.../', 'a/../', 'a/./', 'a//'].sort());
    // `a/b` was never written: `a/./b` and `a/../b` did not land there.
    expect(await s3Failure(s3.send(new GetObjectCommand({ Bucket: 'dots', Key: 'a/b' })))).toEqual({ name: 'NoSuchKey', status: 404 });
    expect(await s3Failure(s3.send(new GetObjectCommand({ Bucket: 'dots', Key: 'b' })))).toEqual({ name: 'NoSuchKey', status: 404 });
    for (const key of KEYS) await s3.send(new DeleteObjectCommand({ Bucket: 'dots', Key: key }));
    expect((await s3.send(new ListObjectsV2Command({ Bucket: 'dots' }))).KeyCount).toBe(0);
  });

  it('round-trip through raw signed requests and presigned URLs sent byte for byte', async () => {
    for (const key of KEYS) {
      const path = pathOf('dots-raw', key);
      const put = await send(base, 'PUT', path, await signedHeaders('PUT', base, path, { 'x-amz-content-sha256': 'UNSIGNED-PAYLOAD', 'content-length': String(key.length) }), key);
      expect(put.status, `${key}: ${put.body}`).toBe(200);
      const got = await send(base, 'GET', path, await signedHeaders('GET', base, path, { 'x-amz-content-sha256': 'UNSIGNED-PAYLOAD' }));
      expect(got, key).toEqual({ status: 200, body: key });
      const presigned = new URL(await presignedUrl('GET', base, path));
      const viaUrl = await send(base, 'GET', `${path}${presigned.search}`);
      expect(viaUrl, key).toEqual({ status: 200, body: key });
    }
    const list = await send(base, 'GET', '/dots-raw?list-type=2', await signedHeaders('GET', base, '/dots-raw?list-type=2', { 'x-amz-content-sha256': 'UNSIGNED-PAYLOAD' }));
    const keys = [...list.body.matchAll(/<Key>([^<]*)<\/Key>/g)].map((m) => m[1]);
    expect(keys.sort()).toEqual([...KEYS].sort());
  });

  it('a token key pair without access to the bucket is refused, dots or not', async () => {
    const token = await server.sdk().user.tokens.create({ name: 'other-bucket', policies: [{ effect: 'allow', permission_groups: [{ id: '2efd5506f9c8494dacb1fa10a3e7d5b6' }],
      resources: { [`com.cloudflare.edge.r2.bucket.${await accountId(server)}_default_elsewhere`]: '*' } }] });
    const s3 = testS3Client(server.running.s3Url!, { credentials: { accessKeyId: token.id!, secretAccessKey: createHash('sha256').update(token.value!).digest('hex') } });
    for (const key of ['../dots-raw/a/./b', 'a/./b', '../../dots-raw/x/..']) {
      expect(await s3Failure(s3.send(new GetObjectCommand({ Bucket: 'dots-raw', Key: key })))).toEqual({ name: 'AccessDenied', status: 403 });
      expect(await s3Failure(s3.send(new GetObjectCommand({ Bucket: 'elsewhere', Key: `../dots-raw/${key}` })))).toEqual({ name: 'NoSuchBucket', status: 404 });
    }
  });
});
