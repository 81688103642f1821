/**
 * Virtual-hosted-style addressing against a real Stratus started with `--s3-domain s3.localhost`:
 * @aws-sdk/client-s3 without `forcePathStyle` (it then sends `Host: <bucket>.s3.localhost:<port>`) over real
 * sockets whose names resolve to 127.0.0.1, SigV4 over that host, presigned URLs, raw requests to 127.0.0.1
 * naming the bucket only in their `Host` header, and path-style requests on the same listener.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import http from 'node:http';
import {
  CreateBucketCommand, DeleteBucketCommand, DeleteObjectCommand, GetObjectCommand, HeadBucketCommand, ListBucketsCommand,
  ListObjectsV2Command, PutObjectCommand, type S3Client,
} from '@aws-sdk/client-s3';
import { NodeHttpHandler } from '@smithy/node-http-handler';
import { openBucketStore, type BucketNamespace, type BucketStore } from '../../src/index.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { testS3Client } from '../helpers/s3-sdk.js';
import { loopbackLookup, requestVia } from '../helpers/loopback.js';
import { presignedUrl, signedHeaders } from '../helpers/s3-sign.js';

let server: TestServer;
let port: number;
let s3: S3Client;
let opened: BucketStore;
/** The admin's buckets (those the instance key pair sees) through the binding. */
let binding: BucketNamespace;
const resolver = loopbackLookup();

/** The body of an object as the binding reads it, or null. */
async function bodyText(store: BucketNamespace, bucket: string, key: string): Promise<string | null> {
  const got = await store.bucket(bucket).get(key);
  return got && 'text' in got ? got.text() : null;
}
const agent = new http.Agent({ lookup: resolver.lookup });

beforeAll(async () => {
  server = await startTestServer({ flags: { 's3-domain': 's3.localhost' } });
  port = Number(new URL(server.running.s3Url!).port);
  s3 = testS3Client(`http://s3.localhost:${port}`, { forcePathStyle: false, requestHandler: new NodeHttpHandler({ httpAgent: agent }) });
  opened = await openBucketStore({ dataDir: server.dataDir });
  binding = opened.forAccount(server.running.adminAccountId);
});

afterAll(async () => {
  s3?.destroy();
  agent.destroy();
  await opened?.close();
  await server?.stop();
});

describe('virtual-hosted-style addressing', () => {
  it('serves @aws-sdk/client-s3 without forcePathStyle: the bucket in the host, the key in the path', async () => {
    await s3.send(new CreateBucketCommand({ Bucket: 'vhost-one' }));
    await s3.send(new HeadBucketCommand({ Bucket: 'vhost-one' }));
    const key = 'dir/sub dir/ünï+&=?#.txt';
    await s3.send(new PutObjectCommand({ Bucket: 'vhost-one', Key: key, Body: 'hosted', ContentType: 'text/plain' }));
    const got = await s3.send(new GetObjectCommand({ Bucket: 'vhost-one', Key: key }));
    expect(await got.Body!.transformToString()).toBe('hosted');
    expect(got.ContentType).toBe('text/plain');
    const listed = await s3.send(new ListObjectsV2Command({ Bucket: 'vhost-one', Delimiter: '/' }));
    expect(listed.CommonPrefixes).toEqual([{ Prefix: 'dir/' }]);
    expect((await s3.send(new ListBucketsCommand({}))).Buckets?.map((b) => b.Name)).toContain('vhost-one');
    // The SDK really addressed the bucket by host name (resolved by our lookup, over a real socket).
    expect(resolver.names).toContain('vhost-one.s3.localhost');
    expect(resolver.names).toContain('s3.localhost');
    // The binding sees the same object, under the same key.
    expect(await bodyText(binding, 'vhost-one', key)).toBe('hosted');
    await s3.send(new DeleteObjectCommand({ Bucket: 'vhost-one', Key: key }));
    await s3.send(new DeleteBucketCommand({ Bucket: 'vhost-one' }));
    expect(await binding.bucketInfo('vhost-one')).toBeNull();
  });

  it('keeps a leading slash of the key: the whole path after the host is the key', async () => {
    await binding.createBucket('vhost-slash');
    await binding.bucket('vhost-slash').put('/lead', 'slashed');
    const url = `http://vhost-slash.s3.localhost:${port}//lead`;
    const res = await requestVia(resolver.lookup, url, { headers: await signedHeaders('GET', new URL(url), '//lead', { 'x-amz-content-sha256': 'UNSIGNED-PAYLOAD' }) });
    expect(res.status).toBe(200);
    expect(res.body).toBe('slashed');
  });

  it('accepts presigned URLs on the bucket host', async () => {
    const base = new URL(`http://vhost-presign.s3.localhost:${port}`);
    await binding.createBucket('vhost-presign');
    const put = await requestVia(resolver.lookup, await presignedUrl('PUT', base, '/pre%20signed.txt'), { method: 'PUT', body: 'presigned body' });
    expect(put.status).toBe(200);
    const get = await requestVia(resolver.lookup, await presignedUrl('GET', base, '/pre%20signed.txt'));
    expect(get.status).toBe(200);
    expect(get.body).toBe('presigned body');
    const expired = await requestVia(resolver.lookup, await presignedUrl('GET', base, '/pre%20signed.txt', 60, new Date(Date.now() - 3_600_000)));
    expect(expired.status).toBe(403);
    expect(await bodyText(binding, 'vhost-presign', 'pre signed.txt')).toBe('presigned body');
  });

  it('addresses by the Host header of a raw request to 127.0.0.1, signed over that host', async () => {
    // node:http, not fetch: undici's fetch replaces a Host header with the URL's host.
    await binding.createBucket('vhost-raw');
    await binding.bucket('vhost-raw').put('k/raw.txt', 'raw body');
    const host = new URL(`http://vhost-raw.s3.localhost:${port}`);
    const headers = await signedHeaders('GET', host, '/k/raw.txt', { 'x-amz-content-sha256': 'UNSIGNED-PAYLOAD' });
    expect(headers.host).toBe(`vhost-raw.s3.localhost:${port}`);
    const res = await requestVia(resolver.lookup, `http://127.0.0.1:${port}/k/raw.txt`, { headers });
    expect(res.status, res.body).toBe(200);
    expect(res.body).toBe('raw body');
    // Unsigned: refused, and the error names the resource the host and path address together.
    const anonymous = await requestVia(resolver.lookup, `http://127.0.0.1:${port}/k/raw.txt`, { headers: { host: `VHOST-RAW.S3.LOCALHOST:${port}` } });
    expect(anonymous.status).toBe(403);
    expect(anonymous.body).toContain('<Resource>/vhost-raw/k/raw.txt</Resource>');
  });

  it('stays path-style for the domain itself, an IP address and other names', async () => {
    await binding.createBucket('vhost-path');
    await binding.bucket('vhost-path').put('p.txt', 'path style');
    for (const base of [`http://s3.localhost:${port}`, `http://127.0.0.1:${port}`, `http://elsewhere.test:${port}`]) {
      const url = `${base}/vhost-path/p.txt`;
      const res = await requestVia(resolver.lookup, url, { headers: await signedHeaders('GET', new URL(url), '/vhost-path/p.txt', { 'x-amz-content-sha256': 'UNSIGNED-PAYLOAD' }) });
      expect(res.status, base).toBe(200);
      expect(res.body).toBe('path style');
    }
  });

  it('answers NoSuchBucket for a host naming an unknown bucket', async () => {
    const url = `http://vhost-none.s3.localhost:${port}/x`;
    const res = await requestVia(resolver.lookup, url, { headers: await signedHeaders('GET', new URL(url), '/x', { 'x-amz-content-sha256': 'UNSIGNED-PAYLOAD' }) });
    expect(res.status).toBe(404);
    expect(res.body).toContain('<Code>NoSuchBucket</Code>');
    expect(res.body).toContain('<BucketName>vhost-none</BucketName>');
  });
});
