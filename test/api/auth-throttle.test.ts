/**
 * Failed authentications per client address on a real Stratus (embedded SQLite), from several loopback source
 * addresses (127.0.0.2, 127.0.0.3, … all reach the 127.0.0.1 listeners): past half the limit failures are
 * answered late, then the address is refused (v4: 429 971 with `Retry-After`; S3: `SlowDown`) even with the
 * right key, for the rest of the window and the next; other addresses, and other users, are served meanwhile.
 * The v4 and S3 listeners count one address together, and the metrics count by listener. A 5,000-deep JSON body
 * in POST /zones is a 400 (6130), not a failed authentication.
 */
import http from 'node:http';
import Cloudflare from 'cloudflare';
import { Agent, fetch as undiciFetch } from 'undici';
import { ListBucketsCommand } from '@aws-sdk/client-s3';
import { NodeHttpHandler } from '@smithy/node-http-handler';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, TEST_S3_ACCESS_KEY_ID, type TestServer } from '../helpers/server.js';
import { addUser } from '../helpers/users.js';
import { metricSample } from '../helpers/metrics.js';
import { ManualClock } from '../helpers/clock.js';
import { s3Failure, testS3Client } from '../helpers/s3-sdk.js';
import { SLOW_STEP_MS } from '../../src/limits/auth-throttle.js';

const WINDOW = 300;
const WRONG_KEY = 'f'.repeat(37);

/** A fetch whose connections leave from `localAddress`. */
function fetchFrom(localAddress: string): typeof fetch {
  const dispatcher = new Agent({ localAddress });
  return ((url: string, init?: RequestInit) => undiciFetch(url, { ...(init as object), dispatcher })) as unknown as typeof fetch;
}

/** The value of one sample of the admin listener's metrics. */
function metric(server: TestServer, sample: string): Promise<number> {
  return metricSample(server.running.adminUrl!, sample);
}

describe('failed authentications per client address', () => {
  let server: TestServer;
  const clock = new ManualClock(new Date((Math.floor(Date.now() / 1000 / WINDOW) * WINDOW + 10) * 1000));
  beforeAll(async () => {
    server = await startTestServer({ clock, flags: { 'auth-failure-limit': '4', 'auth-failure-window': String(WINDOW), 'rate-limit': '1000' } });
  });
  afterAll(async () => { await server?.stop(); });

  const v4 = (from: string, key: string) => new Cloudflare({ apiEmail: server.email, apiKey: key, baseURL: server.apiBase, maxRetries: 0, fetch: fetchFrom(from) });
  const failure = (p: Promise<unknown>) => p.then(() => { throw new Error('expected a failure'); }, (e: unknown) => e as InstanceType<typeof Cloudflare.APIError>);

  it('v4: slows failures past half the limit, then refuses the address even with the right key until the cool-down ends', async () => {
    const refusedBefore = await metric(server, 'stratus_limit_events_total{listener="v4",event="auth_refused"}');
    const failuresBefore = await metric(server, 'stratus_limit_events_total{listener="v4",event="auth_failure"}');
    const guesser = v4('127.0.0.2', WRONG_KEY);
    const took: number[] = [];
    for (let i = 0; i < 4; i++) {
      const started = performance.now();
      const err = await failure(guesser.zones.list());
      took.push(performance.now() - started);
      expect(err.status).toBe(403);
      expect(err.errors[0]).toMatchObject({ code: 9103 });
    }
    expect(took[2]).toBeGreaterThanOrEqual(SLOW_STEP_MS - 5);
    expect(took[3]).toBeGreaterThanOrEqual(2 * SLOW_STEP_MS - 5);

    const refused = await failure(v4('127.0.0.2', server.key).zones.list()); // the right key, from the guessing address
    expect(refused).toBeInstanceOf(Cloudflare.RateLimitError);
    expect(refused.errors).toEqual([{ code: 971, message: 'Please wait and consider throttling your request speed' }]);
    expect(refused.headers?.get('retry-after')).toBe(String(290 + WINDOW));

    expect((await v4('127.0.0.1', server.key).zones.list()).result).toBeDefined(); // the same user from another address
    const other = await addUser(server, 'other-address@example.com');
    expect((await other.sdk().accounts.list()).result.length).toBe(1); // another user

    expect(await metric(server, 'stratus_limit_events_total{listener="v4",event="auth_failure"}')).toBe(failuresBefore + 4);
    expect(await metric(server, 'stratus_limit_events_total{listener="v4",event="auth_refused"}')).toBe(refusedBefore + 1);

    clock.advance(290_000); // the next window: still cooling down
    expect(await failure(v4('127.0.0.2', server.key).zones.list())).toBeInstanceOf(Cloudflare.RateLimitError);
    clock.advance(WINDOW * 1000); // and past it
    expect((await v4('127.0.0.2', server.key).zones.list()).result).toBeDefined();
  });

  it('S3: wrong signatures and unknown key ids are counted, then SlowDown; the address is refused on the v4 API too', async () => {
    const from = (address: string, accessKeyId: string, secretAccessKey: string) => testS3Client(server.running.s3Url!, {
      credentials: { accessKeyId, secretAccessKey },
      requestHandler: new NodeHttpHandler({ httpAgent: new http.Agent({ localAddress: address }) }),
    });
    const slowedBefore = await metric(server, 'stratus_limit_events_total{listener="s3",event="auth_slowed"}');
    for (let i = 0; i < 2; i++) expect(await s3Failure(from('127.0.0.3', TEST_S3_ACCESS_KEY_ID, 'wrong-secret').send(new ListBucketsCommand({})))).toEqual({ name: 'SignatureDoesNotMatch', status: 403 });
    for (let i = 0; i < 2; i++) expect(await s3Failure(from('127.0.0.3', 'ffffffffffffffffffffffffffffffff', 'x').send(new ListBucketsCommand({})))).toEqual({ name: 'InvalidAccessKeyId', status: 403 });
    expect(await metric(server, 'stratus_limit_events_total{listener="s3",event="auth_slowed"}')).toBe(slowedBefore + 2);
    expect(await s3Failure(testS3Client(server.running.s3Url!, { requestHandler: new NodeHttpHandler({ httpAgent: new http.Agent({ localAddress: '127.0.0.3' }) }) }).send(new ListBucketsCommand({}))))
      .toEqual({ name: 'SlowDown', status: 503 });
    expect(await failure(v4('127.0.0.3', server.key).zones.list())).toBeInstanceOf(Cloudflare.RateLimitError);
    expect((await testS3Client(server.running.s3Url!).send(new ListBucketsCommand({}))).$metadata.httpStatusCode).toBe(200); // from 127.0.0.1
  });

  it('missing credentials are not counted, and a 5,000-deep JSON body in POST /zones is a 400 in the envelope', async () => {
    const send = fetchFrom('127.0.0.4');
    for (let i = 0; i < 6; i++) expect((await send(`${server.apiBase}/zones`)).status).toBe(400); // 9106, six times: no cool-down
    const account = (await server.sdk().accounts.list()).result[0]!.id;
    const deep = `{"name":"deep.example","account":{"id":"${account}"},"x":${'['.repeat(5000)}${']'.repeat(5000)}}`;
    const res = await send(`${server.apiBase}/zones`, { method: 'POST', headers: { 'x-auth-email': server.email, 'x-auth-key': server.key, 'content-type': 'application/json' }, body: deep });
    expect(res.status).toBe(400);
    expect((await res.json() as { errors: { code: number }[] }).errors[0]!.code).toBe(6130);
  });
});
