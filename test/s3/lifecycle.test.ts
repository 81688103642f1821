/**
 * Bucket lifecycle rules over S3 (PutBucketLifecycleConfiguration, GetBucketLifecycleConfiguration,
 * DeleteBucketLifecycle) with @aws-sdk/client-s3 against a real Stratus: production's own example configuration,
 * read back as sent; the same rules over the v4 route (the `cloudflare` SDK) both ways; the refusals; the
 * sweeper applying a rule set over S3; what a token needs; a second user's key and token see nothing.
 */
import {
  CreateBucketCommand, DeleteBucketLifecycleCommand, GetBucketLifecycleConfigurationCommand, HeadObjectCommand, PutBucketLifecycleConfigurationCommand,
  PutObjectCommand, type LifecycleRule, type S3Client,
} from '@aws-sdk/client-s3';
import Cloudflare from 'cloudflare';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { accountId } from '../helpers/api.js';
import { addUser } from '../helpers/users.js';
import { s3Failure, testS3Client } from '../helpers/s3-sdk.js';
import { clientWith, R2_STORAGE_WRITE, r2WriteKeys, tokenKeyPair, type KeyPair } from '../helpers/s3-keys.js';
import { ManualClock } from '../helpers/clock.js';
import { openBucketStore } from '../../src/store/open.js';

const DAY = 86_400;
const BUCKET_ITEM_WRITE = '2efd5506f9c8494dacb1fa10a3e7d5b6';
const R2_STORAGE_READ = 'b4992e1108244f5d8bfbd5744320c2e1';

/** Production's example configuration (docs: R2 object lifecycles, "S3 API"). */
const EXAMPLE: LifecycleRule[] = [
  { ID: 'Delete 2019 Documents', Status: 'Enabled', Filter: { Prefix: '2019/' }, Expiration: { Date: new Date('2024-01-01') } },
  { ID: 'Transition Objects To Infrequent Access', Status: 'Enabled', Transitions: [{ Days: 30, StorageClass: 'STANDARD_IA' }] },
  { ID: 'Delete Old Logs', Status: 'Enabled', Filter: { Prefix: 'logs/' }, Expiration: { Days: 90 } },
  { ID: 'Abort Incomplete Multipart Uploads', Status: 'Enabled', AbortIncompleteMultipartUpload: { DaysAfterInitiation: 7 } },
  { ID: 'Abort User Incomplete Multipart Uploads', Status: 'Enabled', Filter: { Prefix: 'useruploads/' }, AbortIncompleteMultipartUpload: { DaysAfterInitiation: 1 } },
];

describe('S3 lifecycle configuration', () => {
  let server: TestServer;
  let s3: S3Client;
  let account: string;
  const v4 = () => server.sdk().r2.buckets.lifecycle;

  beforeAll(async () => {
    server = await startTestServer();
    s3 = testS3Client(server.running.s3Url!);
    account = await accountId(server);
    for (const b of ['lc-s3', 'lc-v4', 'lc-bad', 'lc-sweep']) await s3.send(new CreateBucketCommand({ Bucket: b }));
  });
  afterAll(async () => { await server?.stop(); });

  it("reads a new bucket's default rule, then production's example as it was sent, over S3 and over v4", async () => {
    const fresh = await s3.send(new GetBucketLifecycleConfigurationCommand({ Bucket: 'lc-s3' }));
    expect(fresh.Rules).toEqual([{ ID: 'Default Multipart Abort Rule', Status: 'Enabled', Filter: { Prefix: '' }, AbortIncompleteMultipartUpload: { DaysAfterInitiation: 7 } }]);
    const put = await s3.send(new PutBucketLifecycleConfigurationCommand({ Bucket: 'lc-s3', LifecycleConfiguration: { Rules: EXAMPLE } }));
    expect(put.TransitionDefaultMinimumObjectSize).toBe('all_storage_classes_128K');
    const got = await s3.send(new GetBucketLifecycleConfigurationCommand({ Bucket: 'lc-s3' }));
    expect(got.Rules).toEqual(EXAMPLE);
    expect(got.TransitionDefaultMinimumObjectSize).toBe('all_storage_classes_128K');
    expect((await v4().get('lc-s3', { account_id: account })).rules).toEqual([
      { id: 'Delete 2019 Documents', enabled: true, conditions: { prefix: '2019/' }, deleteObjectsTransition: { condition: { type: 'Date', date: '2024-01-01T00:00:00.000Z' } } },
      { id: 'Transition Objects To Infrequent Access', enabled: true, conditions: { prefix: '' }, storageClassTransitions: [{ condition: { type: 'Age', maxAge: 30 * DAY }, storageClass: 'InfrequentAccess' }] },
      { id: 'Delete Old Logs', enabled: true, conditions: { prefix: 'logs/' }, deleteObjectsTransition: { condition: { type: 'Age', maxAge: 90 * DAY } } },
      { id: 'Abort Incomplete Multipart Uploads', enabled: true, conditions: { prefix: '' }, abortMultipartUploadsTransition: { condition: { type: 'Age', maxAge: 7 * DAY } } },
      { id: 'Abort User Incomplete Multipart Uploads', enabled: true, conditions: { prefix: 'useruploads/' }, abortMultipartUploadsTransition: { condition: { type: 'Age', maxAge: DAY } } },
    ]);
  });

  it('keeps the forms Terraform sends (an empty filter, an And filter, the minimum size header)', async () => {
    const rules: LifecycleRule[] = [
      { ID: 'expire-bucket', Status: 'Enabled', Filter: {}, Expiration: { Days: 1 } },
      { ID: 'abort-multipart-upload', Status: 'Enabled', Filter: {}, AbortIncompleteMultipartUpload: { DaysAfterInitiation: 1 } },
      { ID: 'and', Status: 'Disabled', Filter: { And: { Prefix: 'logs/', ObjectSizeGreaterThan: 0 } }, Transitions: [{ Date: new Date('2030-01-01T00:00:00Z'), StorageClass: 'STANDARD_IA' }] },
    ];
    await s3.send(new PutBucketLifecycleConfigurationCommand({ Bucket: 'lc-s3', TransitionDefaultMinimumObjectSize: 'varies_by_storage_class', LifecycleConfiguration: { Rules: rules } }));
    const got = await s3.send(new GetBucketLifecycleConfigurationCommand({ Bucket: 'lc-s3' }));
    expect(got.Rules).toEqual(rules);
    expect(got.TransitionDefaultMinimumObjectSize).toBe('varies_by_storage_class');
  });

  it('reads over S3 what was set over v4, and over v4 what was deleted over S3', async () => {
    const rules = [
      { id: 'logs', enabled: true, conditions: { prefix: 'logs/' }, deleteObjectsTransition: { condition: { type: 'Age' as const, maxAge: 30 * DAY } },
        storageClassTransitions: [{ condition: { type: 'Age' as const, maxAge: 7 * DAY }, storageClass: 'InfrequentAccess' as const }] },
      { id: 'cutoff', enabled: false, conditions: { prefix: 'tmp/' }, deleteObjectsTransition: { condition: { type: 'Date' as const, date: '2030-01-01T00:00:00.000Z' } } },
      { id: 'hourly', enabled: true, conditions: { prefix: '' }, abortMultipartUploadsTransition: { condition: { type: 'Age' as const, maxAge: 3600 } } },
    ];
    await v4().update('lc-v4', { account_id: account, rules });
    expect((await s3.send(new GetBucketLifecycleConfigurationCommand({ Bucket: 'lc-v4' }))).Rules).toEqual([
      { ID: 'logs', Status: 'Enabled', Filter: { Prefix: 'logs/' }, Expiration: { Days: 30 }, Transitions: [{ Days: 7, StorageClass: 'STANDARD_IA' }] },
      { ID: 'cutoff', Status: 'Disabled', Filter: { Prefix: 'tmp/' }, Expiration: { Date: new Date('2030-01-01T00:00:00Z') } },
      // An age in seconds reads as whole days, rounded up.
      { ID: 'hourly', Status: 'Enabled', Filter: { Prefix: '' }, AbortIncompleteMultipartUpload: { DaysAfterInitiation: 1 } },
    ]);
    await s3.send(new DeleteBucketLifecycleCommand({ Bucket: 'lc-v4' }));
    expect(await s3Failure(s3.send(new GetBucketLifecycleConfigurationCommand({ Bucket: 'lc-v4' })))).toEqual({ name: 'NoSuchLifecycleConfiguration', status: 404 });
    expect((await v4().get('lc-v4', { account_id: account })).rules).toEqual([]);
    await s3.send(new DeleteBucketLifecycleCommand({ Bucket: 'lc-v4' }));
    expect(await s3Failure(s3.send(new GetBucketLifecycleConfigurationCommand({ Bucket: 'lc-none' })))).toEqual({ name: 'NoSuchBucket', status: 404 });
    expect(await s3Failure(s3.send(new DeleteBucketLifecycleCommand({ Bucket: 'lc-none' })))).toEqual({ name: 'NoSuchBucket', status: 404 });
  });

  it('refuses what the rules cannot say and keeps the rules it had', async () => {
    const put = (rules: LifecycleRule[]) => s3Failure(s3.send(new PutBucketLifecycleConfigurationCommand({ Bucket: 'lc-bad', LifecycleConfiguration: { Rules: rules } })));
    expect(await put([{ ID: 't', Status: 'Enabled', Filter: { Tag: { Key: 'k', Value: 'v' } }, Expiration: { Days: 1 } }])).toEqual({ name: 'NotImplemented', status: 501 });
    expect(await put([{ ID: 't', Status: 'Enabled', Filter: { ObjectSizeGreaterThan: 1024 }, Expiration: { Days: 1 } }])).toEqual({ name: 'NotImplemented', status: 501 });
    expect(await put([{ ID: 't', Status: 'Enabled', Filter: {}, NoncurrentVersionExpiration: { NoncurrentDays: 1 } }])).toEqual({ name: 'NotImplemented', status: 501 });
    expect(await put([{ ID: 't', Status: 'Enabled', Filter: {}, Transitions: [{ Days: 30, StorageClass: 'GLACIER' }] }])).toEqual({ name: 'InvalidStorageClass', status: 400 });
    expect(await put([{ ID: 't', Status: 'Enabled', Filter: {}, Expiration: { Days: 0 } }])).toEqual({ name: 'InvalidArgument', status: 400 });
    expect(await put([{ ID: 't', Status: 'Enabled', Filter: {}, Expiration: { Date: new Date('2030-01-01T12:00:00Z') } }])).toEqual({ name: 'InvalidArgument', status: 400 });
    expect(await put([{ ID: 'a', Status: 'Enabled', Filter: {}, Expiration: { Days: 1 } }, { ID: 'a', Status: 'Enabled', Filter: {}, Expiration: { Days: 2 } }])).toEqual({ name: 'InvalidArgument', status: 400 });
    expect(await put([{ ID: 't', Status: 'Enabled', Filter: {} }])).toEqual({ name: 'InvalidRequest', status: 400 });
    expect(await put([{ ID: 't', Status: 'Maybe' as 'Enabled', Filter: {}, Expiration: { Days: 1 } }])).toEqual({ name: 'MalformedXML', status: 400 });
    expect(await put([{ ID: 't', Status: 'Enabled', Filter: {}, Expiration: { Days: 10 }, Transitions: [{ Days: 30, StorageClass: 'STANDARD_IA' }] }])).toEqual({ name: 'InvalidArgument', status: 400 });
    expect((await v4().get('lc-bad', { account_id: account })).rules!.map((r) => r.id)).toEqual(['Default Multipart Abort Rule']);
  });

  it('is applied by the sweeper: an object past its S3 expiration goes, others stay', async () => {
    await s3.send(new PutBucketLifecycleConfigurationCommand({ Bucket: 'lc-sweep', LifecycleConfiguration: { Rules: [
      { ID: 'tmp', Status: 'Enabled', Filter: { Prefix: 'tmp/' }, Expiration: { Days: 1 } },
      { ID: 'cold', Status: 'Enabled', Filter: { And: { Prefix: 'cold/', ObjectSizeGreaterThan: 0 } }, Transitions: [{ Days: 1, StorageClass: 'STANDARD_IA' }] },
    ] } }));
    for (const key of ['tmp/a.txt', 'cold/b.txt', 'keep.txt']) await s3.send(new PutObjectCommand({ Bucket: 'lc-sweep', Key: key, Body: key }));
    const clock = new ManualClock();
    clock.advance(2 * DAY * 1000);
    const store = await openBucketStore({ dataDir: server.dataDir, clock, sweepOnOpen: false, maintenanceIntervalMs: 0 });
    try {
      const report = await store.applyLifecycle();
      expect(report).toMatchObject({ deletedObjects: 1, transitionedObjects: 1 });
    } finally {
      await store.close();
    }
    expect(await s3Failure(s3.send(new HeadObjectCommand({ Bucket: 'lc-sweep', Key: 'tmp/a.txt' })))).toMatchObject({ status: 404 });
    expect((await s3.send(new HeadObjectCommand({ Bucket: 'lc-sweep', Key: 'cold/b.txt' }))).StorageClass).toBe('STANDARD_IA');
    expect((await s3.send(new HeadObjectCommand({ Bucket: 'lc-sweep', Key: 'keep.txt' }))).ContentLength).toBe(8);
  });

  it('needs Workers R2 Storage Write to change the rules and Read to read them; a bucket token gets AccessDenied', async () => {
    const token = (name: string, group: string, resource: string) => server.sdk().user.tokens.create({ name, policies: [{ effect: 'allow', permission_groups: [{ id: group }], resources: { [resource]: '*' } }] });
    const bucketWriter = clientWith(server.running.s3Url!, tokenKeyPair(await token('lc-items', BUCKET_ITEM_WRITE, `com.cloudflare.edge.r2.bucket.${account}_default_lc-s3`)));
    const reader = clientWith(server.running.s3Url!, tokenKeyPair(await token('lc-reader', R2_STORAGE_READ, `com.cloudflare.api.account.${account}`)));
    const writer = clientWith(server.running.s3Url!, await r2WriteKeys(server.sdk(), account, 'lc-writer'));
    const rules: LifecycleRule[] = [{ ID: 'w', Status: 'Enabled', Filter: { Prefix: 'w/' }, Expiration: { Days: 3 } }];
    for (const denied of [bucketWriter, reader]) {
      expect(await s3Failure(denied.send(new PutBucketLifecycleConfigurationCommand({ Bucket: 'lc-s3', LifecycleConfiguration: { Rules: rules } })))).toEqual({ name: 'AccessDenied', status: 403 });
      expect(await s3Failure(denied.send(new DeleteBucketLifecycleCommand({ Bucket: 'lc-s3' })))).toEqual({ name: 'AccessDenied', status: 403 });
    }
    expect(await s3Failure(bucketWriter.send(new GetBucketLifecycleConfigurationCommand({ Bucket: 'lc-s3' })))).toEqual({ name: 'AccessDenied', status: 403 });
    expect((await reader.send(new GetBucketLifecycleConfigurationCommand({ Bucket: 'lc-s3' }))).Rules!.length).toBe(3);
    await writer.send(new PutBucketLifecycleConfigurationCommand({ Bucket: 'lc-s3', LifecycleConfiguration: { Rules: rules } }));
    expect((await s3.send(new GetBucketLifecycleConfigurationCommand({ Bucket: 'lc-s3' }))).Rules).toEqual(rules);
  });

  it("a second user's key and token reach no rules of the first account", async () => {
    const second = await addUser(server, 'lifecycle-other@example.com');
    const keys: KeyPair = await r2WriteKeys(second.sdk(), second.accountId);
    const other = clientWith(server.running.s3Url!, keys);
    const NO_BUCKET = { name: 'NoSuchBucket', status: 404 };
    expect(await s3Failure(other.send(new GetBucketLifecycleConfigurationCommand({ Bucket: 'lc-s3' })))).toEqual(NO_BUCKET);
    expect(await s3Failure(other.send(new PutBucketLifecycleConfigurationCommand({ Bucket: 'lc-s3', LifecycleConfiguration: { Rules: [{ ID: 'x', Status: 'Enabled', Filter: {}, Expiration: { Days: 1 } }] } })))).toEqual(NO_BUCKET);
    expect(await s3Failure(other.send(new DeleteBucketLifecycleCommand({ Bucket: 'lc-s3' })))).toEqual(NO_BUCKET);
    // Its global key and its token on the v4 route: the first account is not its own.
    const sdk = second.sdk();
    await expect(sdk.r2.buckets.lifecycle.get('lc-s3', { account_id: account })).rejects.toMatchObject({ status: 404 });
    const token = await sdk.user.tokens.create({ name: 'r2', policies: [{ effect: 'allow', permission_groups: [{ id: R2_STORAGE_WRITE }], resources: { [`com.cloudflare.api.account.${second.accountId}`]: '*' } }] });
    const bearer = new Cloudflare({ apiToken: token.value!, baseURL: server.apiBase, maxRetries: 0 });
    await expect(bearer.r2.buckets.lifecycle.update('lc-s3', { account_id: account, rules: [] })).rejects.toMatchObject({ status: 403 });
    // The first account's rules are unchanged.
    expect((await s3.send(new GetBucketLifecycleConfigurationCommand({ Bucket: 'lc-s3' }))).Rules!.map((r) => r.ID)).toEqual(['w']);
  });
});
