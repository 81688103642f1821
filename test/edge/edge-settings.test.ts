/**
 * Zone settings the edge acts on, end to end with real sockets and clients: Stratus started with `--edge`,
 * `--edge-tls` and a certificate from a test CA (openssl); settings written through the v4 API over HTTPS;
 * plain HTTP and HTTPS requests (node's clients and curl) through the edge to a local origin. Two accounts,
 * each with a zone and its own settings: one's settings never change how the other's hostnames are served.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import https from 'node:https';
import type http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import tls from 'node:tls';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config/config.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { addUser } from '../helpers/users.js';
import { eventually } from './harness.js';
import * as t from './tls-edge.js';

const A = 'es-a.test';
const B = 'es-b.test';

let dir: string;
let ca: Buffer;
let caFile: string;
let server: TestServer;
let origin: http.Server;
let originTls: http.Server;
let edgePort: number;
let tlsPort: number;
let admin: t.Who;
let other: t.Who;

const v4 = (who: t.Who, method: string, p: string, body?: unknown) => t.v4(server.apiBase, ca, who, method, p, body);
const plain = (host: string, p = '/', extra: Record<string, string> = {}) => t.plain(edgePort, host, p, extra);
const secure = (host: string, p = '/', maxVersion?: tls.SecureVersion) => t.secure(tlsPort, ca, host, p, maxVersion);
const curl = (host: string, args: string[]) => t.curl(tlsPort, caFile, host, args);
const setting = (who: t.Who, zoneId: string, name: string, value: unknown) => t.setting(server.apiBase, ca, who, zoneId, name, value);

let zoneA: string;
let zoneB: string;

beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'stratus-edge-tls-'));
  const made = t.makeEdgeCert(dir, [A, B]);
  ca = made.ca;
  caFile = made.caFile;
  origin = t.echoOrigin();
  await new Promise<void>((r) => origin.listen(0, '127.0.0.1', r));
  originTls = t.echoOrigin(made);
  await new Promise<void>((r) => originTls.listen(0, '127.0.0.1', r));
  server = await startTestServer({ flags: {
    edge: '127.0.0.1:0', 'edge-tls': '127.0.0.1:0', 'tls-cert': made.cert, 'tls-key': made.key,
    'origin-port': String((origin.address() as AddressInfo).port), 'origin-allow': '127.0.0.0/8', 'origin-tls-port': String((originTls.address() as AddressInfo).port),
  } });
  edgePort = Number(new URL(server.running.edgeUrl!).port);
  tlsPort = Number(new URL(server.running.edgeTlsUrl!).port);
  admin = { email: server.email, key: server.key };
  const user = await addUser(server, 'second@example.com');
  other = { email: user.email, key: user.key };
  zoneA = await t.zoneWithRecord(server.apiBase, ca, admin, A);
  zoneB = await t.zoneWithRecord(server.apiBase, ca, other, B);
}, 120_000);

afterAll(async () => {
  await server?.stop();
  await new Promise((r) => origin?.close(r));
  await new Promise((r) => originTls?.close(r));
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
});

describe('--edge-tls', () => {
  it('is off by default and needs --edge and a certificate', () => {
    expect(loadConfig({}).edgeTls).toBeUndefined();
    expect(loadConfig({ 'edge-tls': 'off' }).edgeTls).toBeUndefined();
    expect(loadConfig({ 'edge-tls': '127.0.0.1:8443', 'tls-cert': 'c.pem', 'tls-key': 'k.pem' }).edgeTls).toEqual({ host: '127.0.0.1', port: 8443 });
    // certificates come from the store by server name (test/certs/); --tls-cert is only the fallback
    expect(loadConfig({ 'edge-tls': '127.0.0.1:8443' }).edgeTls).toEqual({ host: '127.0.0.1', port: 8443 });
    expect(() => loadConfig({ 'edge-tls': '127.0.0.1:8443', edge: 'off', 'tls-cert': 'c.pem', 'tls-key': 'k.pem' })).toThrow(ConfigError);
  });
});

describe('the edge acts on zone settings', () => {
  it('a new zone (ssl flexible, automatic mode) serves HTTPS with plain HTTP to the origin; ssl off redirects HTTPS to http://', async () => {
    const settings = (await v4(admin, 'GET', `/zones/${zoneA}/settings/ssl_automatic_mode`)).json;
    expect(settings.result).toMatchObject({ id: 'ssl_automatic_mode', value: 'auto' });
    const served = await secure(`www.${A}`, '/new?x=1');
    expect(served.status).toBe(200);
    expect(JSON.parse(served.body)).toMatchObject({ url: '/new?x=1', proto: 'https', tls: false });
    expect(served.headers['strict-transport-security']).toBeUndefined();
    await setting(admin, zoneA, 'ssl', 'off');
    const res = await eventually(async () => {
      const r = await secure(`www.${A}`, '/page?x=1');
      expect(r.status).toBe(301);
      return r;
    });
    expect(res.headers.location).toBe(`http://www.${A}:${edgePort}/page?x=1`);
    expect(res.headers['strict-transport-security']).toBeUndefined();
    expect((await plain(`www.${A}`, '/p')).status).toBe(200);
    // the other account's new zone is not affected: it still serves HTTPS
    expect((await secure(`www.${B}`, '/b')).status).toBe(200);
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
    expect(JSON.parse(over.body)).toMatchObject({ host: `www.${A}:${tlsPort}`, url: '/to/page?q=1', proto: 'https', visitor: '{"scheme":"https"}', ip: '127.0.0.1', front: null, scheme: null, tls: true });
  });

  it('ssl strict: an origin certificate that does not verify (a private CA) is 526; full takes it', async () => {
    await setting(admin, zoneA, 'ssl', 'strict');
    const strict = await eventually(async () => {
      const r = await secure(`www.${A}`, '/strict');
      expect(r.status).toBe(526);
      return r;
    });
    expect(strict.body).toContain('Invalid SSL certificate');
    await setting(admin, zoneA, 'ssl', 'full');
    await eventually(async () => {
      const r = await secure(`www.${A}`, '/full');
      expect(r.status).toBe(200);
      expect(JSON.parse(r.body)).toMatchObject({ url: '/full', tls: true });
    });
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
    expect(JSON.parse(bPlain.body)).toMatchObject({ proto: 'http', tls: false }); // ssl flexible: plain HTTP to the origin
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

  it('a Worker on a route of the zone sees the https:// URL and scheme over HTTPS, http:// over plain HTTP', async () => {
    const account = (await v4(other, 'GET', '/accounts')).json.result[0].id as string;
    const boundary = 'stratus-edge-settings';
    const source = `export default { fetch(r) { return Response.json({ url: r.url, visitor: r.headers.get('cf-visitor'), front: r.headers.get('x-stratus-front') }); } };`;
    const body = [`--${boundary}`, 'Content-Disposition: form-data; name="metadata"', 'Content-Type: application/json', '',
      JSON.stringify({ main_module: 'index.js', compatibility_date: '2024-09-23' }), `--${boundary}`,
      'Content-Disposition: form-data; name="index.js"; filename="index.js"', 'Content-Type: application/javascript+module', '', source, `--${boundary}--`, ''].join('\r\n');
    const put = await new Promise<{ status: number; body: string }>((resolve, reject) => {
      const req = https.request(new URL(`${server.apiBase}/accounts/${account}/workers/scripts/echo-scheme`), { method: 'PUT', ca,
        headers: { 'x-auth-email': other.email, 'x-auth-key': other.key, 'content-type': `multipart/form-data; boundary=${boundary}` } }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString() }));
      });
      req.on('error', reject);
      req.end(body);
    });
    expect(put.status, put.body).toBe(200);
    const route = await v4(other, 'POST', `/zones/${zoneB}/workers/routes`, { pattern: `www.${B}/script/*`, script: 'echo-scheme' });
    expect(route.json.success, JSON.stringify(route.json.errors)).toBe(true);
    const over = await eventually(async () => {
      const r = await secure(`www.${B}`, '/script/x?y=1');
      expect(r.status).toBe(200);
      return r;
    });
    expect(JSON.parse(over.body)).toEqual({ url: `https://www.${B}:${tlsPort}/script/x?y=1`, visitor: '{"scheme":"https"}', front: null });
    expect(over.headers['strict-transport-security']).toBe('max-age=600');
    const bare = await plain(`www.${B}`, '/script/x');
    expect(JSON.parse(bare.body)).toEqual({ url: `http://www.${B}/script/x`, visitor: '{"scheme":"http"}', front: null });
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

  it('takes a new certificate on reload (SIGHUP) for new connections', async () => {
    const peerSerial = () => new Promise<string>((resolve, reject) => {
      const c = tls.connect({ host: '127.0.0.1', port: tlsPort, servername: `www.${B}`, ca }, () => { resolve(c.getPeerCertificate().serialNumber.toUpperCase()); c.end(); });
      c.on('error', reject);
    });
    expect(await peerSerial()).toBe('5E77');
    execFileSync('openssl', ['x509', '-req', '-in', 'edge.csr', '-CA', 'ca.pem', '-CAkey', 'ca.key', '-set_serial', '0x5e78', '-days', '2', '-out', 'edge.pem', '-extfile', 'edge.ext'], { cwd: dir, stdio: 'pipe' });
    expect(server.running.reloadTls().serial).toBe('5E78');
    expect(await peerSerial()).toBe('5E78');
  });
});
