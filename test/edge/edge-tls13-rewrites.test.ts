/**
 * `tls_1_3` and `automatic_https_rewrites` acted on by the HTTPS edge, end to end: Stratus with `--edge`,
 * `--edge-tls` and a test CA's certificate; two accounts, each with a zone; real clients (curl `--tlsv1.3`,
 * `--tls-max`, Node's TLS) and an origin answering HTML in pieces. Also: requests without a body reuse kept-alive
 * connections to the edge socket, and a new script version (a new workerd generation closing the old one's idle
 * connections) never turns one into a 502.
 */
import fs from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import tls from 'node:tls';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { addUser } from '../helpers/users.js';
import { eventually } from './harness.js';
import * as t from './tls-edge.js';

const A = 'tr-a.test';
const B = 'tr-b.test';
let dir: string;
let ca: Buffer;
let caFile: string;
let server: TestServer;
let origin: http.Server;
let edgePort: number;
let tlsPort: number;
let admin: t.Who;
let other: t.Who;
let zoneA: string;
let zoneB: string;

const page = (host: string) => [
  `<html><head><link href="http://www.${A}/s.css" rel=stylesheet><script src="http://www.${B}/b.js"></script></head>`,
  `<body><img src="http://www.${A}:80/i.png"><a href="http://example.org/">out</a><form action="http://www.${A}/f"></form>`,
  `<p>http://www.${A}/text for ${host}</p></body></html>`,
];

/** The TLS version Node's client negotiates with this server name (rejects when the handshake fails). */
function protocol(name: string, opts: tls.ConnectionOptions = {}): Promise<string> {
  return new Promise((resolve, reject) => {
    const s = tls.connect({ host: '127.0.0.1', port: tlsPort, servername: name, ca, ...opts }, () => { resolve(s.getProtocol() ?? ''); s.end(); });
    s.on('error', reject);
  });
}

const v4 = (who: t.Who, method: string, p: string, body?: unknown) => t.v4(server.apiBase, ca, who, method, p, body);
const setting = (who: t.Who, zoneId: string, name: string, value: unknown) => t.setting(server.apiBase, ca, who, zoneId, name, value);

beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'stratus-tls13-'));
  const made = t.makeEdgeCert(dir, [A, B]);
  ca = made.ca;
  caFile = made.caFile;
  // HTML in three writes, the first ending inside a tag
  origin = http.createServer((req, res) => {
    const [one, two, three] = page(String(req.headers.host));
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    res.write(one!.slice(0, 30));
    setTimeout(() => { res.write(one!.slice(30) + two!); setTimeout(() => res.end(three), 20); }, 20);
  });
  await new Promise<void>((r) => origin.listen(0, '127.0.0.1', r));
  server = await startTestServer({ flags: {
    edge: '127.0.0.1:0', 'edge-tls': '127.0.0.1:0', 'tls-cert': made.cert, 'tls-key': made.key,
    'origin-port': String((origin.address() as AddressInfo).port), 'origin-allow': '127.0.0.0/8',
  } });
  edgePort = Number(new URL(server.running.edgeUrl!).port);
  tlsPort = Number(new URL(server.running.edgeTlsUrl!).port);
  admin = { email: server.email, key: server.key };
  const user = await addUser(server, 'second-tr@example.com');
  other = { email: user.email, key: user.key };
  zoneA = await t.zoneWithRecord(server.apiBase, ca, admin, A);
  zoneB = await t.zoneWithRecord(server.apiBase, ca, other, B);
}, 120_000);

afterAll(async () => {
  await server?.stop();
  await new Promise((r) => origin?.close(r));
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
});

describe('tls_1_3', () => {
  it('is on by default: TLS 1.3 is negotiated (Node, curl --tlsv1.3)', async () => {
    expect((await v4(admin, 'GET', `/zones/${zoneA}/settings/tls_1_3`)).json.result).toMatchObject({ id: 'tls_1_3', value: 'on' });
    expect(await protocol(`www.${A}`)).toBe('TLSv1.3');
    expect(await t.curl(tlsPort, caFile, `www.${A}`, ['--tlsv1.3'])).toMatchObject({ code: 0, stdout: '200 0' });
  });

  it('off: that zone\'s handshakes stop at TLS 1.2 and a TLS 1.3-only client is refused; the other account\'s zone keeps 1.3', async () => {
    await setting(admin, zoneA, 'tls_1_3', 'off');
    await eventually(async () => expect(await protocol(`www.${A}`)).toBe('TLSv1.2'));
    await expect(protocol(`www.${A}`, { minVersion: 'TLSv1.3' })).rejects.toThrow(/protocol version|alert|unsupported/i);
    expect((await t.curl(tlsPort, caFile, `www.${A}`, ['--tlsv1.3'])).code).toBe(35);
    expect(await t.curl(tlsPort, caFile, `www.${A}`, ['--tls-max', '1.2'])).toMatchObject({ code: 0, stdout: '200 0' });
    expect(await protocol(`www.${B}`)).toBe('TLSv1.3');
    expect(await t.curl(tlsPort, caFile, `www.${B}`, ['--tlsv1.3'])).toMatchObject({ code: 0, stdout: '200 0' });
  });

  it('zrt is on (0-RTT aside); min_tls_version 1.3 keeps TLS 1.3 even when tls_1_3 is off', async () => {
    await setting(admin, zoneA, 'tls_1_3', 'zrt');
    await eventually(async () => expect(await protocol(`www.${A}`)).toBe('TLSv1.3'));
    await setting(admin, zoneA, 'tls_1_3', 'off');
    await setting(admin, zoneA, 'min_tls_version', '1.3');
    await eventually(async () => expect((await t.curl(tlsPort, caFile, `www.${A}`, ['--tls-max', '1.2'])).code).toBe(35));
    expect(await protocol(`www.${A}`)).toBe('TLSv1.3');
    await setting(admin, zoneA, 'min_tls_version', '1.0');
    await setting(admin, zoneA, 'tls_1_3', 'on');
  });

  it('another account cannot change it', async () => {
    const r = await v4(other, 'PATCH', `/zones/${zoneA}/settings/tls_1_3`, { value: 'off' });
    expect(r.json.success).toBe(false);
    expect((await v4(admin, 'GET', `/zones/${zoneA}/settings/tls_1_3`)).json.result.value).toBe('on');
  });
});

describe('automatic_https_rewrites', () => {
  it('is off by default: the HTML passes as the origin wrote it', async () => {
    expect((await v4(admin, 'GET', `/zones/${zoneA}/settings/automatic_https_rewrites`)).json.result.value).toBe('off');
    const r = await t.secure(tlsPort, ca, `www.${A}`);
    expect(r.body).toBe(page(`www.${A}:${tlsPort}`).join(''));
  });

  it('on: http:// links of hostnames served over HTTPS become https:// in src, href and action, over HTTPS only', async () => {
    await setting(admin, zoneA, 'automatic_https_rewrites', 'on');
    const r = await eventually(async () => {
      const a = await t.secure(tlsPort, ca, `www.${A}`);
      expect(a.body).toContain(`href="https://www.${A}/s.css"`);
      return a;
    });
    expect(r.body).toContain(`src="https://www.${B}/b.js"`); // another account's zone, served over HTTPS too
    expect(r.body).toContain(`src="https://www.${A}/i.png"`);
    expect(r.body).toContain(`action="https://www.${A}/f"`);
    expect(r.body).toContain('href="http://example.org/"'); // not served here
    expect(r.body).toContain(`<p>http://www.${A}/text`); // text, not an attribute
    expect(r.headers['content-length']).toBeUndefined();
    const plain = await t.plain(edgePort, `www.${A}`);
    expect(plain.body).toContain(`href="http://www.${A}/s.css"`);
    // the other account's zone keeps its own setting (off)
    const b = await t.secure(tlsPort, ca, `www.${B}`);
    expect(b.body).toContain(`href="http://www.${A}/s.css"`);
  });

  it('a hostname whose zone has ssl off is not rewritten to', async () => {
    await setting(other, zoneB, 'ssl', 'off');
    await eventually(async () => {
      const a = await t.secure(tlsPort, ca, `www.${A}`);
      expect(a.body).toContain(`src="http://www.${B}/b.js"`);
      expect(a.body).toContain(`href="https://www.${A}/s.css"`);
    });
    await setting(other, zoneB, 'ssl', 'flexible');
  });

  it('another account cannot turn it on for a zone it does not own', async () => {
    const r = await v4(other, 'PATCH', `/zones/${zoneA}/settings/automatic_https_rewrites`, { value: 'off' });
    expect(r.json.success).toBe(false);
    expect(r.json.errors[0].code).toBeGreaterThan(0);
  });
});

/** Uploads a script answering `text` as `who` (multipart over HTTPS with the test CA). */
async function upload(who: t.Who, account: string, name: string, text: string): Promise<void> {
  const boundary = 'stratus-keepalive';
  const source = `export default { fetch() { return new Response(${JSON.stringify(text)}); } };`;
  const body = [`--${boundary}`, 'Content-Disposition: form-data; name="metadata"', 'Content-Type: application/json', '',
    JSON.stringify({ main_module: 'index.js', compatibility_date: '2024-09-23' }), `--${boundary}`,
    'Content-Disposition: form-data; name="index.js"; filename="index.js"', 'Content-Type: application/javascript+module', '', source, `--${boundary}--`, ''].join('\r\n');
  const status = await new Promise<number>((resolve, reject) => {
    const req = https.request(new URL(`${server.apiBase}/accounts/${account}/workers/scripts/${name}`), { method: 'PUT', ca,
      headers: { 'x-auth-email': who.email, 'x-auth-key': who.key, 'content-type': `multipart/form-data; boundary=${boundary}` } }, (res) => { res.resume(); resolve(res.statusCode ?? 0); });
    req.on('error', reject);
    req.end(body);
  });
  expect(status).toBe(200);
}

describe('connections from the HTTPS listener to the edge socket', () => {
  it('kept alive for GETs; a new generation closing them never shows as a 502', async () => {
    const account = (await v4(admin, 'GET', '/accounts')).json.result[0].id as string;
    await upload(admin, account, 'keepalive', 'one');
    expect((await v4(admin, 'POST', `/zones/${zoneA}/workers/routes`, { pattern: `www.${A}/ka/*`, script: 'keepalive' })).json.success).toBe(true);
    await eventually(async () => expect((await t.secure(tlsPort, ca, `www.${A}`, '/ka/x')).body).toBe('one'));
    const seen: number[] = [];
    let stop = false;
    const load = Promise.all(Array.from({ length: 4 }, async () => {
      while (!stop) seen.push((await t.secure(tlsPort, ca, `www.${A}`, '/ka/x')).status);
    }));
    await upload(admin, account, 'keepalive', 'two');
    await eventually(async () => expect((await t.secure(tlsPort, ca, `www.${A}`, '/ka/x')).body).toBe('two'));
    await upload(admin, account, 'keepalive', 'three');
    await eventually(async () => expect((await t.secure(tlsPort, ca, `www.${A}`, '/ka/x')).body).toBe('three'));
    stop = true;
    await load;
    expect(seen.length).toBeGreaterThan(0);
    expect(seen.filter((s) => s !== 200)).toEqual([]);
  }, 120_000);
});
