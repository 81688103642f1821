/**
 * Lifecycle rules over S3 on PostgreSQL-backed bucket metadata: two Stratus nodes share a database; a
 * configuration put over S3 on one node reads back as sent on the other (S3 and the v4 route), and a delete on
 * one is seen by both. A bucket holding only an upload is refused on either node with the upload counted.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import {
  CreateBucketCommand, CreateMultipartUploadCommand, DeleteBucketCommand, DeleteBucketLifecycleCommand, GetBucketLifecycleConfigurationCommand,
  PutBucketLifecycleConfigurationCommand, S3ServiceException, type LifecycleRule, type S3Client,
} from '@aws-sdk/client-s3';
import type { TestServer } from '../helpers/server.js';
import { startS3NodePair, type S3NodePair } from '../helpers/s3-node-pair.js';
import { accountId } from '../helpers/api.js';
import { s3Failure } from '../helpers/s3-sdk.js';

let pair: S3NodePair;
let x: TestServer;
let y: TestServer;
let sx: S3Client;
let sy: S3Client;

beforeAll(async () => {
  pair = await startS3NodePair('s3lifecycle');
  ({ x, y, sx, sy } = pair);
});

afterAll(async () => {
  await pair?.stop();
});

it('keeps lifecycle rules put over S3 in PostgreSQL, read back as sent by every node', async () => {
  await sx.send(new CreateBucketCommand({ Bucket: 'pg-lifecycle' }));
  const rules: LifecycleRule[] = [
    { ID: 'expire', Status: 'Enabled', Filter: {}, Expiration: { Days: 1 } },
    { ID: 'logs', Status: 'Enabled', Filter: { And: { Prefix: 'logs/', ObjectSizeGreaterThan: 0 } }, Transitions: [{ Days: 30, StorageClass: 'STANDARD_IA' }] },
  ];
  await sx.send(new PutBucketLifecycleConfigurationCommand({ Bucket: 'pg-lifecycle', TransitionDefaultMinimumObjectSize: 'varies_by_storage_class', LifecycleConfiguration: { Rules: rules } }));
  const got = await sy.send(new GetBucketLifecycleConfigurationCommand({ Bucket: 'pg-lifecycle' }));
  expect([got.Rules, got.TransitionDefaultMinimumObjectSize]).toEqual([rules, 'varies_by_storage_class']);
  const account = await accountId(y);
  expect((await y.sdk().r2.buckets.lifecycle.get('pg-lifecycle', { account_id: account })).rules!.map((r) => r.id)).toEqual(['expire', 'logs']);
  await sy.send(new DeleteBucketLifecycleCommand({ Bucket: 'pg-lifecycle' }));
  expect(await s3Failure(sx.send(new GetBucketLifecycleConfigurationCommand({ Bucket: 'pg-lifecycle' })))).toEqual({ name: 'NoSuchLifecycleConfiguration', status: 404 });
});

it('refuses on either node to delete a bucket holding only an upload, counting it', async () => {
  await sx.send(new CreateBucketCommand({ Bucket: 'pg-uploads' }));
  await sx.send(new CreateMultipartUploadCommand({ Bucket: 'pg-uploads', Key: 'left.bin' }));
  for (const s3 of [sx, sy]) {
    const err = await s3.send(new DeleteBucketCommand({ Bucket: 'pg-uploads' })).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(S3ServiceException);
    expect((err as S3ServiceException).name).toBe('BucketNotEmpty');
    expect((err as S3ServiceException).message).toContain('It holds no objects but 1 multipart upload in progress');
  }
});
