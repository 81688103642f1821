/** Helpers of the HTTPS edge tests: a certificate for test zones from a test CA, and clients trusting it. */
import { execFile, execFileSync } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import path from 'node:path';
import type tls from 'node:tls';
import { makeCa } from '../helpers/tls-certs.js';

/** An answer read whole. */
export interface Answer { status: number; headers: http.IncomingHttpHeaders; body: string }

/** Credentials of a v4 caller. */
export interface Who { email: string; key: string }

/** Makes a CA in `dir` and a certificate (`edge.pem`, `edge.key`) for 127.0.0.1, localhost and `*.ZONE` of each zone. */
export function makeEdgeCert(dir: string, zones: string[]): { ca: Buffer; caFile: string; cert: string; key: string } {
  makeCa(dir);
  const names = ['IP:127.0.0.1', 'DNS:localhost', ...zones.map((z) => `DNS:*.${z}`)].join(',');
  fs.writeFileSync(path.join(dir, 'edge.ext'), `subjectAltName=${names}\nbasicConstraints=CA:FALSE\nextendedKeyUsage=serverAuth\n`);
  const ossl = (args: string[]): void => { execFileSync('openssl', args, { cwd: dir, stdio: 'pipe' }); };
  ossl(['req', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-keyout', 'edge.key', '-out', 'edge.csr', '-subj', '/CN=localhost']);
  ossl(['x509', '-req', '-in', 'edge.csr', '-CA', 'ca.pem', '-CAkey', 'ca.key', '-set_serial', '0x5e77', '-days', '2', '-out', 'edge.pem', '-extfile', 'edge.ext']);
  const caFile = path.join(dir, 'ca.pem');
  return { ca: fs.readFileSync(caFile), caFile, cert: path.join(dir, 'edge.pem'), key: path.join(dir, 'edge.key') };
}

function collect(res: http.IncomingMessage, resolve: (a: Answer) => void): void {
  const chunks: Buffer[] = [];
  res.on('data', (c: Buffer) => chunks.push(c));
  res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks).toString('utf8') }));
}

/** A v4 request over HTTPS to `apiBase` with `who`'s credentials. */
export function v4(apiBase: string, ca: Buffer, who: Who, method: string, p: string, body?: unknown): Promise<{ status: number; json: any }> {
  return new Promise((resolve, reject) => {
    const req = https.request(new URL(`${apiBase}${p}`), { method, ca, headers: { 'x-auth-email': who.email, 'x-auth-key': who.key, 'content-type': 'application/json' } }, (res) =>
      collect(res, (a) => resolve({ status: a.status, json: JSON.parse(a.body) })));
    req.on('error', reject);
    req.end(body === undefined ? undefined : JSON.stringify(body));
  });
}

/** A plain HTTP request to the `--edge` port with this Host. */
export function plain(port: number, host: string, p = '/', extra: Record<string, string> = {}): Promise<Answer> {
  return new Promise((resolve, reject) => {
    http.get({ host: '127.0.0.1', port, path: p, headers: { host, ...extra }, agent: false }, (res) => collect(res, resolve)).on('error', reject);
  });
}

/** An HTTPS request to the `--edge-tls` port with this server name and Host. */
export function secure(port: number, ca: Buffer, host: string, p = '/', maxVersion?: tls.SecureVersion): Promise<Answer> {
  return new Promise((resolve, reject) => {
    https.get({ host: '127.0.0.1', port, path: p, servername: host, ca, headers: { host: `${host}:${port}` }, agent: false, ...(maxVersion ? { maxVersion } : {}) },
      (res) => collect(res, resolve)).on('error', reject);
  });
}

/** curl over HTTPS to `host` on `port` (resolved to 127.0.0.1): its exit code and `STATUS VERIFY_RESULT`. */
export function curl(port: number, caFile: string, host: string, args: string[]): Promise<{ code: number; stdout: string }> {
  return new Promise((resolve) => {
    execFile('curl', ['-sS', '-o', '/dev/null', '-w', '%{http_code} %{ssl_verify_result}', '--cacert', caFile,
      '--resolve', `${host}:${port}:127.0.0.1`, ...args, `https://${host}:${port}/curl`], { timeout: 60_000 },
    (err, stdout) => resolve({ code: err ? Number((err as { code?: number }).code ?? 1) : 0, stdout }));
  });
}

/** Creates zone `name` in `who`'s account (universal SSL off) with a proxied `www.NAME` A record to 127.0.0.1; returns its id. */
export async function zoneWithRecord(apiBase: string, ca: Buffer, who: Who, name: string): Promise<string> {
  const account = (await v4(apiBase, ca, who, 'GET', '/accounts')).json.result[0].id as string;
  const zone = await v4(apiBase, ca, who, 'POST', '/zones', { account: { id: account }, name, type: 'full' });
  if (!zone.json.success) throw new Error(JSON.stringify(zone.json.errors));
  // these tests serve the listener's own certificate (the fallback): no universal certificate from the store
  const off = await v4(apiBase, ca, who, 'PATCH', `/zones/${zone.json.result.id}/ssl/universal/settings`, { enabled: false });
  if (!off.json.success) throw new Error(JSON.stringify(off.json.errors));
  const rec = await v4(apiBase, ca, who, 'POST', `/zones/${zone.json.result.id}/dns_records`, { type: 'A', name: `www.${name}`, content: '127.0.0.1', proxied: true, ttl: 1 });
  if (!rec.json.success) throw new Error(JSON.stringify(rec.json.errors));
  return zone.json.result.id as string;
}

/** PATCHes one zone setting; throws with the v4 errors when it fails. */
export async function setting(apiBase: string, ca: Buffer, who: Who, zoneId: string, name: string, value: unknown): Promise<void> {
  const res = await v4(apiBase, ca, who, 'PATCH', `/zones/${zoneId}/settings/${name}`, { value });
  if (!res.json.success) throw new Error(JSON.stringify(res.json.errors));
}

/** An origin answering JSON with what it was sent (Host, URL, forwarding headers, any front header that leaked, TLS). */
export function echoOrigin(tlsFiles?: { cert: string; key: string }): http.Server {
  const handler = (req: http.IncomingMessage, res: http.ServerResponse): void => {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ host: req.headers.host, url: req.url, proto: req.headers['x-forwarded-proto'], visitor: req.headers['cf-visitor'], ip: req.headers['cf-connecting-ip'],
      front: req.headers['x-stratus-front'] ?? null, scheme: req.headers['x-stratus-scheme'] ?? null, tls: (req.socket as { encrypted?: boolean }).encrypted === true }));
  };
  return tlsFiles ? https.createServer({ cert: fs.readFileSync(tlsFiles.cert), key: fs.readFileSync(tlsFiles.key) }, handler) : http.createServer(handler);
}
