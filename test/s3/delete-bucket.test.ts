/**
 * Deleting a bucket that holds only multipart uploads in progress (it lists nothing): refused as production
 * refuses it (S3 `BucketNotEmpty` 409, v4 409 + 10008), with a message saying how many uploads are in progress
 * and how to abort them; deleted once they are aborted, by hand or by a lifecycle rule. With
 * @aws-sdk/client-s3 and the `cloudflare` SDK against a real Stratus; a second user's key and token learn nothing.
 */
import {
  AbortMultipartUploadCommand, CreateBucketCommand, CreateMultipartUploadCommand, DeleteBucketCommand, DeleteObjectCommand, HeadBucketCommand,
  ListMultipartUploadsCommand, ListObjectsV2Command, PutBucketLifecycleConfigurationCommand, PutObjectCommand, S3ServiceException, type S3Client,
} from '@aws-sdk/client-s3';
import Cloudflare from 'cloudflare';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { accountId } from '../helpers/api.js';
import { addUser } from '../helpers/users.js';
import { s3Failure, testS3Client } from '../helpers/s3-sdk.js';
import { clientWith, R2_STORAGE_WRITE, r2WriteKeys } from '../helpers/s3-keys.js';
import { ManualClock } from '../helpers/clock.js';
import { openBucketStore } from '../../src/store/open.js';

/** The S3 error of a failed command (name, status, message). */
async function refusal(p: Promise<unknown>): Promise<{ name: string; status?: number; message: string }> {
  try {
    await p;
  } catch (err) {
    if (err instanceof S3ServiceException) return { name: err.name, status: err.$metadata.httpStatusCode, message: err.message };
    throw err;
  }
  throw new Error('expected a refusal');
}

/** The v4 error of a failed SDK call (status, code, message). */
async function v4Refusal(p: Promise<unknown>): Promise<{ status: number; code: number; message: string }> {
  try {
    await p;
  } catch (err) {
    const e = err as { status: number; errors: Array<{ code: number; message: string }> };
    return { status: e.status, code: e.errors[0]!.code, message: e.errors[0]!.message };
  }
  throw new Error('expected a refusal');
}

describe('deleting a bucket with uploads in progress', () => {
  let server: TestServer;
  let s3: S3Client;
  let account: string;

  beforeAll(async () => {
    server = await startTestServer();
    s3 = testS3Client(server.running.s3Url!);
    account = await accountId(server);
  });
  afterAll(async () => { await server?.stop(); });

  it('says how many uploads are in progress and how to abort them, over S3 and over v4', async () => {
    await s3.send(new CreateBucketCommand({ Bucket: 'del-uploads' }));
    const ids: string[] = [];
    for (const key of ['a.bin', 'b.bin']) ids.push((await s3.send(new CreateMultipartUploadCommand({ Bucket: 'del-uploads', Key: key }))).UploadId!);
    expect((await s3.send(new ListObjectsV2Command({ Bucket: 'del-uploads' }))).KeyCount).toBe(0);

    const refused = await refusal(s3.send(new DeleteBucketCommand({ Bucket: 'del-uploads' })));
    expect(refused).toMatchObject({ name: 'BucketNotEmpty', status: 409 });
    expect(refused.message).toBe('The bucket you tried to delete is not empty. It holds no objects but 2 multipart uploads in progress, which listings do not show. '
      + 'Abort them (ListMultipartUploads, then AbortMultipartUpload for each) or set a lifecycle rule that aborts incomplete multipart uploads; an upload left alone is aborted 7 days after it began.');
    const viaV4 = await v4Refusal(server.sdk().r2.buckets.delete('del-uploads', { account_id: account }));
    expect(viaV4).toEqual({ status: 409, code: 10008, message: refused.message });

    // What the message says works: list the uploads, abort them one by one.
    const listed = (await s3.send(new ListMultipartUploadsCommand({ Bucket: 'del-uploads' }))).Uploads!;
    await s3.send(new AbortMultipartUploadCommand({ Bucket: 'del-uploads', Key: listed[0]!.Key, UploadId: listed[0]!.UploadId }));
    expect((await refusal(s3.send(new DeleteBucketCommand({ Bucket: 'del-uploads' })))).message).toContain('It holds no objects but 1 multipart upload in progress,');
    await s3.send(new PutObjectCommand({ Bucket: 'del-uploads', Key: 'obj.txt', Body: 'x' }));
    expect((await refusal(s3.send(new DeleteBucketCommand({ Bucket: 'del-uploads' })))).message).toContain('It holds objects and 1 multipart upload in progress.');
    await s3.send(new AbortMultipartUploadCommand({ Bucket: 'del-uploads', Key: listed[1]!.Key, UploadId: listed[1]!.UploadId }));
    // Objects only: S3's sentence alone, as before.
    expect((await refusal(s3.send(new DeleteBucketCommand({ Bucket: 'del-uploads' })))).message).toBe('The bucket you tried to delete is not empty.');
    expect((await v4Refusal(server.sdk().r2.buckets.delete('del-uploads', { account_id: account }))).message).toBe('The bucket you tried to delete is not empty.');
    await s3.send(new DeleteObjectCommand({ Bucket: 'del-uploads', Key: 'obj.txt' }));
    await s3.send(new DeleteBucketCommand({ Bucket: 'del-uploads' }));
    expect(await s3Failure(s3.send(new HeadBucketCommand({ Bucket: 'del-uploads' })))).toMatchObject({ status: 404 });
  });

  it('can be deleted once a lifecycle rule has aborted the uploads', async () => {
    await s3.send(new CreateBucketCommand({ Bucket: 'del-rule' }));
    await s3.send(new CreateMultipartUploadCommand({ Bucket: 'del-rule', Key: 'stale.bin' }));
    await s3.send(new PutBucketLifecycleConfigurationCommand({ Bucket: 'del-rule', LifecycleConfiguration: { Rules: [
      { ID: 'abort', Status: 'Enabled', Filter: {}, AbortIncompleteMultipartUpload: { DaysAfterInitiation: 1 } },
    ] } }));
    const clock = new ManualClock();
    clock.advance(2 * 86_400_000);
    const store = await openBucketStore({ dataDir: server.dataDir, clock, sweepOnOpen: false, maintenanceIntervalMs: 0 });
    try {
      expect((await store.applyLifecycle()).abortedUploads).toBe(1);
    } finally {
      await store.close();
    }
    await s3.send(new DeleteBucketCommand({ Bucket: 'del-rule' }));
  });

  it("a second user's key and token cannot delete the bucket and learn nothing of its uploads", async () => {
    await s3.send(new CreateBucketCommand({ Bucket: 'del-guarded' }));
    await s3.send(new CreateMultipartUploadCommand({ Bucket: 'del-guarded', Key: 'x.bin' }));
    const second = await addUser(server, 'deleter@example.com');
    const other = clientWith(server.running.s3Url!, await r2WriteKeys(second.sdk(), second.accountId));
    const refused = await refusal(other.send(new DeleteBucketCommand({ Bucket: 'del-guarded' })));
    expect(refused).toMatchObject({ name: 'NoSuchBucket', status: 404 });
    expect(refused.message).not.toContain('upload');
    expect((await v4Refusal(second.sdk().r2.buckets.delete('del-guarded', { account_id: account }))).status).toBe(404);
    const token = await second.sdk().user.tokens.create({ name: 'r2', policies: [{ effect: 'allow', permission_groups: [{ id: R2_STORAGE_WRITE }], resources: { [`com.cloudflare.api.account.${second.accountId}`]: '*' } }] });
    const bearer = new Cloudflare({ apiToken: token.value!, baseURL: server.apiBase, maxRetries: 0 });
    const byToken = await v4Refusal(bearer.r2.buckets.delete('del-guarded', { account_id: account }));
    expect(byToken.status).toBe(403);
    expect(byToken.message).not.toContain('upload');
    await s3.send(new HeadBucketCommand({ Bucket: 'del-guarded' }));
  });
});
