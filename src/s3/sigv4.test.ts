import { createHash } from 'node:crypto';
import {
  DeleteObjectsCommand,
  GetObjectCommand,
  HeadObjectCommand,
  ListObjectsV2Command,
  PutObjectCommand,
} from '@aws-sdk/client-s3';
import { describe, expect, it } from 'vitest';
import {
  EMPTY_SHA256,
  hmacHex,
  sha256Hex,
  signingKeyFor,
  verifySigV4,
  type SignedRequestInfo,
} from './sigv4.js';
import { AKID, fails, NOW, request, sdkRequest, SECRET, secrets, signed, signer, withHeader, type Req } from '../../test/helpers/sigv4-fixtures.js';

describe('verifySigV4 against AWS documentation examples', () => {
  const AWS_ID = 'AKIAIOSFODNN7EXAMPLE';
  const awsSecrets = (id: string) => (id === AWS_ID ? 'wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY' : undefined);
  const at = new Date('2013-05-24T00:00:00Z');
  const auth = (signed: string, sig: string) =>
    `AWS4-HMAC-SHA256 Credential=${AWS_ID}/20130524/us-east-1/s3/aws4_request,SignedHeaders=${signed},Signature=${sig}`;
  const base = { 'x-amz-date': '20130524T000000Z', 'x-amz-content-sha256': EMPTY_SHA256 };

  it('GET Object with a range', () => {
    const headers = new Headers({
      ...base,
      host: 'examplebucket.s3.amazonaws.com',
      range: 'bytes=0-9',
      authorization: auth('host;range;x-amz-content-sha256;x-amz-date', 'f0e8bdb87c964420e857bd35b5d6ed310bd44f0170aba48dd91039c6036bdb41'),
    });
    const info = verifySigV4({ method: 'GET', url: 'https://examplebucket.s3.amazonaws.com/test.txt', headers }, awsSecrets, at);
    expect(info).toMatchObject({ accessKeyId: AWS_ID, region: 'us-east-1', scope: '20130524/us-east-1/s3/aws4_request', presigned: false });
    expect(info.signingKey.equals(signingKeyFor('wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY', '20130524', 'us-east-1'))).toBe(true);
  });

  it('PUT Object of test$file.text sent with a raw $ and a Date header', () => {
    const headers = new Headers({
      host: 'examplebucket.s3.amazonaws.com',
      date: 'Fri, 24 May 2013 00:00:00 GMT',
      'x-amz-date': '20130524T000000Z',
      'x-amz-storage-class': 'REDUCED_REDUNDANCY',
      'x-amz-content-sha256': '44ce7dd67c959e0d3524ffac1771dfbba87d2b6b4b4e99e42034a8b803f8b072',
      authorization: auth(
        'date;host;x-amz-content-sha256;x-amz-date;x-amz-storage-class',
        '98ad721746da40c64f1a55b78f14c238d841ea1380cd77a1b5971af0ece108bd',
      ),
    });
    const info = verifySigV4({ method: 'PUT', url: 'https://examplebucket.s3.amazonaws.com/test$file.text', headers }, awsSecrets, at);
    expect(info.payloadHash).toBe('44ce7dd67c959e0d3524ffac1771dfbba87d2b6b4b4e99e42034a8b803f8b072');
    const encoded = verifySigV4({ method: 'PUT', url: 'https://examplebucket.s3.amazonaws.com/test%24file.text', headers }, awsSecrets, at);
    expect(encoded.accessKeyId).toBe(AWS_ID);
  });

  it('GET Bucket lifecycle: a query parameter without "="', () => {
    const headers = new Headers({
      ...base,
      host: 'examplebucket.s3.amazonaws.com',
      authorization: auth('host;x-amz-content-sha256;x-amz-date', 'fea454ca298b7da1c68078a5d1bdbfbbe0d65c699e0f91ac7a200a0136783543'),
    });
    verifySigV4({ method: 'GET', url: 'https://examplebucket.s3.amazonaws.com/?lifecycle', headers }, awsSecrets, at);
  });

  it('GET Bucket (list objects) with sorted query parameters', () => {
    const headers = new Headers({
      ...base,
      host: 'examplebucket.s3.amazonaws.com',
      authorization: auth('host;x-amz-content-sha256;x-amz-date', '34b48302e7b5fa45bde8084f4b7868a86f0a534bc59db6670ed5711ef69dc6f7'),
    });
    verifySigV4({ method: 'GET', url: 'https://examplebucket.s3.amazonaws.com/?prefix=J&max-keys=2', headers }, awsSecrets, at);
  });

  it('the seed signature of the chunked PUT example', () => {
    const headers = new Headers({
      host: 's3.amazonaws.com',
      'content-encoding': 'aws-chunked',
      'content-length': '66824',
      'x-amz-date': '20130524T000000Z',
      'x-amz-storage-class': 'REDUCED_REDUNDANCY',
      'x-amz-decoded-content-length': '66560',
      'x-amz-content-sha256': 'STREAMING-AWS4-HMAC-SHA256-PAYLOAD',
      authorization: auth(
        'content-encoding;content-length;host;x-amz-content-sha256;x-amz-date;x-amz-decoded-content-length;x-amz-storage-class',
        '4f232c4386841ef735655705268965c44a0e4690baa4adea153f7db9fa80a0a9',
      ),
    });
    const info = verifySigV4({ method: 'PUT', url: 'http://s3.amazonaws.com/examplebucket/chunkObject.txt', headers }, awsSecrets, at);
    expect(info.payloadHash).toBe('STREAMING-AWS4-HMAC-SHA256-PAYLOAD');
    expect(info.signature).toBe('4f232c4386841ef735655705268965c44a0e4690baa4adea153f7db9fa80a0a9');
    expect(info.amzDate).toBe('20130524T000000Z');
  });

  it('the presigned GET example, valid for its 86400 seconds', () => {
    const url =
      'https://examplebucket.s3.amazonaws.com/test.txt?X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Credential=AKIAIOSFODNN7EXAMPLE%2F20130524%2Fus-east-1%2Fs3%2Faws4_request&X-Amz-Date=20130524T000000Z&X-Amz-Expires=86400&X-Amz-SignedHeaders=host&X-Amz-Signature=aeeed9bbccd4d02ee5c0109b86d86835f995330da4c265957d157751f604d404';
    const req = { method: 'GET', url, headers: new Headers({ host: 'examplebucket.s3.amazonaws.com' }) };
    const info = verifySigV4(req, awsSecrets, new Date(at.getTime() + 86_400_000));
    expect(info).toMatchObject({ presigned: true, payloadHash: 'UNSIGNED-PAYLOAD', region: 'us-east-1' });
    const late = fails(req, 'AccessDenied', new Date(at.getTime() + 86_401_000), awsSecrets);
    expect(late.message).toBe('Request has expired');
  });
});

describe('verifySigV4 with @aws-sdk/client-s3 requests', () => {
  const check = (req: Req): SignedRequestInfo => verifySigV4(req, secrets, new Date());

  it('ListObjectsV2 with a prefix and a delimiter', async () => {
    const req = await sdkRequest(new ListObjectsV2Command({ Bucket: 'bucket', Prefix: 'a/b c+d', Delimiter: '/', StartAfter: 'x~y' }));
    expect(req.url).toContain('prefix=a%2Fb%20c%2Bd');
    const info = check(req);
    expect(info).toMatchObject({ accessKeyId: AKID, region: 'auto', presigned: false, payloadHash: EMPTY_SHA256 });
    expect(info.scope).toMatch(/^\d{8}\/auto\/s3\/aws4_request$/);
  });

  it('PutObject of keys with spaces, unicode, + = ~ and sub-delimiters', async () => {
    for (const Key of ['a b', 'dir/ünï cødé/🙂.txt', 'a+b=c~d', "x!y*z'(1)", 'semi;colon:at@dollar$&amp', 'trailing/', '%41%']) {
      const req = await sdkRequest(new PutObjectCommand({ Bucket: 'bucket', Key, Body: 'hello' }));
      const info = check(req);
      expect(info.payloadHash).toBe(createHash('sha256').update('hello').digest('hex'));
    }
  });

  it('GetObject with a range and response overrides, HeadObject, DeleteObjects', async () => {
    check(await sdkRequest(new GetObjectCommand({ Bucket: 'b', Key: 'k/ey', Range: 'bytes=0-9', ResponseContentType: 'text/plain; charset=utf-8' })));
    check(await sdkRequest(new HeadObjectCommand({ Bucket: 'b', Key: 'k' })));
    check(await sdkRequest(new DeleteObjectsCommand({ Bucket: 'b', Delete: { Objects: [{ Key: 'a' }, { Key: 'b' }] } })));
  });

  it('region us-east-1 is accepted as well as auto', async () => {
    const info = check(await sdkRequest(new HeadObjectCommand({ Bucket: 'b', Key: 'k' }), 'us-east-1'));
    expect(info.region).toBe('us-east-1');
  });

  it('a streamed PutObject announces STREAMING-UNSIGNED-PAYLOAD-TRAILER', async () => {
    const { Readable } = await import('node:stream');
    const req = await sdkRequest(
      new PutObjectCommand({ Bucket: 'b', Key: 'k', Body: Readable.from([Buffer.from('hello')]), ContentLength: 5 }),
    );
    expect(check(req).payloadHash).toBe('STREAMING-UNSIGNED-PAYLOAD-TRAILER');
  });

  it('the same request after WHATWG URL normalisation still verifies', async () => {
    const req = await sdkRequest(new PutObjectCommand({ Bucket: 'bucket', Key: "a b/ü!'()*~", Body: 'x' }));
    check({ ...req, url: new URL(req.url).href });
    // a proxy that decoded the unreserved-safe characters back
    check({ ...req, url: req.url.replace('%21', '!').replace('%27', "'").replace('%28', '(') });
    check({ ...req, url: req.url.replace('%20', ' ') });
    // but a different key is a different request
    fails({ ...req, url: req.url.replace('%20', '%2B') }, 'SignatureDoesNotMatch', new Date());
  });

  it('an unknown key and a wrong secret', async () => {
    const unknown = await sdkRequest(new HeadObjectCommand({ Bucket: 'b', Key: 'k' }), 'auto', { accessKeyId: 'NOPE', secretAccessKey: SECRET });
    expect(fails(unknown, 'InvalidAccessKeyId', new Date()).message).toBe(
      'The AWS Access Key Id you provided does not exist in our records.',
    );
    const wrong = await sdkRequest(new HeadObjectCommand({ Bucket: 'b', Key: 'k' }), 'auto', { accessKeyId: AKID, secretAccessKey: 'other' });
    const err = fails(wrong, 'SignatureDoesNotMatch', new Date());
    expect(err.status).toBe(403);
    expect(err.message).toBe(
      'The request signature we calculated does not match the signature you provided. Check your key and signing method.',
    );
    expect(err.details.CanonicalRequest).toContain('HEAD\n/b/k\n');
  });
});

describe('verifySigV4 with @smithy/signature-v4 directly', () => {
  it('a parameter sent without "=" and repeated parameters', async () => {
    const req = await signed(request('POST', '/b/k', { uploads: '' }));
    verifySigV4({ ...req, url: req.url.replace('uploads=', 'uploads') }, secrets, NOW);
    const two = await signed(request('GET', '/b', { b: '2', a: '1', 'a-b': 'x', A: 'z' }));
    verifySigV4(two, secrets, NOW);
  });

  it('a literal + in the query, and + meaning a space', async () => {
    const plus = await signed(request('GET', '/b', { prefix: 'a+b' }));
    verifySigV4({ ...plus, url: plus.url.replace('a%2Bb', 'a+b') }, secrets, NOW);
    const space = await signed(request('GET', '/b', { prefix: 'a b' }));
    verifySigV4({ ...space, url: space.url.replace('a%20b', 'a+b') }, secrets, NOW);
  });

  it('tolerates whitespace in the Authorization header', async () => {
    const req = await signed(request('GET', '/b/k'));
    const a = req.headers.get('authorization')!;
    const spaced = a.replace('AWS4-HMAC-SHA256 ', 'AWS4-HMAC-SHA256   ').replace(/, /g, ' ,  ');
    verifySigV4(withHeader(req, 'authorization', spaced), secrets, NOW);
    verifySigV4(withHeader(req, 'authorization', a.replace(/, /g, ',')), secrets, NOW);
  });

  it('canonicalises header values (runs of spaces) and non-ASCII bytes either way', async () => {
    const req = await signed(request('PUT', '/b/k', {}, { 'x-amz-meta-note': 'a   b\t c' }));
    verifySigV4(req, secrets, NOW);
    // Node and Python clients send 'é' as the Latin-1 byte E9 but sign its UTF-8 form; Node hands the
    // server the Latin-1 text back, so hashing that text as UTF-8 matches.
    const node = await signed(request('PUT', '/b/k', {}, { 'x-amz-meta-note': 'café' }));
    verifySigV4(node, secrets, NOW);
    // A Go client sends (and signs) the raw UTF-8 bytes C3 A9, which the server sees as Latin-1 'Ã©'.
    verifySigV4(withHeader(node, 'x-amz-meta-note', Buffer.from('café', 'utf8').toString('latin1')), secrets, NOW);
    fails(withHeader(node, 'x-amz-meta-note', 'cafe'), 'SignatureDoesNotMatch');
  });

  it('host may come from the URL when the header is absent', async () => {
    const req = await signed(request('GET', '/b/k'));
    verifySigV4(withHeader(req, 'host', null), secrets, NOW);
  });

  it('accepts a Date header when x-amz-date is absent (the signer always adds x-amz-date, so by hand)', () => {
    const date = 'Mon, 23 Nov 2026 12:00:00 GMT';
    const canonical = [
      'GET',
      '/b/k',
      '',
      `date:${date}\nhost:127.0.0.1:9000\nx-amz-content-sha256:${EMPTY_SHA256}\n`,
      'date;host;x-amz-content-sha256',
      EMPTY_SHA256,
    ].join('\n');
    const scope = '20261123/auto/s3/aws4_request';
    const toSign = `AWS4-HMAC-SHA256\n20261123T120000Z\n${scope}\n${sha256Hex(canonical)}`;
    const signature = hmacHex(signingKeyFor(SECRET, '20261123', 'auto'), toSign);
    const headers = new Headers({
      date,
      host: '127.0.0.1:9000',
      'x-amz-content-sha256': EMPTY_SHA256,
      authorization: `AWS4-HMAC-SHA256 Credential=${AKID}/${scope}, SignedHeaders=date;host;x-amz-content-sha256, Signature=${signature}`,
    });
    const req = { method: 'GET', url: 'http://127.0.0.1:9000/b/k', headers };
    expect(verifySigV4(req, secrets, NOW).amzDate).toBe('20261123T120000Z');
    fails(withHeader(req, 'date', 'Mon, 23 Nov 2026 12:00:01 GMT'), 'SignatureDoesNotMatch');
    fails(withHeader(req, 'date', null), 'AccessDenied');
  });

  it('rejects every tampering with the right code', async () => {
    const req = await signed(request('GET', '/b/k', { 'list-type': '2' }, { range: 'bytes=0-1' }));
    verifySigV4(req, secrets, NOW);
    fails({ ...req, method: 'DELETE' }, 'SignatureDoesNotMatch');
    fails({ ...req, url: req.url.replace('/b/k', '/b/k2') }, 'SignatureDoesNotMatch');
    fails({ ...req, url: req.url.replace('/b/k', '/b/K') }, 'SignatureDoesNotMatch');
    fails({ ...req, url: `${req.url}&x=1` }, 'SignatureDoesNotMatch');
    fails({ ...req, url: req.url.replace('list-type=2', 'list-type=1') }, 'SignatureDoesNotMatch');
    fails(withHeader(req, 'range', 'bytes=0-2'), 'SignatureDoesNotMatch');
    fails(withHeader(req, 'host', 'evil.example'), 'SignatureDoesNotMatch');
    verifySigV4(withHeader(req, 'user-agent', 'not signed, not needed'), secrets, NOW);
    const unsigned = fails(withHeader(req, 'x-amz-meta-extra', '1'), 'AccessDenied');
    expect(unsigned.details.HeadersNotSigned).toBe('x-amz-meta-extra');
    fails(req, 'InvalidAccessKeyId', NOW, () => undefined);
    fails(req, 'SignatureDoesNotMatch', NOW, () => 'wrong secret');
  });

  it('clock skew: 15 minutes either way is fine, more is RequestTimeTooSkewed', async () => {
    const req = await signed(request('GET', '/b/k'));
    verifySigV4(req, secrets, new Date(NOW.getTime() + 15 * 60_000));
    verifySigV4(req, secrets, new Date(NOW.getTime() - 15 * 60_000));
    expect(fails(req, 'RequestTimeTooSkewed', new Date(NOW.getTime() + 15 * 60_000 + 1000)).status).toBe(403);
    fails(req, 'RequestTimeTooSkewed', new Date(NOW.getTime() - 16 * 60_000));
  });

  it('payload hash: required, and a known marker or a sha256', async () => {
    const req = await signed(request('GET', '/b/k'));
    const missing = fails(withHeader(req, 'x-amz-content-sha256', null), 'InvalidRequest');
    expect(missing.status).toBe(400);
    expect(missing.message).toBe('Missing required header for this request: x-amz-content-sha256');
    expect(fails(withHeader(req, 'x-amz-content-sha256', 'nonsense'), 'InvalidArgument').status).toBe(400);
    fails(withHeader(req, 'x-amz-content-sha256', EMPTY_SHA256.toUpperCase()), 'InvalidArgument');
    for (const marker of ['UNSIGNED-PAYLOAD', 'STREAMING-AWS4-HMAC-SHA256-PAYLOAD-TRAILER']) {
      const r = await signed(request('PUT', '/b/k', {}, { 'x-amz-content-sha256': marker }));
      expect(verifySigV4(r, secrets, NOW).payloadHash).toBe(marker);
    }
  });

  it('malformed or missing authorization', async () => {
    const req = await signed(request('GET', '/b/k'));
    const a = req.headers.get('authorization')!;
    expect(fails(withHeader(req, 'authorization', null), 'AccessDenied').status).toBe(403);
    expect(fails(withHeader(req, 'authorization', a.replace(/, Signature=\w+/, '')), 'AuthorizationHeaderMalformed').status).toBe(400);
    fails(withHeader(req, 'authorization', a.replace('/s3/', '/iam/')), 'AuthorizationHeaderMalformed');
    fails(withHeader(req, 'authorization', a.replace('/aws4_request', '/aws5_request')), 'AuthorizationHeaderMalformed');
    fails(withHeader(req, 'authorization', a.replace(/\/\d{8}\//, '/20261122/')), 'AuthorizationHeaderMalformed');
    fails(withHeader(req, 'authorization', a.replace(`${AKID}/`, '')), 'AuthorizationHeaderMalformed');
    fails(withHeader(req, 'authorization', 'AWS AKID:c2lnbmF0dXJl'), 'InvalidRequest');
    fails(withHeader(req, 'authorization', 'Bearer token'), 'InvalidArgument');
    fails(withHeader(req, 'x-amz-date', 'yesterday'), 'AccessDenied');
    const hostless = a.replace('host;', '');
    expect(fails(withHeader(req, 'authorization', hostless), 'AccessDenied').details.HeadersNotSigned).toBe('host');
    fails({ ...req, url: `${req.url}?X-Amz-Algorithm=AWS4-HMAC-SHA256` }, 'InvalidArgument');
  });
});
