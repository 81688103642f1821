/**
 * The whole DNS-01 loop (reference clients-and-peers §2): certbot with its Cloudflare plugin, holding an API
 * token with DNS Write on the one zone (the setup its documentation recommends), writes the
 * challenge TXT through Stratus's v4 API, pebble (an ACME test CA) validates it by asking Stratus's DNS
 * server, and a certificate is issued. Skipped, with the reason printed, when certbot or pebble is missing.
 */
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { createZone } from '../helpers/api.js';
import { freePort } from './ports.js';

const run = promisify(execFile);
const CERTBOT = '/usr/bin/certbot';
const PEBBLE = ['/usr/bin/pebble', '/usr/sbin/pebble'].find((p) => fs.existsSync(p));
const missing = [!fs.existsSync(CERTBOT) && 'certbot', !PEBBLE && 'pebble'].filter(Boolean);
if (missing.length) console.log(`dns01-certbot: skipped, not installed: ${missing.join(', ')}`);

const ZONE = 'dns01.example';
const DOMAIN = `www.${ZONE}`;
let server: TestServer | undefined;
let pebble: ChildProcess | undefined;
let dir: string | undefined;

async function waitForPort(port: number, ms = 15_000): Promise<void> {
  const end = Date.now() + ms;
  for (;;) {
    const ok = await new Promise<boolean>((resolve) => {
      const s = net.connect(port, '127.0.0.1', () => { s.destroy(); resolve(true); });
      s.on('error', () => resolve(false));
    });
    if (ok) return;
    if (Date.now() > end) throw new Error(`port ${port} never opened`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

afterAll(async () => {
  if (pebble && pebble.exitCode === null) {
    pebble.kill('SIGTERM');
    await new Promise((r) => pebble!.once('exit', r));
  }
  await server?.stop();
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
});

/** Production's id of the DNS Write permission group. */
const DNS_WRITE_GROUP = '4755a26eedb94da69e1066d98aa820be';

describe.skipIf(missing.length > 0)('DNS-01 with certbot and pebble', () => {
  it('issues a certificate validated through Stratus DNS', async () => {
    server = await startTestServer();
    const zoneId = await createZone(server, ZONE);
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'stratus-dns01-'));
    await run('openssl', ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', path.join(dir, 'key.pem'), '-out', path.join(dir, 'cert.pem'),
      '-days', '30', '-subj', '/CN=localhost', '-addext', 'subjectAltName=DNS:localhost,IP:127.0.0.1']);
    const [acme, mgmt, http, tls] = [await freePort(), await freePort(), await freePort(), await freePort()];
    fs.writeFileSync(path.join(dir, 'pebble.json'), JSON.stringify({ pebble: {
      listenAddress: `127.0.0.1:${acme}`, managementListenAddress: `127.0.0.1:${mgmt}`,
      certificate: path.join(dir, 'cert.pem'), privateKey: path.join(dir, 'key.pem'), httpPort: http, tlsPort: tls,
      ocspResponderURL: '', externalAccountBindingRequired: false,
    } }));
    let pebbleLog = '';
    pebble = spawn(PEBBLE!, ['-config', path.join(dir, 'pebble.json'), '-dnsserver', `127.0.0.1:${server.dnsPort}`], {
      env: { ...process.env, PEBBLE_VA_NOSLEEP: '1', PEBBLE_WFE_NONCEREJECT: '0' }, stdio: ['ignore', 'pipe', 'pipe'],
    });
    pebble.stdout!.on('data', (d: Buffer) => { pebbleLog += d.toString(); });
    pebble.stderr!.on('data', (d: Buffer) => { pebbleLog += d.toString(); });
    await waitForPort(acme);
    // The setup certbot's documentation recommends: an API token with DNS Write on the one zone only.
    const token = await server.sdk().user.tokens.create({ name: 'certbot', policies: [{
      effect: 'allow', permission_groups: [{ id: DNS_WRITE_GROUP }], resources: { [`com.cloudflare.api.account.zone.${zoneId}`]: '*' },
    }] });
    fs.writeFileSync(path.join(dir, 'cf.ini'), `dns_cloudflare_api_token = ${token.value}\n`, { mode: 0o600 });
    const le = path.join(dir, 'le');
    const result = await run(CERTBOT, ['certonly', '--non-interactive', '--agree-tos', '-m', 'admin@example.com',
      '--server', `https://127.0.0.1:${acme}/dir`, '--config-dir', le, '--work-dir', le, '--logs-dir', le,
      '--dns-cloudflare', '--dns-cloudflare-credentials', path.join(dir, 'cf.ini'), '--dns-cloudflare-propagation-seconds', '1', '-d', DOMAIN,
    ], { env: { ...process.env, HOME: dir, CLOUDFLARE_API_URL: server.apiBase, REQUESTS_CA_BUNDLE: path.join(dir, 'cert.pem') }, timeout: 150_000 })
      .catch((err: { stdout?: string; stderr?: string }) => {
        const log = fs.existsSync(path.join(le, 'letsencrypt.log')) ? fs.readFileSync(path.join(le, 'letsencrypt.log'), 'utf8').slice(-4000) : '';
        throw new Error(`certbot failed:\n${err.stdout}\n${err.stderr}\n${log}\npebble:\n${pebbleLog.slice(-3000)}`);
      });
    expect(result.stdout + result.stderr).toMatch(/Successfully received certificate/);
    const chain = path.join(le, 'live', DOMAIN, 'fullchain.pem');
    const { stdout } = await run('openssl', ['x509', '-in', chain, '-noout', '-ext', 'subjectAltName']);
    expect(stdout).toContain(`DNS:${DOMAIN}`);
  }, 180_000);
});
