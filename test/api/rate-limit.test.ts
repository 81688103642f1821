/**
 * Per-user request rates on a real Stratus (embedded SQLite: counts in memory) with the official clients: the v4
 * API answers production's `Ratelimit` and `Ratelimit-Policy` headers and, over the limit, 429 with code 971 and
 * `Retry-After`, which the `cloudflare` SDK raises as RateLimitError; S3 answers `SlowDown` (503), which
 * @aws-sdk/client-s3 raises by name. A second user (and an account-owned token) is not limited by the first
 * user's traffic. The server runs on a clock the test moves, so the next window comes without waiting.
 */
import { createHash } from 'node:crypto';
import Cloudflare from 'cloudflare';
import { ListBucketsCommand, S3ServiceException } from '@aws-sdk/client-s3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { addUser } from '../helpers/users.js';
import { accountId } from '../helpers/api.js';
import { ManualClock } from '../helpers/clock.js';
import { s3Failure, testS3Client } from '../helpers/s3-sdk.js';

const R2_STORAGE_READ = 'b4992e1108244f5d8bfbd5744320c2e1';
const WINDOW = 300;
/** 10 s into a window. */
const start = () => new Date((Math.floor(Date.now() / 1000 / WINDOW) * WINDOW + 10) * 1000);

describe('v4 request rate per user', () => {
  let server: TestServer;
  const clock = new ManualClock(start());
  beforeAll(async () => { server = await startTestServer({ clock, flags: { 'rate-limit': '5', 'rate-limit-window': String(WINDOW) } }); });
  afterAll(async () => { await server?.stop(); });

  it('sends the Ratelimit headers, refuses past the limit with RateLimitError (429 971) until the window ends, and never limits another user', async () => {
    const sdk = server.sdk();
    const { response } = await sdk.accounts.list().withResponse();
    expect(response.headers.get('ratelimit')).toBe('"default";r=4;t=290');
    expect(response.headers.get('ratelimit-policy')).toBe('"default";q=5;w=300');
    expect(response.headers.get('retry-after')).toBeNull();
    for (let i = 0; i < 4; i++) await sdk.zones.list();
    const err = await sdk.zones.list().then(() => undefined, (e: unknown) => e);
    expect(err).toBeInstanceOf(Cloudflare.RateLimitError);
    const limited = err as InstanceType<typeof Cloudflare.RateLimitError>;
    expect(limited.status).toBe(429);
    expect(limited.errors).toEqual([{ code: 971, message: 'Please wait and consider throttling your request speed' }]);
    expect(limited.headers.get('retry-after')).toBe('290');
    expect(limited.headers.get('ratelimit')).toBe('"default";r=0;t=290');

    const other = await addUser(server, 'second-rate@example.com');
    const { response: theirs } = await other.sdk().accounts.list().withResponse();
    expect(theirs.headers.get('ratelimit')).toBe('"default";r=4;t=290');

    clock.advance(290_000); // the next window
    const { response: again } = await sdk.accounts.list().withResponse();
    expect(again.headers.get('ratelimit')).toBe('"default";r=4;t=300');
  });

  it('counts an account-owned token on its own, as production does', async () => {
    clock.advance(WINDOW * 1000);
    const account = await accountId(server); // 1 request of the admin
    const created = await server.sdk().accounts.tokens.create({ account_id: account, name: 'own-rate', policies: [{ effect: 'allow', permission_groups: [{ id: R2_STORAGE_READ }], resources: { [`com.cloudflare.api.account.${account}`]: '*' } }] });
    const token = new Cloudflare({ apiToken: created.value!, baseURL: server.apiBase, maxRetries: 0 });
    const { response } = await token.accounts.tokens.verify({ account_id: account }).withResponse();
    expect(response.headers.get('ratelimit')).toMatch(/^"default";r=4;/);
  });
});

describe('S3 request rate per key holder', () => {
  let server: TestServer;
  const clock = new ManualClock(start());
  beforeAll(async () => { server = await startTestServer({ clock, flags: { 's3-rate-limit': '3', 'rate-limit': '100' } }); });
  afterAll(async () => { await server?.stop(); });

  it('answers SlowDown (503, Retry-After) past the limit, and serves another user and the v4 API meanwhile', async () => {
    const admin = testS3Client(server.running.s3Url!);
    for (let i = 0; i < 3; i++) await admin.send(new ListBucketsCommand({}));
    expect(await s3Failure(admin.send(new ListBucketsCommand({})))).toEqual({ name: 'SlowDown', status: 503 });
    const err = await admin.send(new ListBucketsCommand({})).catch((e: unknown) => e) as S3ServiceException;
    expect(err.message).toBe('Please reduce your request rate.');
    expect(err.$response?.headers['retry-after']).toBe('290');

    const other = await addUser(server, 'second-s3@example.com');
    const otherAccount = (await other.sdk().accounts.list()).result[0]!.id;
    const created = await other.sdk().user.tokens.create({ name: 'their-s3', policies: [{ effect: 'allow', permission_groups: [{ id: R2_STORAGE_READ }], resources: { [`com.cloudflare.api.account.${otherAccount}`]: '*' } }] });
    const theirs = testS3Client(server.running.s3Url!, { credentials: { accessKeyId: created.id!, secretAccessKey: createHash('sha256').update(created.value!).digest('hex') } });
    expect((await theirs.send(new ListBucketsCommand({}))).$metadata.httpStatusCode).toBe(200);
    expect((await server.sdk().accounts.list()).result.length).toBeGreaterThan(0); // v4 counts apart from S3
  });
});
