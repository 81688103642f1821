/**
 * No S3 request does what it did not ask for: a subresource or query parameter the router does not know is
 * refused (501 NotImplemented for S3's subresources, 400 InvalidArgument otherwise) instead of running the plain
 * operation of its method, and headers asking for features Stratus lacks (ACLs, grants, tagging, object lock,
 * SSE-S3/KMS) are refused as R2 refuses them. Every refusal is checked against the store: nothing changed.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { request as httpRequest } from 'node:http';
import {
  CreateBucketCommand, GetObjectCommand, HeadBucketCommand, ListMultipartUploadsCommand, ListObjectsV2Command,
  PutObjectCommand, type S3Client,
} from '@aws-sdk/client-s3';
import { signedHeaders } from '../helpers/s3-sign.js';
import { s3Failure, testS3Client } from '../helpers/s3-sdk.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

let server: TestServer;
let s3: S3Client;
let base: URL;

/** A signed request with a raw target (`/bucket/key?query`). */
async function raw(method: string, target: string, headers: Record<string, string> = {}, body?: string): Promise<Response> {
  const all = { 'x-amz-content-sha256': 'UNSIGNED-PAYLOAD', ...headers };
  return fetch(`${base.origin}${target}`, { method, headers: await signedHeaders(method, base, target, all), ...(body !== undefined ? { body } : {}) });
}

async function code(res: Response): Promise<string | undefined> {
  return /<Code>([^<]*)<\/Code>/.exec(await res.text())?.[1];
}

/** The stored body of `key` in bucket `nft`. */
async function bodyOf(key: string): Promise<string> {
  const got = await s3.send(new GetObjectCommand({ Bucket: 'nft', Key: key }));
  return got.Body!.transformToString();
}

beforeAll(async () => {
  server = await startTestServer();
  base = new URL(server.running.s3Url!);
  s3 = testS3Client(server.running.s3Url!);
  await s3.send(new CreateBucketCommand({ Bucket: 'nft' }));
  await s3.send(new CreateBucketCommand({ Bucket: 'nft-empty' }));
  await s3.send(new PutObjectCommand({ Bucket: 'nft', Key: 'k', Body: 'original' }));
});

afterAll(async () => {
  s3?.destroy();
  await server?.stop();
});

describe('unknown subresources and parameters never fall through', () => {
  it.each([
    ['DELETE', '/nft-empty?policyStatus'],
    ['DELETE', '/nft-empty?versioning'],
    ['PUT', '/nft-empty?versioning'],
    ['PUT', '/nft-empty?acl'],
    ['GET', '/nft-empty?policyStatus'],
    ['GET', '/nft-empty?acl'],
    ['POST', '/nft-empty?website'],
  ])('%s %s on a bucket is NotImplemented and the bucket stays', async (method, target) => {
    const res = await raw(method, target);
    expect(res.status).toBe(501);
    expect(await code(res)).toBe('NotImplemented');
    await s3.send(new HeadBucketCommand({ Bucket: 'nft-empty' }));
  });

  it('POST on ?lifecycle (an implemented subresource) is MethodNotAllowed and the bucket stays', async () => {
    const res = await raw('POST', '/nft-empty?lifecycle');
    expect(res.status).toBe(405);
    expect(await code(res)).toBe('MethodNotAllowed');
    await s3.send(new HeadBucketCommand({ Bucket: 'nft-empty' }));
  });

  it('HEAD with a subresource is refused without a body', async () => {
    const res = await raw('HEAD', '/nft-empty?policyStatus');
    expect(res.status).toBe(501);
    expect(await res.text()).toBe('');
  });

  it('PUT ?versioning on a missing bucket creates nothing', async () => {
    const res = await raw('PUT', '/nft-new?versioning', {}, '<VersioningConfiguration><Status>Enabled</Status></VersioningConfiguration>');
    expect(res.status).toBe(501);
    expect((await s3Failure(s3.send(new HeadBucketCommand({ Bucket: 'nft-new' })))).status).toBe(404);
  });

  it.each([
    ['PUT', '/nft/k?uploads', 'overwritten'],
    ['PUT', '/nft/k?policyStatus', 'overwritten'],
    ['PUT', '/nft/k?acl', '<AccessControlPolicy/>'],
    ['PUT', '/nft/k?retention', '<Retention/>'],
    ['DELETE', '/nft/k?uploads', undefined],
    ['DELETE', '/nft/k?acl', undefined],
    ['GET', '/nft/k?acl', undefined],
    ['PUT', '/nft/k?attributes', 'overwritten'],
    ['HEAD', '/nft/k?legal-hold', undefined],
    ['POST', '/nft/k?restore', '<RestoreRequest/>'],
    ['POST', '/nft/k?select&select-type=2', '<SelectObjectContentRequest/>'],
  ])('%s %s on an object is NotImplemented and the object is unchanged', async (method, target, body) => {
    const res = await raw(method, target, {}, body);
    expect(res.status).toBe(501);
    expect(await bodyOf('k')).toBe('original');
  });

  it.each([
    ['GET', '/nft/k?foo=bar'],
    ['DELETE', '/nft/k?foo'],
    ['PUT', '/nft/k?unknown=1'],
    ['GET', '/nft?what=1'],
    ['DELETE', '/nft-empty?x=1'],
    ['GET', '/?bogus'],
  ])('%s %s with a parameter S3 does not know is InvalidArgument and changes nothing', async (method, target) => {
    const res = await raw(method, target, {}, method === 'PUT' ? 'overwritten' : undefined);
    expect(res.status).toBe(400);
    expect(await code(res)).toBe('InvalidArgument');
    expect(await bodyOf('k')).toBe('original');
    await s3.send(new HeadBucketCommand({ Bucket: 'nft-empty' }));
  });

  it('a version id other than null is refused; null names the object', async () => {
    const bad = await raw('GET', '/nft/k?versionId=3HL4kqtJlcpXroDTDmjVBH40Nrjfkd');
    expect(bad.status).toBe(400);
    expect(await code(bad)).toBe('InvalidArgument');
    const nul = await raw('GET', '/nft/k?versionId=null');
    expect(nul.status).toBe(200);
    expect(await nul.text()).toBe('original');
    const del = await raw('DELETE', '/nft/k?versionId=abc');
    expect(del.status).toBe(400);
    const copy = await raw('PUT', '/nft/copied', { 'x-amz-copy-source': '/nft/k?versionId=abc' });
    expect(copy.status).toBe(400);
    expect((await raw('PUT', '/nft/copied', { 'x-amz-copy-source': '/nft/k?versionId=null' })).status).toBe(200);
    expect(await bodyOf('k')).toBe('original');
  });

  it('ordinary parameters of each operation still work', async () => {
    const over = await raw('GET', '/nft/k?response-content-type=text%2Fx-test&response-cache-control=no-store');
    expect(over.status).toBe(200);
    expect(over.headers.get('content-type')).toBe('text/x-test');
    expect(over.headers.get('cache-control')).toBe('no-store');
    const listed = await raw('GET', '/nft?list-type=2&prefix=k&max-keys=5&encoding-type=url&fetch-owner=true&start-after=');
    expect(listed.status).toBe(200);
    expect(await listed.text()).toContain('<Key>k</Key>');
    const v1 = await raw('GET', '/nft?prefix=&marker=&max-keys=10&delimiter=%2F');
    expect(v1.status).toBe(200);
    // The SDK adds ?x-id=<Operation> to its requests.
    const got = await s3.send(new ListObjectsV2Command({ Bucket: 'nft', Prefix: 'k' }));
    expect(got.Contents?.map((o) => o.Key)).toEqual(['k']);
  });
});

describe('headers asking for what Stratus does not do are refused as R2 refuses them', () => {
  it.each([
    [{ 'x-amz-acl': 'public-read' }, 501, 'NotImplemented'],
    [{ 'x-amz-grant-read': 'uri="http://acs.amazonaws.com/groups/global/AllUsers"' }, 501, 'NotImplemented'],
    [{ 'x-amz-tagging': 'a=b' }, 501, 'NotImplemented'],
    [{ 'x-amz-object-lock-mode': 'GOVERNANCE', 'x-amz-object-lock-retain-until-date': '2030-01-01T00:00:00Z' }, 501, 'NotImplemented'],
    [{ 'x-amz-object-lock-legal-hold': 'ON' }, 501, 'NotImplemented'],
    [{ 'x-amz-server-side-encryption': 'AES256' }, 501, 'NotImplemented'],
    [{ 'x-amz-server-side-encryption': 'aws:kms' }, 501, 'NotImplemented'],
    [{ 'x-amz-server-side-encryption': 'aes:kms' }, 400, 'InvalidArgument'],
    [{ 'x-amz-website-redirect-location': '/elsewhere' }, 501, 'NotImplemented'],
  ])('PutObject with %j is refused and the object is unchanged', async (headers, status, errorCode) => {
    const res = await raw('PUT', '/nft/k', headers as Record<string, string>, 'overwritten');
    expect(res.status).toBe(status);
    expect(await code(res)).toBe(errorCode);
    expect(await bodyOf('k')).toBe('original');
  });

  it('R2 wording names the header and its value', async () => {
    const res = await raw('PUT', '/nft/k', { 'x-amz-acl': 'public-read' }, 'overwritten');
    expect(await res.text()).toContain('Header &apos;x-amz-acl&apos; with value &apos;public-read&apos; not implemented');
  });

  it('x-amz-acl: private is what every object is, and is accepted', async () => {
    const res = await raw('PUT', '/nft/private', { 'x-amz-acl': 'private' }, 'p');
    expect(res.status).toBe(200);
    expect(await bodyOf('private')).toBe('p');
  });

  it('CreateMultipartUpload with tags starts no upload; CopyObject with a public ACL copies nothing', async () => {
    const mpu = await raw('POST', '/nft/mp?uploads', { 'x-amz-tagging': 'a=b' });
    expect(mpu.status).toBe(501);
    expect((await s3.send(new ListMultipartUploadsCommand({ Bucket: 'nft' }))).Uploads ?? []).toEqual([]);
    const copy = await raw('PUT', '/nft/copy', { 'x-amz-copy-source': '/nft/k', 'x-amz-acl': 'public-read-write' });
    expect(copy.status).toBe(501);
    expect((await s3Failure(s3.send(new GetObjectCommand({ Bucket: 'nft', Key: 'copy' })))).status).toBe(404);
  });

  it('CreateBucket with a public ACL or object lock creates nothing', async () => {
    for (const headers of <Record<string, string>[]>[{ 'x-amz-acl': 'public-read' }, { 'x-amz-bucket-object-lock-enabled': 'true' }, { 'x-amz-grant-full-control': 'id=x' }]) {
      const res = await raw('PUT', '/nft-public', headers);
      expect(res.status).toBe(501);
      expect((await s3Failure(s3.send(new HeadBucketCommand({ Bucket: 'nft-public' })))).status).toBe(404);
    }
  });

  it('a browser form upload (POST Object) is NotImplemented, before any signature check', async () => {
    const form = new FormData();
    form.set('key', 'form.txt');
    form.set('file', new Blob(['x']), 'form.txt');
    const res = await fetch(`${base.origin}/nft`, { method: 'POST', body: form });
    expect(res.status).toBe(501);
    expect(await code(res)).toBe('NotImplemented');
    expect((await s3Failure(s3.send(new GetObjectCommand({ Bucket: 'nft', Key: 'form.txt' })))).status).toBe(404);
  });

  it('an Expect other than 100-continue is served as S3 serves it, not refused with 417', async () => {
    const headers = await signedHeaders('PUT', base, '/nft/expect', { 'x-amz-content-sha256': 'UNSIGNED-PAYLOAD', 'content-length': '3' });
    const status = await new Promise<number>((resolve, reject) => {
      const req = httpRequest({ host: base.hostname, port: Number(base.port), method: 'PUT', path: '/nft/expect', headers: { ...headers, expect: '200' } }, (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
      });
      req.on('error', reject);
      req.end('abc');
    });
    expect(status).toBe(200);
    expect(await bodyOf('expect')).toBe('abc');
  });
});
