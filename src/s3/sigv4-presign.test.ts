import type { HttpRequest } from '@smithy/types';
import { describe, expect, it } from 'vitest';
import { verifySigV4 } from './sigv4.js';
import { fails, NOW, secrets, signer, toReq, withHeader, type Req } from '../../test/helpers/sigv4-fixtures.js';

describe('verifySigV4 with presigned URLs', () => {
  /** What `@aws-sdk/s3-request-presigner` does before calling `SignatureV4.presign`. */
  async function presign(r: HttpRequest, expiresIn = 3600, s = signer()): Promise<Req> {
    r.headers['x-amz-content-sha256'] = 'UNSIGNED-PAYLOAD';
    const out = (await s.presign(r, { signingDate: NOW, expiresIn })) as HttpRequest;
    return toReq(out);
  }
  const bare = (path: string, query: Record<string, string> = {}, headers: Record<string, string> = {}): HttpRequest => ({
    method: 'GET',
    protocol: 'http:',
    hostname: '127.0.0.1',
    port: 9000,
    path,
    query,
    headers: { host: '127.0.0.1:9000', ...headers },
  });

  it('a presigned GET and PUT verify within their lifetime', async () => {
    const get = await presign(bare('/bucket/a%20b/%C3%BC', { 'x-id': 'GetObject', 'response-content-disposition': 'attachment; filename="a b"' }));
    expect(get.url).toContain('X-Amz-Signature=');
    const info = verifySigV4({ ...get, headers: new Headers({ host: '127.0.0.1:9000' }) }, secrets, new Date(NOW.getTime() + 3_600_000));
    expect(info).toMatchObject({ presigned: true, payloadHash: 'UNSIGNED-PAYLOAD', region: 'auto', signedHeaders: ['host'] });
    const put = await presign({ ...bare('/bucket/k', { 'x-id': 'PutObject' }, { 'x-amz-meta-a': 'b' }), method: 'PUT' });
    expect(put.url).toContain('x-amz-meta-a=b');
    verifySigV4(put, secrets, NOW);
  });

  it('SSE-C headers stay signed headers', async () => {
    const s = signer();
    const r = bare('/b/k', {}, { 'x-amz-server-side-encryption-customer-algorithm': 'AES256' });
    r.headers['x-amz-content-sha256'] = 'UNSIGNED-PAYLOAD';
    const out = toReq(
      (await s.presign(r, { signingDate: NOW, unhoistableHeaders: new Set(['x-amz-server-side-encryption-customer-algorithm']) })) as HttpRequest,
    );
    expect(verifySigV4(out, secrets, NOW).signedHeaders).toContain('x-amz-server-side-encryption-customer-algorithm');
    fails(withHeader(out, 'x-amz-server-side-encryption-customer-algorithm', null), 'SignatureDoesNotMatch');
  });

  it('expiry, future dates and bad parameters', async () => {
    const req = await presign(bare('/b/k'), 60);
    verifySigV4(req, secrets, new Date(NOW.getTime() + 60_000));
    expect(fails(req, 'AccessDenied', new Date(NOW.getTime() + 61_000)).message).toBe('Request has expired');
    expect(fails(req, 'AccessDenied', new Date(NOW.getTime() - 16 * 60_000)).message).toBe('Request is not valid yet');
    const week = await presign(bare('/b/k'), 604_800);
    verifySigV4(week, secrets, new Date(NOW.getTime() + 604_800_000));
    const tooLong = { ...week, url: week.url.replace('X-Amz-Expires=604800', 'X-Amz-Expires=604801') };
    expect(fails(tooLong, 'AuthorizationQueryParametersError').status).toBe(400);
    fails({ ...week, url: week.url.replace('X-Amz-Expires=604800', 'X-Amz-Expires=0') }, 'AuthorizationQueryParametersError');
    fails({ ...week, url: week.url.replace('X-Amz-Expires=604800', 'X-Amz-Expires=soon') }, 'AuthorizationQueryParametersError');
    fails({ ...req, url: req.url.replace(/&?X-Amz-Date=[^&]*/, '') }, 'AuthorizationQueryParametersError');
    fails({ ...req, url: req.url.replace('X-Amz-Algorithm=AWS4-HMAC-SHA256', 'X-Amz-Algorithm=AWS4-HMAC-SHA1') }, 'AuthorizationQueryParametersError');
    fails({ ...req, url: req.url.replace('%2Fs3%2F', '%2Fsqs%2F') }, 'AuthorizationQueryParametersError');
  });

  it('tampering: path, query, method, signature, unknown key, unsigned x-amz header', async () => {
    const req = await presign(bare('/b/k', { 'x-id': 'GetObject' }));
    verifySigV4(req, secrets, NOW);
    fails({ ...req, url: req.url.replace('/b/k', '/b/j') }, 'SignatureDoesNotMatch');
    fails({ ...req, url: `${req.url}&extra=1` }, 'SignatureDoesNotMatch');
    fails({ ...req, url: req.url.replace('X-Amz-Expires=3600', 'X-Amz-Expires=7200') }, 'SignatureDoesNotMatch');
    fails({ ...req, method: 'PUT' }, 'SignatureDoesNotMatch');
    fails({ ...req, url: req.url.replace(/X-Amz-Signature=\w/, 'X-Amz-Signature=0') }, 'SignatureDoesNotMatch');
    fails(req, 'InvalidAccessKeyId', NOW, () => undefined);
    fails(withHeader(req, 'x-amz-acl', 'public-read'), 'AccessDenied');
    fails({ ...req, url: req.url.replace(/X-Amz-Algorithm=[^&]*&?/, '') }, 'AuthorizationQueryParametersError');
  });

  it('SigV2 query authentication is not supported', () => {
    const url = 'http://127.0.0.1:9000/b/k?AWSAccessKeyId=AKID&Expires=1&Signature=abc';
    fails({ method: 'GET', url, headers: new Headers() }, 'InvalidRequest');
  });
});
