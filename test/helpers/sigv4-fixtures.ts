/**
 * Shared fixtures of the SigV4 tests: a key pair, a fixed clock, requests signed by the SDK's own signer
 * (`@smithy/signature-v4`) or captured from `@aws-sdk/client-s3`, and a check that verification fails with a code.
 */
import { S3Client } from '@aws-sdk/client-s3';
import { buildQueryString } from '@smithy/core/protocols';
import { SignatureV4 } from '@smithy/signature-v4';
import type { HttpRequest } from '@smithy/types';
import { expect } from 'vitest';
import { EMPTY_SHA256, S3AuthError, verifySigV4 } from '../../src/s3/sigv4.js';
import { NodeSha256 } from './node-sha256.js';

export const AKID = 'AKIDSTRATUS';
export const SECRET = 'stratus/secret+key';
export const secrets = (id: string): string | undefined => (id === AKID ? SECRET : undefined);
export const NOW = new Date('2026-11-23T12:00:00Z');

export type Req = { method: string; url: string; headers: Headers };

export function toReq(r: HttpRequest): Req {
  const qs = buildQueryString(r.query ?? {});
  const url = `${r.protocol}//${r.hostname}${r.port ? `:${r.port}` : ''}${r.path}${qs ? `?${qs}` : ''}`;
  const headers = new Headers();
  for (const [k, v] of Object.entries(r.headers)) headers.set(k, v);
  return { method: r.method, url, headers };
}

/** A request exactly as `@aws-sdk/client-s3` would put it on the wire (captured before sending). */
export async function sdkRequest(command: unknown, region = 'auto', credentials = { accessKeyId: AKID, secretAccessKey: SECRET }) {
  let captured: HttpRequest | undefined;
  const client = new S3Client({
    region,
    endpoint: 'http://127.0.0.1:9000',
    forcePathStyle: true,
    credentials,
    maxAttempts: 1,
    requestHandler: {
      handle: async (req: HttpRequest) => {
        captured = req;
        throw new Error('captured');
      },
    } as never,
  });
  await client.send(command as never).catch((e: Error) => {
    if (e.message !== 'captured') throw e;
  });
  return toReq(captured!);
}

export const signer = (secretAccessKey = SECRET, accessKeyId = AKID) =>
  new SignatureV4({
    service: 's3',
    region: 'auto',
    uriEscapePath: false,
    applyChecksum: false,
    sha256: NodeSha256,
    credentials: { accessKeyId, secretAccessKey },
  });

export function request(method: string, path: string, query: Record<string, string> = {}, headers: Record<string, string> = {}): HttpRequest {
  return {
    method,
    protocol: 'http:',
    hostname: '127.0.0.1',
    port: 9000,
    path,
    query,
    headers: { host: '127.0.0.1:9000', 'x-amz-content-sha256': EMPTY_SHA256, ...headers },
  };
}

export async function signed(r: HttpRequest, signingDate = NOW, s = signer()): Promise<Req> {
  return toReq((await s.sign(r, { signingDate })) as HttpRequest);
}

export function fails(req: Req, code: string, now = NOW, lookup: (id: string) => string | undefined = secrets): S3AuthError {
  try {
    verifySigV4(req, lookup, now);
  } catch (e) {
    expect(e).toBeInstanceOf(S3AuthError);
    expect((e as S3AuthError).code).toBe(code);
    return e as S3AuthError;
  }
  throw new Error(`expected ${code}`);
}

export const withHeader = (req: Req, name: string, value: string | null): Req => {
  const headers = new Headers(req.headers);
  if (value === null) headers.delete(name);
  else headers.set(name, value);
  return { ...req, headers };
};
