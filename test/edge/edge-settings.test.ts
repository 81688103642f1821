/**
 * Zone settings the edge acts on, end to end with real sockets and clients: Stratus started with `--edge`,
 * `--edge-tls` and a certificate from a test CA (openssl); settings written through the v4 API over HTTPS;
 * plain HTTP and HTTPS requests (node's clients and curl) through the edge to a local origin. Two accounts,
 * each with a zone and its own settings: one's settings never change how the other's hostnames are served.
 */
import { execFile, execFileSync } from 'node:child_process';
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
import { makeCa } from '../helpers/tls-certs.js';
import { eventually } from './harness.js';

const A = 'es-a.test';
const B = 'es-b.test';

let dir: string;
let ca: Buffer;
let server: TestServer;
let origin: http.Server;
let edgePort: number;
let tlsPort: number;
let admin: { email: string; key: string };
let other: { email: string; key: string };

interface Answer { status: number; headers: http.IncomingHttpHeaders; body: string }

function collect(res: http.IncomingMessage, resolve: (a: Answer) => void): void {
  const chunks: Buffer[] = [];
  res.on('data', (c: Buffer) => chunks.push(c));
  res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks).toString('utf8') }));
}

/** A v4 request over HTTPS with `who`'s credentials. */
function v4(who: { email: string; key: string }, method: string, p: string, body?: unknown): Promise<{ status: number; json: any }> {
  const url = new URL(`${server.apiBase}${p}`);
  return new Promise((resolve, reject) => {
    const req = https.request(url, { method, ca, headers: { 'x-auth-email': who.email, 'x-auth-key': who.key, 'content-type': 'application/json' } }, (res) =>
      collect(res, (a) => resolve({ status: a.status, json: JSON.parse(a.body) })));
    req.on('error', reject);
    req.end(body === undefined ? undefined : JSON.stringify(body));
  });
}

function plain(host: string, p = '/', extra: Record<string, string> = {}): Promise<Answer> {
  return new Promise((resolve, reject) => {
    http.get({ host: '127.0.0.1', port: edgePort, path: p, headers: { host, ...extra }, agent: false }, (res) => collect(res, resolve)).on('error', reject);
  });
}

function secure(host: string, p = '/', maxVersion?: tls.SecureVersion): Promise<Answer> {
  return new Promise((resolve, reject) => {
    https.get({ host: '127.0.0.1', port: tlsPort, path: p, servername: host, ca, headers: { host: `${host}:${tlsPort}` }, agent: false, ...(maxVersion ? { maxVersion } : {}) },
      (res) => collect(res, resolve)).on('error', reject);
  });
}

function curl(host: string, args: string[]): Promise<{ code: number; stdout: string }> {
  return new Promise((resolve) => {
    execFile('curl', ['-sS', '-o', '/dev/null', '-w', '%{http_code} %{ssl_verify_result}', '--cacert', path.join(dir, 'ca.pem'),
      '--resolve', `${host}:${tlsPort}:127.0.0.1`, ...args, `https://${host}:${tlsPort}/curl`], { timeout: 60_000 },
    (err, stdout) => resolve({ code: err ? Number((err as { code?: number }).code ?? 1) : 0, stdout }));
  });
}

async function setting(who: { email: string; key: string }, zoneId: string, name: string, value: unknown): Promise<void> {
  const res = await v4(who, 'PATCH', `/zones/${zoneId}/settings/${name}`, { value });
  expect(res.json.success, JSON.stringify(res.json.errors)).toBe(true);
}

async function zoneWithRecord(who: { email: string; key: string }, name: string): Promise<string> {
  const account = (await v4(who, 'GET', '/accounts')).json.result[0].id as string;
  const zone = await v4(who, 'POST', '/zones', { account: { id: account }, name, type: 'full' });
  expect(zone.json.success, JSON.stringify(zone.json.errors)).toBe(true);
  const rec = await v4(who, 'POST', `/zones/${zone.json.result.id}/dns_records`, { type: 'A', name: `www.${name}`, content: '127.0.0.1', proxied: true, ttl: 1 });
  expect(rec.json.success, JSON.stringify(rec.json.errors)).toBe(true);
  return zone.json.result.id as string;
}

let zoneA: string;
let zoneB: string;

beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'stratus-edge-tls-'));
  makeCa(dir);
  ca = fs.readFileSync(path.join(dir, 'ca.pem'));
  fs.writeFileSync(path.join(dir, 'edge.ext'), `subjectAltName=IP:127.0.0.1,DNS:localhost,DNS:*.${A},DNS:*.${B}\nbasicConstraints=CA:FALSE\nextendedKeyUsage=serverAuth\n`);
  const ossl = (args: string[]): void => { execFileSync('openssl', args, { cwd: dir, stdio: 'pipe' }); };
  ossl(['req', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-keyout', 'edge.key', '-out', 'edge.csr', '-subj', '/CN=localhost']);
  ossl(['x509', '-req', '-in', 'edge.csr', '-CA', 'ca.pem', '-CAkey', 'ca.key', '-set_serial', '0x5e77', '-days', '2', '-out', 'edge.pem', '-extfile', 'edge.ext']);

  origin = http.createServer((req, res) => {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ host: req.headers.host, url: req.url, proto: req.headers['x-forwarded-proto'], visitor: req.headers['cf-visitor'], ip: req.headers['cf-connecting-ip'], front: req.headers['x-stratus-front'] ?? null, scheme: req.headers['x-stratus-scheme'] ?? null }));
  });
  await new Promise<void>((r) => origin.listen(0, '127.0.0.1', r));
  server = await startTestServer({ flags: {
    edge: '127.0.0.1:0', 'edge-tls': '127.0.0.1:0', 'tls-cert': path.join(dir, 'edge.pem'), 'tls-key': path.join(dir, 'edge.key'),
    'origin-port': String((origin.address() as AddressInfo).port),
  } });
  edgePort = Number(new URL(server.running.edgeUrl!).port);
  tlsPort = Number(new URL(server.running.edgeTlsUrl!).port);
  admin = { email: server.email, key: server.key };
  const user = await addUser(server, 'second@example.com');
  other = { email: user.email, key: user.key };
  zoneA = await zoneWithRecord(admin, A);
  zoneB = await zoneWithRecord(other, B);
}, 120_000);

afterAll(async () => {
  await server?.stop();
  await new Promise((r) => origin?.close(r));
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
});

describe('the edge acts on zone settings', () => {
  it('ssl off (a new zone): HTTPS requests are redirected to http://, with no HSTS', async () => {
    const res = await eventually(async () => {
      const r = await secure(`www.${A}`, '/page?x=1');
      expect(r.status).toBe(301);
      return r;
    });
    expect(res.headers.location).toBe(`http://www.${A}:${edgePort}/page?x=1`);
    expect(res.headers['strict-transport-security']).toBeUndefined();
    expect((await plain(`www.${A}`, '/p')).status).toBe(200);
  });

  it('always_use_https on: plain HTTP gets a 301 to https:// on the HTTPS edge port; HTTPS reaches the origin as https', async () => {
    await setting(admin, zoneA, 'ssl', 'full');
    await setting(admin, zoneA, 'always_use_https', 'on');
    const res = await eventually(async () => {
      const r = await plain(`www.${A}`, '/to/page?q=1');
      expect(r.status).toBe(301);
      return r;
    });
    expect(res.headers.location).toBe(`https://www.${A}:${tlsPort}/to/page?q=1`);
    const over = await secure(`www.${A}`, '/to/page?q=1');
    expect(over.status).toBe(200);
    expect(JSON.parse(over.body)).toMatchObject({ host: `www.${A}:${tlsPort}`, url: '/to/page?q=1', proto: 'https', visitor: '{"scheme":"https"}', ip: '127.0.0.1' });
  });

  it('security_header: HSTS and nosniff on HTTPS answers only', async () => {
    await setting(other, zoneB, 'ssl', 'flexible');
    await setting(other, zoneB, 'security_header', { strict_transport_security: { enabled: true, max_age: 600, include_subdomains: false, preload: false, nosniff: false } });
    await setting(admin, zoneA, 'security_header', { strict_transport_security: { enabled: true, max_age: 31536000, include_subdomains: true, preload: true, nosniff: true } });
    const a = await eventually(async () => {
      const r = await secure(`www.${A}`);
      expect(r.headers['strict-transport-security']).toBe('max-age=31536000; includeSubDomains; preload');
      return r;
    });
    expect(a.headers['x-content-type-options']).toBe('nosniff');
    const b = await eventually(async () => {
      const r = await secure(`www.${B}`);
      expect(r.status).toBe(200);
      expect(r.headers['strict-transport-security']).toBe('max-age=600');
      return r;
    });
    expect(b.headers['x-content-type-options']).toBeUndefined();
    // plain HTTP: zone B does not redirect (its always_use_https is off, zone A's is on) and carries no HSTS
    const bPlain = await plain(`www.${B}`, '/plain');
    expect(bPlain.status).toBe(200);
    expect(JSON.parse(bPlain.body)).toMatchObject({ proto: 'http' });
    expect(bPlain.headers['strict-transport-security']).toBeUndefined();
  });

  it('min_tls_version 1.3: a TLS 1.2 client is refused in the handshake (node and curl); the other zone still takes TLS 1.2', async () => {
    await setting(admin, zoneA, 'min_tls_version', '1.3');
    await eventually(async () => {
      await expect(secure(`www.${A}`, '/', 'TLSv1.2')).rejects.toThrow(/protocol version|alert/i);
    });
    const refused = await curl(`www.${A}`, ['--tls-max', '1.2']);
    expect(refused.code).toBe(35); // CURLE_SSL_CONNECT_ERROR: the handshake failed
    const ok13 = await curl(`www.${A}`, ['--tlsv1.3']);
    expect(ok13).toMatchObject({ code: 0, stdout: '200 0' });
    const other12 = await curl(`www.${B}`, ['--tls-max', '1.2']);
    expect(other12).toMatchObject({ code: 0, stdout: '200 0' });
    expect((await secure(`www.${B}`, '/', 'TLSv1.2')).status).toBe(200);
  });

  it('a plain HTTP client cannot claim HTTPS or another address with the front headers', async () => {
    const res = await plain(`www.${B}`, '/spoof', { 'x-stratus-front': 'guess', 'x-stratus-scheme': 'https', 'x-stratus-client-ip': '203.0.113.9' });
    expect(res.status).toBe(200);
    expect(JSON.parse(res.body)).toMatchObject({ proto: 'http', ip: '127.0.0.1', front: null, scheme: null });
    expect(res.headers['strict-transport-security']).toBeUndefined();
  });

  it("a second account cannot change the first's zone settings", async () => {
    const res = await v4(other, 'PATCH', `/zones/${zoneA}/settings/always_use_https`, { value: 'off' });
    expect(res.json.success).toBe(false);
    expect(res.status).toBeGreaterThanOrEqual(400);
    expect((await plain(`www.${A}`, '/still')).status).toBe(301);
  });
});
