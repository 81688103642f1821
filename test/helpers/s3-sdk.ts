/** @aws-sdk/client-s3 against a test server: a client with the test key pair, and the S3 error a command fails with. */
import { S3Client, S3ServiceException, type S3ClientConfig } from '@aws-sdk/client-s3';
import { TEST_S3_ACCESS_KEY_ID, TEST_S3_SECRET } from './server.js';

/** A path-style client on `endpoint` (no retries); `config` overrides (e.g. `forcePathStyle: false`). */
export function testS3Client(endpoint: string, config: S3ClientConfig = {}): S3Client {
  return new S3Client({
    endpoint, region: 'auto', forcePathStyle: true, maxAttempts: 1,
    credentials: { accessKeyId: TEST_S3_ACCESS_KEY_ID, secretAccessKey: TEST_S3_SECRET },
    ...config,
  });
}

/** The S3 error a command fails with (code and HTTP status); throws when it succeeds or fails otherwise. */
export async function s3Failure(p: Promise<unknown>): Promise<{ name: string; status: number | undefined }> {
  try {
    await p;
  } catch (err) {
    if (err instanceof S3ServiceException) return { name: err.name, status: err.$metadata.httpStatusCode };
    throw err;
  }
  throw new Error('expected the command to fail');
}
