/**
 * The S3 calls Terraform's AWS provider (5.100) makes for `test/s3/terraform.test.ts`'s configuration, in its
 * order, driven with @aws-sdk/client-s3 so they are checked on every machine (that test needs terraform and the
 * provider). Recorded from the provider against Stratus: apply creates the bucket and reads its subresources
 * (CORS and versioning answered, the ones Stratus lacks `NotImplemented`, which the provider tolerates), puts
 * CORS and reads it back, puts the object, puts the lifecycle rules with an empty `<Filter/>` and
 * `x-amz-transition-default-minimum-object-size` then reads them until ten reads in a row equal what it sent,
 * copies the object naming the source as Go's `url.QueryEscape("bucket/key")`; plan reads everything again;
 * destroy deletes CORS and lifecycle rules (then reads until not found), the objects, then the bucket
 * (`force_destroy` empties it first, and retries `BucketNotEmpty` until its timeout: the refusal says what is
 * left).
 */
import {
  AbortMultipartUploadCommand, CopyObjectCommand, CreateBucketCommand, CreateMultipartUploadCommand, DeleteBucketCommand, DeleteBucketCorsCommand,
  DeleteBucketLifecycleCommand, DeleteObjectCommand, DeleteObjectsCommand, GetBucketCorsCommand, GetBucketLifecycleConfigurationCommand,
  GetBucketVersioningCommand, GetObjectCommand, GetObjectTaggingCommand, HeadBucketCommand, HeadObjectCommand, ListMultipartUploadsCommand,
  ListObjectVersionsCommand, PutBucketCorsCommand, PutBucketLifecycleConfigurationCommand, PutObjectCommand, S3ServiceException, type LifecycleRule, type S3Client,
} from '@aws-sdk/client-s3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { s3Failure, testS3Client } from '../helpers/s3-sdk.js';

const B = 'tf-seq';
const KEY = 'dir/hello world+1.txt';
/** Go's url.QueryEscape (the provider's encoding of `aws_s3_object_copy.source`). */
const goQueryEscape = (s: string): string => encodeURIComponent(s).replace(/%20/g, '+').replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
/** The rules as the provider expands the configuration's blocks. */
const RULES: LifecycleRule[] = [
  { ID: 'expire-bucket', Status: 'Enabled', Filter: {}, Expiration: { Days: 1 } },
  { ID: 'abort-multipart-upload', Status: 'Enabled', Filter: {}, AbortIncompleteMultipartUpload: { DaysAfterInitiation: 1 } },
  { ID: 'logs-to-ia', Status: 'Enabled', Filter: { Prefix: 'logs/' }, Transitions: [{ Days: 30, StorageClass: 'STANDARD_IA' }] },
];

/** The code of a refused call (the provider reads past NotImplemented and the NoSuch… of absent configuration). */
async function code(p: Promise<unknown>): Promise<string> {
  return (await s3Failure(p)).name;
}

describe("Terraform's sequence of S3 calls", () => {
  let server: TestServer;
  let s3: S3Client;

  beforeAll(async () => {
    server = await startTestServer();
    s3 = testS3Client(server.running.s3Url!);
  });
  afterAll(async () => { await server?.stop(); });

  /** What `terraform plan` (and apply's refresh) reads: the same answers every time. */
  async function refresh(): Promise<void> {
    await s3.send(new HeadBucketCommand({ Bucket: B }));
    expect((await s3.send(new GetBucketCorsCommand({ Bucket: B }))).CORSRules).toEqual([{ AllowedMethods: ['GET'], AllowedOrigins: ['*'], MaxAgeSeconds: 0 }]);
    expect((await s3.send(new GetBucketVersioningCommand({ Bucket: B }))).Status).toBeUndefined();
    const lifecycle = await s3.send(new GetBucketLifecycleConfigurationCommand({ Bucket: B }));
    expect(lifecycle.Rules).toEqual(RULES);
    expect(lifecycle.TransitionDefaultMinimumObjectSize).toBe('all_storage_classes_128K');
    for (const key of [KEY, 'copy of hello.txt']) {
      expect(await s3.send(new HeadObjectCommand({ Bucket: B, Key: key }))).toMatchObject({ ContentType: 'text/plain', ContentLength: 20 });
      expect((await s3.send(new GetObjectTaggingCommand({ Bucket: B, Key: key }))).TagSet).toEqual([]);
    }
  }

  it('apply, plan and destroy, call by call', async () => {
    // apply: aws_s3_bucket
    expect(await s3Failure(s3.send(new HeadBucketCommand({ Bucket: B })))).toMatchObject({ status: 404 });
    await s3.send(new CreateBucketCommand({ Bucket: B }));
    await s3.send(new HeadBucketCommand({ Bucket: B }));
    expect(await code(s3.send(new GetBucketCorsCommand({ Bucket: B })))).toBe('NoSuchCORSConfiguration');
    // A new bucket reads production's default rule.
    expect((await s3.send(new GetBucketLifecycleConfigurationCommand({ Bucket: B }))).Rules!.map((r) => r.ID)).toEqual(['Default Multipart Abort Rule']);
    // aws_s3_bucket_cors_configuration
    await s3.send(new PutBucketCorsCommand({ Bucket: B, CORSConfiguration: { CORSRules: [{ AllowedMethods: ['GET'], AllowedOrigins: ['*'], MaxAgeSeconds: 0 }] } }));
    // aws_s3_object
    await s3.send(new PutObjectCommand({ Bucket: B, Key: KEY, Body: 'hello from terraform', ContentType: 'text/plain' }));
    // aws_s3_bucket_lifecycle_configuration: put, then read until ten answers in a row equal the rules sent.
    await s3.send(new PutBucketLifecycleConfigurationCommand({ Bucket: B, TransitionDefaultMinimumObjectSize: 'all_storage_classes_128K', LifecycleConfiguration: { Rules: RULES } }));
    for (let i = 0; i < 10; i++) {
      const got = await s3.send(new GetBucketLifecycleConfigurationCommand({ Bucket: B }));
      expect([got.Rules, got.TransitionDefaultMinimumObjectSize]).toEqual([RULES, 'all_storage_classes_128K']);
    }
    // aws_s3_object_copy: the whole source encoded, a space as '+'.
    await s3.send(new CopyObjectCommand({ Bucket: B, Key: 'copy of hello.txt', CopySource: goQueryEscape(`${B}/${KEY}`), ACL: 'private' }));
    expect(await (await s3.send(new GetObjectCommand({ Bucket: B, Key: 'copy of hello.txt' }))).Body!.transformToString()).toBe('hello from terraform');

    // plan: every read answers what was applied (no drift).
    await refresh();
    await refresh();

    // destroy
    await s3.send(new DeleteBucketCorsCommand({ Bucket: B }));
    await s3.send(new DeleteBucketLifecycleCommand({ Bucket: B }));
    expect(await code(s3.send(new GetBucketCorsCommand({ Bucket: B })))).toBe('NoSuchCORSConfiguration');
    expect(await code(s3.send(new GetBucketLifecycleConfigurationCommand({ Bucket: B })))).toBe('NoSuchLifecycleConfiguration');
    for (const key of [KEY, 'copy of hello.txt']) await s3.send(new DeleteObjectCommand({ Bucket: B, Key: key }));
    await s3.send(new DeleteBucketCommand({ Bucket: B }));
    expect(await s3Failure(s3.send(new HeadBucketCommand({ Bucket: B })))).toMatchObject({ status: 404 });
  });

  it('force_destroy empties the bucket by versions; an upload left in progress is named in the refusal', async () => {
    await s3.send(new CreateBucketCommand({ Bucket: 'tf-force' }));
    for (const key of ['a.txt', 'b/c.txt']) await s3.send(new PutObjectCommand({ Bucket: 'tf-force', Key: key, Body: key }));
    const { UploadId } = await s3.send(new CreateMultipartUploadCommand({ Bucket: 'tf-force', Key: 'left.bin' }));
    // The provider's emptying: list versions, delete them in batches.
    const versions = (await s3.send(new ListObjectVersionsCommand({ Bucket: 'tf-force' }))).Versions!;
    await s3.send(new DeleteObjectsCommand({ Bucket: 'tf-force', Delete: { Objects: versions.map((v) => ({ Key: v.Key, VersionId: v.VersionId })) } }));
    let message = '';
    try {
      await s3.send(new DeleteBucketCommand({ Bucket: 'tf-force' }));
    } catch (err) {
      if (!(err instanceof S3ServiceException)) throw err;
      expect(err.name).toBe('BucketNotEmpty');
      message = err.message;
    }
    expect(message).toContain('It holds no objects but 1 multipart upload in progress');
    // What the message says to do.
    const [upload] = (await s3.send(new ListMultipartUploadsCommand({ Bucket: 'tf-force' }))).Uploads!;
    expect(upload).toMatchObject({ Key: 'left.bin', UploadId });
    await s3.send(new AbortMultipartUploadCommand({ Bucket: 'tf-force', Key: upload!.Key, UploadId: upload!.UploadId }));
    await s3.send(new DeleteBucketCommand({ Bucket: 'tf-force' }));
  });
});
