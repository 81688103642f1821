/**
 * SigV4 for hand-made S3 requests in integration tests, signed as @aws-sdk/client-s3 signs (`uriEscapePath:
 * false`, no checksum) with the test server's key: headers for a request, or a presigned URL as
 * @aws-sdk/s3-request-presigner makes it (UNSIGNED-PAYLOAD).
 */
import { SignatureV4 } from '@smithy/signature-v4';
import { buildQueryString } from '@smithy/core/protocols';
import { NodeSha256 } from './node-sha256.js';
import { TEST_S3_ACCESS_KEY_ID, TEST_S3_SECRET } from './server.js';

function testSigner(): SignatureV4 {
  return new SignatureV4({
    service: 's3', region: 'auto', uriEscapePath: false, applyChecksum: false, sha256: NodeSha256,
    credentials: { accessKeyId: TEST_S3_ACCESS_KEY_ID, secretAccessKey: TEST_S3_SECRET },
  });
}

/** `a=1&b` as the signer's query object (values decoded). */
function queryOf(search: string): Record<string, string> {
  return Object.fromEntries(new URLSearchParams(search));
}

/**
 * The headers of a request to `base` (scheme, host and port) and raw `target` (path, possibly with `?query`),
 * signed; `host` is among them.
 */
export async function signedHeaders(method: string, base: URL, target: string, headers: Record<string, string> = {}): Promise<Record<string, string>> {
  const q = target.indexOf('?');
  const signed = await testSigner().sign({
    method, protocol: base.protocol, hostname: base.hostname, port: Number(base.port),
    path: q < 0 ? target : target.slice(0, q), query: q < 0 ? {} : queryOf(target.slice(q + 1)),
    headers: { host: base.host, ...headers },
  });
  return signed.headers;
}

/** A presigned URL for `method` on `base` and raw `path`. */
export async function presignedUrl(method: string, base: URL, path: string, expiresIn = 300, signingDate = new Date()): Promise<string> {
  const signed = await testSigner().presign({
    method, protocol: base.protocol, hostname: base.hostname, port: Number(base.port), path, query: {},
    headers: { host: base.host, 'x-amz-content-sha256': 'UNSIGNED-PAYLOAD' },
  }, { expiresIn, signingDate });
  return `${base.origin}${signed.path}?${buildQueryString(signed.query ?? {})}`;
}
