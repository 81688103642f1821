/**
 * S3 key pairs of other holders than the test server's own: the pair derived from an API token (id, SHA-256
 * hex of the value, as production derives it), a client signing with it, a second user's R2 key, and
 * presigned URLs signed with any pair.
 */
import { createHash } from 'node:crypto';
import { SignatureV4 } from '@smithy/signature-v4';
import { buildQueryString } from '@smithy/core/protocols';
import type { S3Client, S3ClientConfig } from '@aws-sdk/client-s3';
import type Cloudflare from 'cloudflare';
import { NodeSha256 } from './node-sha256.js';
import { testS3Client } from './s3-sdk.js';

/** An access key pair. */
export interface KeyPair {
  accessKeyId: string;
  secretAccessKey: string;
}

/** Production's Workers R2 Storage Write group (account scope). */
export const R2_STORAGE_WRITE = 'bf7481a1826f439697cb59a20b22293e';

/** The S3 key pair of a token as `POST /user/tokens` returned it. */
export function tokenKeyPair(token: { id?: string; value?: string }): KeyPair {
  return { accessKeyId: token.id!, secretAccessKey: createHash('sha256').update(token.value!).digest('hex') };
}

/** A path-style client on `endpoint` signing with `keys`. */
export function clientWith(endpoint: string, keys: KeyPair, config: S3ClientConfig = {}): S3Client {
  return testS3Client(endpoint, { credentials: keys, ...config });
}

/** A user's token with Workers R2 Storage Write on `accountId`, as an S3 key pair. */
export async function r2WriteKeys(sdk: Cloudflare, accountId: string, name = 'r2 write'): Promise<KeyPair> {
  const token = await sdk.user.tokens.create({
    name, policies: [{ effect: 'allow', permission_groups: [{ id: R2_STORAGE_WRITE }], resources: { [`com.cloudflare.api.account.${accountId}`]: '*' } }],
  });
  return tokenKeyPair(token);
}

/** A presigned URL for `method` on `base` and raw `path`, signed with `keys`. */
export async function presignWith(keys: KeyPair, method: string, base: URL, path: string, expiresIn = 300): Promise<string> {
  const signer = new SignatureV4({ service: 's3', region: 'auto', uriEscapePath: false, applyChecksum: false, sha256: NodeSha256, credentials: keys });
  const signed = await signer.presign({
    method, protocol: base.protocol, hostname: base.hostname, port: Number(base.port), path, query: {},
    headers: { host: base.host, 'x-amz-content-sha256': 'UNSIGNED-PAYLOAD' },
  }, { expiresIn });
  return `${base.origin}${signed.path}?${buildQueryString(signed.query ?? {})}`;
}
