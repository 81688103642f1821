/** Helpers of the certificate tests: openssl s_client against an HTTPS listener, a script deployed on a route. */
import { execFile } from 'node:child_process';
import https from 'node:https';
import tls from 'node:tls';
import type { TestServer } from '../helpers/server.js';

/** What `openssl s_client -verify_return_error` saw: its exit code, the verify line and the leaf's names. */
export interface Handshake { code: number; verified: boolean; output: string }

/** Connects with `-servername name` and verifies the chain against `caFile` (a failed verification fails the handshake). */
export function sClient(port: number, name: string, caFile: string): Promise<Handshake> {
  return new Promise((resolve) => {
    const child = execFile('openssl', ['s_client', '-connect', `127.0.0.1:${port}`, '-servername', name, '-CAfile', caFile, '-verify_return_error', '-verify_hostname', name, '-brief'],
      { timeout: 30_000 }, (err, stdout, stderr) => {
        const output = `${stdout}\n${stderr}`;
        resolve({ code: err ? Number((err as { code?: number }).code ?? 1) : 0, verified: /Verification: OK/.test(output), output });
      });
    child.stdin?.end('Q\n');
  });
}

/** The serial number (hex, upper case) of the certificate served for `name`, trusting `ca` (undefined: not verified); rejects when the handshake fails. */
export function servedSerial(port: number, name: string, ca: string | Buffer | undefined): Promise<string> {
  return new Promise((resolve, reject) => {
    const s = tls.connect({ host: '127.0.0.1', port, servername: name, ...(ca ? { ca } : { rejectUnauthorized: false }) }, () => {
      resolve(s.getPeerCertificate().serialNumber.toUpperCase());
      s.end();
    });
    s.on('error', reject);
  });
}

/** Uploads a module script answering JSON with its URL and routes `pattern` of the zone to it. */
export async function deployScript(server: TestServer, who: { email: string; key: string }, accountId: string, zoneId: string, name: string, pattern: string): Promise<void> {
  const form = new FormData();
  form.set('metadata', new Blob([JSON.stringify({ main_module: 'index.js', compatibility_date: '2024-09-23' })], { type: 'application/json' }));
  form.set('index.js', new File(['export default { fetch(r) { return Response.json({ script: true, url: r.url }); } };'], 'index.js', { type: 'application/javascript+module' }));
  const headers = { 'x-auth-email': who.email, 'x-auth-key': who.key };
  const put = await fetch(`${server.apiBase}/accounts/${accountId}/workers/scripts/${name}`, { method: 'PUT', headers, body: form });
  if (put.status !== 200) throw new Error(`script upload: ${put.status} ${await put.text()}`);
  const route = await fetch(`${server.apiBase}/zones/${zoneId}/workers/routes`, { method: 'POST', headers: { ...headers, 'content-type': 'application/json' }, body: JSON.stringify({ pattern, script: name }) });
  if (route.status !== 200) throw new Error(`route: ${route.status} ${await route.text()}`);
}

/** An HTTPS GET through the edge with this server name, trusting `ca`. */
export function httpsGet(port: number, name: string, ca: string | Buffer, path = '/'): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    https.get({ host: '127.0.0.1', port, servername: name, ca, path, headers: { host: name }, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') }));
    }).on('error', reject);
  });
}
