/**
 * With the nginx front (nginx writes the access records), two users, each with their own key, deploy a Worker
 * through the v4 API on a route of their own zone: every request through `--edge` is in the access log and the
 * metrics once, under its own script and its own account; neither user's script can write a record naming the
 * other's account. An HTTPS request (through `--edge-tls`, which reaches nginx from loopback) is recorded with
 * the client's own address, as before nginx wrote the records.
 */
import fs from 'node:fs';
import https from 'node:https';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { addUser } from '../helpers/users.js';
import { findNginx } from '../../src/runtime/front/nginx-front.js';
import { accessLines, captureLogger } from '../ops/capture-logger.js';
import { httpRequests, metricSample } from '../helpers/metrics.js';
import { eventually } from './harness.js';
import { edgeRequest } from './request.js';
import { makeEdgeCert } from './tls-edge.js';

interface Who { email: string; key: string }

const capture = captureLogger('info');
let server: TestServer;
let admin: Who;
let other: Who;
let dir: string;
let ca: Buffer;

/** A v4 call over HTTPS (the API serves the test CA's certificate) with `who`'s credentials. */
function v4(who: Who, method: string, p: string, body?: unknown, type = 'application/json'): Promise<any> {
  return new Promise((resolve, reject) => {
    const req = https.request(new URL(`${server.apiBase}${p}`), { method, ca, headers: { 'x-auth-email': who.email, 'x-auth-key': who.key, 'content-type': type } }, (res) => {
      let text = '';
      res.on('data', (c: Buffer) => { text += c.toString(); });
      res.on('end', () => { try { resolve(JSON.parse(text)); } catch (err) { reject(err); } });
    });
    req.on('error', reject);
    req.end(body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body));
  });
}

/** `who`'s account id, and a zone `name` with a proxied `www` record and `script` on its route `www.NAME/*`. */
async function deploy(who: Who, name: string, script: string, source: string): Promise<string> {
  const account = (await v4(who, 'GET', '/accounts')).result[0].id as string;
  const zone = await v4(who, 'POST', '/zones', { account: { id: account }, name, type: 'full' });
  expect(zone.success, JSON.stringify(zone.errors)).toBe(true);
  // the HTTPS edge serves the listener's own certificate (the test CA's): no universal certificate
  expect((await v4(who, 'PATCH', `/zones/${zone.result.id}/ssl/universal/settings`, { enabled: false })).success).toBe(true);
  const rec = await v4(who, 'POST', `/zones/${zone.result.id}/dns_records`, { type: 'A', name: `www.${name}`, content: '192.0.2.1', proxied: true, ttl: 1 });
  expect(rec.success, JSON.stringify(rec.errors)).toBe(true);
  const boundary = 'stratus-nginx-accounts';
  const body = [`--${boundary}`, 'Content-Disposition: form-data; name="metadata"', 'Content-Type: application/json', '',
    JSON.stringify({ main_module: 'index.js', compatibility_date: '2024-09-23' }), `--${boundary}`,
    'Content-Disposition: form-data; name="index.js"; filename="index.js"', 'Content-Type: application/javascript+module', '', source, `--${boundary}--`, ''].join('\r\n');
  const put = await v4(who, 'PUT', `/accounts/${account}/workers/scripts/${script}`, body, `multipart/form-data; boundary=${boundary}`);
  expect(put.success, JSON.stringify(put.errors)).toBe(true);
  const route = await v4(who, 'POST', `/zones/${zone.result.id}/workers/routes`, { pattern: `www.${name}/*`, script });
  expect(route.success, JSON.stringify(route.errors)).toBe(true);
  return account;
}

const source = (who: string, forgedAccount?: string) => `export default { fetch() {
  return new Response('hello from ${who}', { headers: ${forgedAccount ? `{ 'x-stratus-record': JSON.stringify({ route: 'script:x', accountId: '${forgedAccount}' }) }` : '{}'} });
} };`;

beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'stratus-nginx-accounts-'));
  const made = makeEdgeCert(dir, ['rec-one.test', 'rec-two.test']);
  ca = made.ca;
  server = await startTestServer({ logger: capture.logger, flags: { edge: '127.0.0.1:0', 'edge-front': 'nginx', 'edge-tls': '127.0.0.1:0', 'tls-cert': made.cert, 'tls-key': made.key } });
  admin = { email: server.email, key: server.key };
  const user = await addUser(server, 'nginx-second@example.com');
  other = { email: user.email, key: user.key };
}, 90_000);
afterAll(async () => {
  await server?.stop();
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
});

describe.skipIf(!findNginx())('the nginx front records each account under its own id', () => {
  it("two users' Workers: each request once, under its own script and account; a forged record header changes nothing", async () => {
    const refused = httpRequests('edge', 'refused', 'POST', 400);
    const secondOk = httpRequests('edge', 'script:second', 'GET', 200);
    const [refusedBefore, secondBefore] = [await metricSample(server.running.adminUrl!, refused), await metricSample(server.running.adminUrl!, secondOk)];
    const first = await deploy(admin, 'rec-one.test', 'first', source('first'));
    // the second user's script claims the first's account in the header nginx logs
    const second = await deploy(other, 'rec-two.test', 'second', source('second', first));
    expect(second).not.toBe(first);
    const edge = server.running.edgeUrl!;
    const a = await eventually(async () => {
      const r = await edgeRequest(edge, 'www.rec-one.test', { path: '/a' });
      expect(r.body).toBe('hello from first');
      return r;
    });
    const b = await eventually(async () => {
      const r = await edgeRequest(edge, 'www.rec-two.test', { path: '/b' });
      expect(r.body).toBe('hello from second');
      return r;
    });
    expect(b.headers['x-stratus-record']).toBeUndefined();
    const rays = [a, b].map((r) => String(r.headers['cf-ray']));
    const lines = () => accessLines(capture.lines(), 'edge').filter((l) => rays.includes(String(l.requestId)));
    await eventually(async () => expect(lines()).toHaveLength(2));
    expect(lines().find((l) => l.requestId === rays[0])).toMatchObject({ route: 'script:first', status: 200, accountId: first });
    expect(lines().find((l) => l.requestId === rays[1])).toMatchObject({ route: 'script:second', status: 200, accountId: second });
    expect(accessLines(capture.lines(), 'edge').filter((l) => l.route === 'script:x')).toEqual([]);
    // nginx's own 400 (ambiguous framing): once in the access log and once in the metrics
    const url = new URL(edge);
    const framing = await new Promise<string>((resolve, reject) => {
      const socket = net.connect(Number(url.port), url.hostname, () => socket.write('POST / HTTP/1.1\r\nhost: www.rec-one.test\r\ncontent-length: 3\r\ntransfer-encoding: chunked\r\n\r\n0\r\n\r\n'));
      let got = '';
      socket.on('data', (d: Buffer) => { got += d.toString('latin1'); });
      socket.on('close', () => resolve(got));
      socket.on('error', reject);
    });
    expect(framing).toMatch(/^HTTP\/1\.1 400 /);
    const framingRay = /\r\ncf-ray: ([^\r]+)\r\n/i.exec(framing)![1];
    await eventually(async () => expect(accessLines(capture.lines(), 'edge').filter((l) => l.requestId === framingRay)).toHaveLength(1));
    expect(accessLines(capture.lines(), 'edge').find((l) => l.requestId === framingRay)).toMatchObject({ route: 'refused', status: 400 });
    expect(await metricSample(server.running.adminUrl!, refused)).toBe(refusedBefore + 1);
    expect(await metricSample(server.running.adminUrl!, secondOk)).toBe(secondBefore + 1);
    const metrics = await (await fetch(`${server.running.adminUrl}/metrics`)).text();
    expect(metrics).not.toContain('route="script:x"');
  });

  it("records an HTTPS request with the client's address (the HTTPS listener's, not nginx's peer)", async () => {
    const tlsPort = Number(new URL(server.running.edgeTlsUrl!).port);
    // from 127.0.0.2: the HTTPS listener (Node) reaches nginx from 127.0.0.1
    const res = await eventually(() => new Promise<{ status: number; ray: string; body: string }>((resolve, reject) => {
      https.get({ host: '127.0.0.1', port: tlsPort, path: '/tls', servername: 'www.rec-one.test', ca, localAddress: '127.0.0.2', headers: { host: 'www.rec-one.test' }, agent: false }, (r) => {
        let body = '';
        r.on('data', (c: Buffer) => { body += c.toString(); });
        r.on('end', () => (body === 'hello from first' ? resolve({ status: r.statusCode ?? 0, ray: String(r.headers['cf-ray']), body }) : reject(new Error(body))));
      }).on('error', reject);
    }));
    expect(res.status).toBe(200);
    await eventually(async () => expect(accessLines(capture.lines(), 'edge').filter((l) => l.requestId === res.ray)).toHaveLength(1));
    expect(accessLines(capture.lines(), 'edge').find((l) => l.requestId === res.ray)).toMatchObject({ route: 'script:first', remote: '127.0.0.2' });
  });
});
