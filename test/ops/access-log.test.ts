/**
 * Access lines of a real Stratus (the service's pino options, captured in memory): one line per request on the
 * v4 API, the S3 API and DNS, with the route template, status, bytes, duration, request id and who made it;
 * never a key, token, signature or SSE-C key, whatever the request carried. A second user's requests are logged
 * under their own account, and a DNS flood beyond --dns-log-rate gives one "not logged" line instead.
 */
import { createHash, randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import Cloudflare from 'cloudflare';
import { CreateBucketCommand, GetObjectCommand, PutObjectCommand } from '@aws-sdk/client-s3';
import { presignedUrl } from '../helpers/s3-sign.js';
import { startTestServer, TEST_S3_SECRET, type TestServer } from '../helpers/server.js';
import { addUser } from '../helpers/users.js';
import { testS3Client } from '../helpers/s3-sdk.js';
import { dig } from '../dns-server/dig.js';
import { udpExchange } from '../dns-server/client.js';
import { waitUntil } from '../faults/load.js';
import { accessLines, captureLogger } from './capture-logger.js';

const API_TOKEN = 'access-log-test-token-0123456789abcdefABCDEF';
const capture = captureLogger('info');
let server: TestServer;

beforeAll(async () => {
  server = await startTestServer({ logger: capture.logger, flags: { 'api-token': API_TOKEN, 'dns-log-rate': '20' } });
}, 60_000);
afterAll(async () => { await server?.stop(); });

describe('access log', () => {
  it('writes one line per v4 request with template, status, bytes, duration, ids and the account', async () => {
    const sdk = server.sdk();
    const account = (await sdk.accounts.list()).result[0]!.id;
    const zone = await sdk.zones.create({ name: 'access-log.example', account: { id: account } });
    const byToken = new Cloudflare({ apiToken: API_TOKEN, baseURL: server.apiBase, maxRetries: 0 });
    await byToken.dns.records.list({ zone_id: zone.id });
    const bad = await fetch(`${server.apiBase}/zones`, { headers: { 'X-Auth-Email': server.email, 'X-Auth-Key': 'f'.repeat(37) } });
    expect(bad.status).toBeGreaterThanOrEqual(400);
    const missing = await fetch(`${server.url}/nothing/here?token=${API_TOKEN}`);
    expect(missing.status).toBe(404);

    await waitUntil(() => accessLines(capture.lines(), 'v4').length >= 5, 10_000, 'v4 access lines');
    const v4 = accessLines(capture.lines(), 'v4');
    const create = v4.find((l) => l.method === 'POST' && l.route === '/client/v4/zones')!;
    expect(create).toMatchObject({ status: 200, accountId: account, msg: 'POST /client/v4/zones 200' });
    expect(create.bytes).toBeGreaterThan(100);
    expect(typeof create.durationMs).toBe('number');
    expect(create.requestId).toMatch(/^[0-9a-f-]{36}$/);
    expect(typeof create.time).toBe('number');
    expect(v4.find((l) => l.route === '/client/v4/zones/:zone_id/dns_records' && l.method === 'GET')).toMatchObject({ status: 200, accountId: account });
    const refused = v4.find((l) => l.route === '/client/v4/zones' && l.method === 'GET' && l.status !== 200)!;
    expect(refused.accountId).toBeUndefined();
    expect(v4.find((l) => l.route === 'unmatched')).toMatchObject({ status: 404, method: 'GET' });
  });

  it('writes one line per S3 request with the operation, and no key, signature or SSE-C key', async () => {
    const s3 = testS3Client(server.running.s3Url!);
    await s3.send(new CreateBucketCommand({ Bucket: 'access-log-bucket' }));
    const key = randomBytes(32);
    const ssec = { SSECustomerAlgorithm: 'AES256', SSECustomerKey: key.toString('base64'), SSECustomerKeyMD5: createHash('md5').update(key).digest('base64') };
    await s3.send(new PutObjectCommand({ Bucket: 'access-log-bucket', Key: 'enc', Body: 'hello', ...ssec }));
    const got = await s3.send(new GetObjectCommand({ Bucket: 'access-log-bucket', Key: 'enc', ...ssec }));
    expect(await got.Body!.transformToString()).toBe('hello');
    await s3.send(new PutObjectCommand({ Bucket: 'access-log-bucket', Key: 'plain', Body: 'plain' }));
    const url = await presignedUrl('GET', new URL(server.running.s3Url!), '/access-log-bucket/plain');
    expect(await (await fetch(url)).text()).toBe('plain');
    await waitUntil(() => accessLines(capture.lines(), 's3').length >= 5, 10_000, 's3 access lines');
    const s3Lines = accessLines(capture.lines(), 's3');
    expect(s3Lines.map((l) => l.route)).toEqual(expect.arrayContaining(['CreateBucket', 'PutObject', 'GetObject']));
    const put = s3Lines.find((l) => l.route === 'PutObject')!;
    expect(put).toMatchObject({ method: 'PUT', status: 200, bytesIn: 5 });
    expect(put.requestId).toMatch(/^[0-9A-F]{16}$/);
    expect(s3Lines.filter((l) => l.route === 'GetObject').map((l) => l.bytes)).toEqual([5, 5]);
    const text = capture.text();
    for (const secret of [TEST_S3_SECRET, ssec.SSECustomerKey, key.toString('hex'), new URL(url).searchParams.get('X-Amz-Signature')!]) expect(text).not.toContain(secret);
  });

  it('writes DNS query lines (UDP and TCP) and one summary line for queries over the rate', async () => {
    expect((await dig(server.dnsPort!, 'access-log.example', 'SOA')).status).toBe('NOERROR');
    expect((await dig(server.dnsPort!, 'www.access-log.example', 'AAAA', { tcp: true })).status).toBe('NXDOMAIN');
    await waitUntil(() => accessLines(capture.lines(), 'dns').length >= 2, 10_000, 'dns access lines');
    const dns = accessLines(capture.lines(), 'dns');
    expect(dns.find((l) => l.transport === 'udp' && l.route === 'SOA')).toMatchObject({ method: 'QUERY', status: 'NOERROR', name: 'access-log.example', remote: '127.0.0.1' });
    expect(dns.find((l) => l.transport === 'tcp' && l.route === 'AAAA')).toMatchObject({ status: 'NXDOMAIN' });

    // 60 queries at once, rate 20 a second: at most 20 lines in that second, then one line counting the rest.
    const query = Buffer.from('abcd01000001000000000000076578616d706c6503636f6d0000010001', 'hex');
    await Promise.all(Array.from({ length: 60 }, () => udpExchange(server.dnsPort!, query, 2000)));
    await new Promise((r) => setTimeout(r, 1100));
    await dig(server.dnsPort!, 'access-log.example', 'NS');
    await waitUntil(() => accessLines(capture.lines(), 'dns').some((l) => typeof l.skipped === 'number'), 10_000, 'a skipped-queries line');
    const summary = accessLines(capture.lines(), 'dns').find((l) => typeof l.skipped === 'number')!;
    expect(summary.skipped).toBeGreaterThanOrEqual(40 - 2);
    expect(summary.limit).toBe(20);
  });

  it('logs a second user under their own account and never anyone\'s credentials', async () => {
    const other = await addUser(server, 'second-access@example.com');
    await other.sdk().zones.list();
    await waitUntil(() => accessLines(capture.lines(), 'v4').some((l) => l.accountId === other.accountId), 10_000, 'the second user\'s line');
    const text = capture.text();
    for (const secret of [server.key, other.key, API_TOKEN, 'f'.repeat(37), TEST_S3_SECRET]) expect(text).not.toContain(secret);
  });
});
