/**
 * Bucket CORS against a real Stratus: Put/Get/DeleteBucketCors with @aws-sdk/client-s3, validation errors,
 * unauthenticated preflights with fetch (match, no match, wildcard origins, disallowed headers and methods),
 * and the CORS headers of actual answers, errors included.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHash } from 'node:crypto';
import {
  CreateBucketCommand, DeleteBucketCorsCommand, GetBucketCorsCommand, PutBucketCorsCommand, PutObjectCommand, type S3Client,
  type CORSRule,
} from '@aws-sdk/client-s3';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { s3Failure, testS3Client } from '../helpers/s3-sdk.js';
import { signedHeaders } from '../helpers/s3-sign.js';

let server: TestServer;
let base: URL;
let s3: S3Client;

const failure = s3Failure;

const RULES: CORSRule[] = [
  { ID: 'uploads', AllowedOrigins: ['https://app.example.org'], AllowedMethods: ['PUT', 'POST'], AllowedHeaders: ['content-type', 'x-amz-*'], ExposeHeaders: ['ETag'], MaxAgeSeconds: 600 },
  { AllowedOrigins: ['https://*.example.com'], AllowedMethods: ['GET', 'HEAD'], ExposeHeaders: ['ETag', 'x-amz-request-id'] },
  { AllowedOrigins: ['*'], AllowedMethods: ['DELETE'] },
];

/** An unauthenticated preflight. */
function preflight(path: string, headers: Record<string, string>): Promise<Response> {
  return fetch(`${base.origin}${path}`, { method: 'OPTIONS', headers });
}

/** A signed request (the body's SHA-256 signed) with extra headers such as Origin. */
async function signed(method: string, path: string, headers: Record<string, string> = {}, body = ''): Promise<Response> {
  const hash = createHash('sha256').update(body).digest('hex');
  const all = await signedHeaders(method, base, path, { 'x-amz-content-sha256': hash, ...headers });
  return fetch(`${base.origin}${path}`, { method, headers: all, ...(body ? { body } : {}) });
}

beforeAll(async () => {
  server = await startTestServer();
  base = new URL(server.running.s3Url!);
  s3 = testS3Client(server.running.s3Url!);
  await s3.send(new CreateBucketCommand({ Bucket: 'cors-site' }));
  await s3.send(new CreateBucketCommand({ Bucket: 'cors-none' }));
  await s3.send(new PutBucketCorsCommand({ Bucket: 'cors-site', CORSConfiguration: { CORSRules: RULES } }));
  await s3.send(new PutObjectCommand({ Bucket: 'cors-site', Key: 'page.html', Body: '<p>hi</p>' }));
});

afterAll(async () => {
  s3?.destroy();
  await server?.stop();
});

describe('Put/Get/DeleteBucketCors', () => {
  it('round-trips the rules with the SDK, then deletes them', async () => {
    await s3.send(new CreateBucketCommand({ Bucket: 'cors-trip' }));
    expect(await failure(s3.send(new GetBucketCorsCommand({ Bucket: 'cors-trip' })))).toEqual({ name: 'NoSuchCORSConfiguration', status: 404 });
    await s3.send(new PutBucketCorsCommand({ Bucket: 'cors-trip', CORSConfiguration: { CORSRules: RULES } }));
    const got = await s3.send(new GetBucketCorsCommand({ Bucket: 'cors-trip' }));
    expect(got.CORSRules).toEqual([
      RULES[0],
      { ...RULES[1], AllowedHeaders: undefined },
      { ...RULES[2], AllowedHeaders: undefined, ExposeHeaders: undefined },
    ].map((r) => JSON.parse(JSON.stringify(r))));
    await s3.send(new DeleteBucketCorsCommand({ Bucket: 'cors-trip' }));
    expect(await failure(s3.send(new GetBucketCorsCommand({ Bucket: 'cors-trip' })))).toEqual({ name: 'NoSuchCORSConfiguration', status: 404 });
    await s3.send(new DeleteBucketCorsCommand({ Bucket: 'cors-trip' }));
    expect(await failure(s3.send(new GetBucketCorsCommand({ Bucket: 'cors-nope' })))).toEqual({ name: 'NoSuchBucket', status: 404 });
    expect(await failure(s3.send(new PutBucketCorsCommand({ Bucket: 'cors-nope', CORSConfiguration: { CORSRules: RULES } })))).toEqual({ name: 'NoSuchBucket', status: 404 });
  });

  it('refuses invalid rules with S3 errors and keeps the previous ones', async () => {
    const put = (rule: CORSRule) => failure(s3.send(new PutBucketCorsCommand({ Bucket: 'cors-site', CORSConfiguration: { CORSRules: [rule] } })));
    expect(await put({ AllowedOrigins: ['*'], AllowedMethods: ['PATCH'] })).toEqual({ name: 'InvalidRequest', status: 400 });
    expect(await put({ AllowedOrigins: ['https://*.*.example.com'], AllowedMethods: ['GET'] })).toEqual({ name: 'InvalidRequest', status: 400 });
    expect(await put({ AllowedOrigins: ['*'], AllowedMethods: ['GET'], ExposeHeaders: ['*'] })).toEqual({ name: 'InvalidRequest', status: 400 });
    expect(await put({ AllowedOrigins: ['*'], AllowedMethods: [] })).toEqual({ name: 'MalformedXML', status: 400 });
    const malformed = await signed('PUT', '/cors-site?cors', {}, '<CORSConfiguration><CORSRule>');
    expect(malformed.status).toBe(400);
    expect(await malformed.text()).toContain('<Code>MalformedXML</Code>');
    const body = '<CORSConfiguration><CORSRule><AllowedOrigin>*</AllowedOrigin><AllowedMethod>GET</AllowedMethod></CORSRule></CORSConfiguration>';
    const wrongMd5 = await signed('PUT', '/cors-site?cors', { 'content-md5': createHash('md5').update('other').digest('base64') }, body);
    expect(wrongMd5.status).toBe(400);
    expect(await wrongMd5.text()).toContain('<Code>BadDigest</Code>');
    const methodText = await (await signed('PUT', '/cors-site?cors', {}, body.replace('GET', 'PATCH'))).text();
    expect(methodText).toContain('<Message>Found unsupported HTTP method in CORS config. Unsupported method is PATCH</Message>');
    expect((await s3.send(new GetBucketCorsCommand({ Bucket: 'cors-site' }))).CORSRules).toHaveLength(3);
  });
});

describe('preflight (OPTIONS, no signature)', () => {
  it('allows a matching origin, method and headers', async () => {
    const res = await preflight('/cors-site/upload.bin', {
      origin: 'https://app.example.org', 'access-control-request-method': 'PUT', 'access-control-request-headers': 'Content-Type, X-Amz-Date',
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('access-control-allow-origin')).toBe('https://app.example.org');
    expect(res.headers.get('access-control-allow-methods')).toBe('PUT, POST');
    expect(res.headers.get('access-control-allow-headers')).toBe('content-type, x-amz-date');
    expect(res.headers.get('access-control-max-age')).toBe('600');
    expect(res.headers.get('access-control-expose-headers')).toBe('ETag');
    expect(res.headers.get('access-control-allow-credentials')).toBe('true');
    expect(res.headers.get('vary')).toContain('Origin');
    expect(res.headers.get('x-amz-request-id')).toBeTruthy();
  });

  it('matches a wildcard inside an origin, and * for any origin', async () => {
    const sub = await preflight('/cors-site/page.html', { origin: 'https://shop.example.com', 'access-control-request-method': 'GET' });
    expect(sub.status).toBe(200);
    expect(sub.headers.get('access-control-allow-origin')).toBe('https://shop.example.com');
    const apex = await preflight('/cors-site/page.html', { origin: 'https://example.com', 'access-control-request-method': 'GET' });
    expect(apex.status).toBe(403);
    const any = await preflight('/cors-site', { origin: 'http://localhost:3000', 'access-control-request-method': 'DELETE' });
    expect(any.status).toBe(200);
    expect(any.headers.get('access-control-allow-origin')).toBe('*');
    expect(any.headers.get('access-control-allow-credentials')).toBeNull();
  });

  it('refuses what no rule allows: another origin, method or a header not allowed', async () => {
    for (const headers of <Record<string, string>[]>[
      { origin: 'https://evil.example.net', 'access-control-request-method': 'PUT' },
      { origin: 'https://app.example.org', 'access-control-request-method': 'GET' },
      { origin: 'https://app.example.org', 'access-control-request-method': 'PUT', 'access-control-request-headers': 'content-type, authorization' },
      { origin: 'https://shop.example.com', 'access-control-request-method': 'GET', 'access-control-request-headers': 'range' },
    ]) {
      const res = await preflight('/cors-site/page.html', headers);
      expect(res.status, JSON.stringify(headers)).toBe(403);
      expect(res.headers.get('access-control-allow-origin')).toBeNull();
      const text = await res.text();
      expect(text).toContain('<Code>AccessForbidden</Code>');
      expect(text).toContain('<Message>CORSResponse: This CORS request is not allowed.');
      expect(text).toContain('<ResourceType>OBJECT</ResourceType>');
    }
  });

  it('answers S3 errors for incomplete preflights, buckets without rules and unknown buckets', async () => {
    const noOrigin = await preflight('/cors-site/x', { 'access-control-request-method': 'GET' });
    expect(noOrigin.status).toBe(400);
    expect(await noOrigin.text()).toContain('<Message>Insufficient information. Origin request header needed.</Message>');
    const badMethod = await preflight('/cors-site/x', { origin: 'https://a.example.com', 'access-control-request-method': 'PATCH' });
    expect(badMethod.status).toBe(400);
    expect(await badMethod.text()).toContain('<Message>Invalid Access-Control-Request-Method: PATCH</Message>');
    const disabled = await preflight('/cors-none', { origin: 'https://a.example.com', 'access-control-request-method': 'GET' });
    expect(disabled.status).toBe(403);
    expect(await disabled.text()).toContain('<Message>CORSResponse: CORS is not enabled for this bucket.</Message>');
    const unknown = await preflight('/cors-unknown/x', { origin: 'https://a.example.com', 'access-control-request-method': 'GET' });
    expect(unknown.status).toBe(404);
    expect(await unknown.text()).toContain('<Code>NoSuchBucket</Code>');
  });
});

describe('CORS headers on actual answers', () => {
  it('adds the matching rule\'s headers to a success and to errors, and only Vary otherwise', async () => {
    const origin = { origin: 'https://shop.example.com' };
    const ok = await signed('GET', '/cors-site/page.html', origin);
    expect(ok.status).toBe(200);
    expect(ok.headers.get('access-control-allow-origin')).toBe('https://shop.example.com');
    expect(ok.headers.get('access-control-expose-headers')).toBe('ETag, x-amz-request-id');
    expect(ok.headers.get('vary')).toContain('Origin');
    const missing = await signed('GET', '/cors-site/missing.html', origin);
    expect(missing.status).toBe(404);
    expect(missing.headers.get('access-control-allow-origin')).toBe('https://shop.example.com');
    const anonymous = await fetch(`${base.origin}/cors-site/page.html`, { headers: origin });
    expect(anonymous.status).toBe(403);
    expect(anonymous.headers.get('access-control-allow-origin')).toBe('https://shop.example.com');
    const otherOrigin = await signed('GET', '/cors-site/page.html', { origin: 'https://evil.example.net' });
    expect(otherOrigin.status).toBe(200);
    expect(otherOrigin.headers.get('access-control-allow-origin')).toBeNull();
    expect(otherOrigin.headers.get('vary')).toContain('Origin');
    const otherMethod = await signed('PUT', '/cors-site/new.txt', origin, 'x');
    expect(otherMethod.status).toBe(200);
    expect(otherMethod.headers.get('access-control-allow-origin')).toBeNull();
    const noOrigin = await signed('GET', '/cors-site/page.html');
    expect(noOrigin.headers.get('access-control-allow-origin')).toBeNull();
    expect(noOrigin.headers.get('vary')).toBeNull();
    const noRules = await signed('GET', '/cors-none', origin);
    expect(noRules.headers.get('access-control-allow-origin')).toBeNull();
  });
});
