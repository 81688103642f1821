/**
 * HTTPS on the v4 API and S3 listeners (`--tls-cert`/`--tls-key`) with certificates made by openssl: the
 * official SDK (in a child process trusting the test CA through NODE_EXTRA_CA_CERTS, as an operator would run
 * it) and @aws-sdk/client-s3 (an https.Agent with the CA) work over it; a second user still sees nothing of the
 * admin's; a client that does not trust the CA is refused, and plain HTTP to the port gets no answer.
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import https from 'node:https';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { CreateBucketCommand, GetObjectCommand, PutObjectCommand } from '@aws-sdk/client-s3';
import { NodeHttpHandler } from '@smithy/node-http-handler';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { testS3Client } from '../helpers/s3-sdk.js';
import { addUser } from '../helpers/users.js';
import { makeCa, makeServerCert, type PemPair } from '../helpers/tls-certs.js';

const run = promisify(execFile);
const ROOT = path.resolve(import.meta.dirname, '../..');

/** Runs `code` (an ES module using the official SDK) in a child node process that trusts `ca`; returns its JSON output. */
async function inChild(code: string, ca: string, env: Record<string, string>): Promise<unknown> {
  const { stdout } = await run(process.execPath, ['--input-type=module', '-e', code], { cwd: ROOT, env: { ...process.env, NODE_EXTRA_CA_CERTS: ca, ...env }, timeout: 60_000 });
  return JSON.parse(stdout) as unknown;
}

const SDK_SCRIPT = `
import Cloudflare from 'cloudflare';
const admin = new Cloudflare({ apiEmail: process.env.ADMIN_EMAIL, apiKey: process.env.ADMIN_KEY, baseURL: process.env.API, maxRetries: 0 });
const other = new Cloudflare({ apiEmail: process.env.OTHER_EMAIL, apiKey: process.env.OTHER_KEY, baseURL: process.env.API, maxRetries: 0 });
const account = (await admin.accounts.list()).result[0].id;
const zone = await admin.zones.create({ account: { id: account }, name: 'tls-sdk.example' });
const record = await admin.dns.records.create({ zone_id: zone.id, type: 'A', name: 'www', content: '198.51.100.1', ttl: 1 });
const otherZones = (await other.zones.list()).result.map((z) => z.name);
const otherGet = await other.zones.get({ zone_id: zone.id }).then(() => 'visible', (e) => e.constructor.name);
console.log(JSON.stringify({ zone: zone.name, record: record.content, otherZones, otherGet }));
`;

describe('HTTPS on the API and S3 listeners', () => {
  let dir: string;
  let ca: string;
  let pair: PemPair;
  let server: TestServer;
  beforeAll(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'stratus-tls-'));
    ca = makeCa(dir);
    pair = makeServerCert(dir, 'server', '5a01');
    server = await startTestServer({ flags: { 'tls-cert': pair.cert, 'tls-key': pair.key } });
  });
  afterAll(async () => {
    await server?.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('serves the v4 API over HTTPS to the official SDK; a second user sees none of the admin\'s zones', async () => {
    expect(server.apiBase).toMatch(/^https:\/\/127\.0\.0\.1:\d+\/client\/v4$/);
    expect(server.running.tls?.serial).toBe('5A01');
    const other = await addUser(server, 'tls-other@example.com');
    const out = await inChild(SDK_SCRIPT, ca, { API: server.apiBase, ADMIN_EMAIL: server.email, ADMIN_KEY: server.key, OTHER_EMAIL: other.email, OTHER_KEY: other.key });
    expect(out).toEqual({ zone: 'tls-sdk.example', record: '198.51.100.1', otherZones: [], otherGet: 'NotFoundError' });
  });

  it('serves S3 over HTTPS to @aws-sdk/client-s3 trusting the CA', async () => {
    const s3Url = server.running.s3Url!;
    expect(s3Url).toMatch(/^https:\/\//);
    const agent = new https.Agent({ ca: fs.readFileSync(ca) });
    const s3 = testS3Client(s3Url, { requestHandler: new NodeHttpHandler({ httpsAgent: agent }) });
    await s3.send(new CreateBucketCommand({ Bucket: 'tls-bucket' }));
    await s3.send(new PutObjectCommand({ Bucket: 'tls-bucket', Key: 'k', Body: 'over tls' }));
    const got = await s3.send(new GetObjectCommand({ Bucket: 'tls-bucket', Key: 'k' }));
    expect(await got.Body!.transformToString()).toBe('over tls');
    agent.destroy();
  });

  it('a client that does not trust the CA is refused; plain HTTP gets no v4 answer', async () => {
    const err = await fetch(`${server.apiBase}/zones`).catch((e: unknown) => e as Error);
    expect(err).toBeInstanceOf(Error);
    expect(String((err as Error & { cause?: Error }).cause?.message ?? (err as Error).message)).toMatch(/self.signed|unable to verify|certificate/i);
    const plain = await fetch(server.apiBase.replace('https:', 'http:') + '/zones').then((r) => r.status, () => 'refused');
    expect(plain).not.toBe(200);
  });
});
