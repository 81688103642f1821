/**
 * The public-domain routes of a bucket through the official SDK (`r2.buckets.domains.managed` and `.custom`),
 * as production answers them; a second user's SDK client learns nothing of the first user's bucket domains.
 * Serving through `--edge` is tested in test/edge/public-buckets.test.ts.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import Cloudflare from 'cloudflare';
import { CreateBucketCommand } from '@aws-sdk/client-s3';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { accountId as adminAccountOf, createZone } from '../helpers/api.js';
import { testS3Client } from '../helpers/s3-sdk.js';
import { addUser } from '../helpers/users.js';

const ZONE = 'sdk-domains.test';
const BUCKET = 'sdk-public';

let server: TestServer;
let cf: Cloudflare;
let account: string;
let zoneId: string;

beforeAll(async () => {
  server = await startTestServer();
  cf = server.sdk();
  account = await adminAccountOf(server);
  zoneId = await createZone(server, ZONE);
  const s3 = testS3Client(server.running.s3Url!);
  await s3.send(new CreateBucketCommand({ Bucket: BUCKET }));
  s3.destroy();
}, 60_000);

afterAll(async () => {
  await server?.stop();
});

describe('bucket domains through the SDK', () => {
  it('enables and disables the development hostname', async () => {
    const before = await cf.r2.buckets.domains.managed.list(BUCKET, { account_id: account });
    expect(before).toMatchObject({ enabled: false, domain: expect.stringMatching(/^pub-[0-9a-f]{32}\.r2\.localhost$/) });
    const on = await cf.r2.buckets.domains.managed.update(BUCKET, { account_id: account, enabled: true });
    expect(on).toEqual({ ...before, enabled: true });
    expect((await cf.r2.buckets.domains.managed.list(BUCKET, { account_id: account })).enabled).toBe(true);
    await cf.r2.buckets.domains.managed.update(BUCKET, { account_id: account, enabled: false });
    expect((await cf.r2.buckets.domains.managed.list(BUCKET, { account_id: account })).enabled).toBe(false);
  });

  it('creates, lists, gets, updates and deletes a custom domain with its proxied record', async () => {
    const domain = `files.${ZONE}`;
    const created = await cf.r2.buckets.domains.custom.create(BUCKET, { account_id: account, domain, zoneId, enabled: true, minTLS: '1.2' });
    expect(created).toMatchObject({ domain, enabled: true, minTLS: '1.2' });
    const records = [];
    for await (const r of cf.dns.records.list({ zone_id: zoneId, name: { exact: domain } })) records.push(r);
    expect(records.map((r) => [r.type, r.proxied])).toEqual([['CNAME', true]]);
    const listed = await cf.r2.buckets.domains.custom.list(BUCKET, { account_id: account });
    expect(listed.domains).toEqual([expect.objectContaining({ domain, enabled: true, minTLS: '1.2', zoneId, zoneName: ZONE, status: { ownership: 'active', ssl: 'active' } })]);
    expect(await cf.r2.buckets.domains.custom.get(domain, { account_id: account, bucket_name: BUCKET })).toMatchObject({ domain, enabled: true, zoneId });
    expect(await cf.r2.buckets.domains.custom.update(domain, { account_id: account, bucket_name: BUCKET, enabled: false })).toMatchObject({ domain, enabled: false });
    await cf.r2.buckets.domains.custom.delete(domain, { account_id: account, bucket_name: BUCKET });
    expect((await cf.r2.buckets.domains.custom.list(BUCKET, { account_id: account })).domains).toEqual([]);
    const left = [];
    for await (const r of cf.dns.records.list({ zone_id: zoneId, name: { exact: domain } })) left.push(r);
    expect(left).toEqual([]);
  });

  it("a second user's SDK client cannot read or change the first user's bucket domains", async () => {
    const other = await addUser(server, 'sdk-domains-other@example.com');
    const theirs = other.sdk();
    await expect(theirs.r2.buckets.domains.managed.list(BUCKET, { account_id: account })).rejects.toBeInstanceOf(Cloudflare.APIError);
    await expect(theirs.r2.buckets.domains.managed.update(BUCKET, { account_id: account, enabled: true })).rejects.toBeInstanceOf(Cloudflare.APIError);
    await expect(theirs.r2.buckets.domains.custom.create(BUCKET, { account_id: other.accountId, domain: `x.${ZONE}`, zoneId, enabled: true })).rejects.toBeInstanceOf(Cloudflare.APIError);
    expect((await cf.r2.buckets.domains.managed.list(BUCKET, { account_id: account })).enabled).toBe(false);
    expect((await cf.r2.buckets.domains.custom.list(BUCKET, { account_id: account })).domains).toEqual([]);
  });
});
