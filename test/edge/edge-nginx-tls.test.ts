/**
 * nginx ends TLS on `--edge-tls` (its stream module installed): two users, each with a zone whose universal
 * certificate the local CA issued, on the one HTTPS listener. Each hostname gets its own zone's certificate and
 * its own script (nothing of the other's); HTTPS requests take the fast path once learned, and are recorded once
 * with the scheme https and the client's own address; the script sees https (URL, X-Forwarded-Proto). The zone
 * settings nginx acts on per server name: min_tls_version, tls_1_3, security_header (HSTS); a zone with
 * automatic_https_rewrites goes to Node's listener (which rewrites HTML), and so does a name without a
 * certificate (a handshake failure without `--tls-cert`).
 */
import http from 'node:http';
import { availableParallelism } from 'node:os';
import https from 'node:https';
import tls from 'node:tls';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { addUser } from '../helpers/users.js';
import { PERMISSION_GROUPS } from '../../src/accounts/permission-groups.js';
import { findNginx, findStreamModule } from '../../src/runtime/front/nginx-front.js';
import { frontWorkerCount } from '../../src/runtime/front/nginx-config.js';
import { accessLines, captureLogger } from '../ops/capture-logger.js';
import { eventually } from './harness.js';

interface Who { email: string; key: string }
interface Answer { status: number; headers: Record<string, string | string[] | undefined>; body: string; protocol: string | null }

const capture = captureLogger('info');
let server: TestServer;
let tlsPort: number;
const ONE = 'tls-one.test';
const TWO = 'tls-two.test';
const zones: Record<string, string> = {};
let first: Who;
let second: Who;

async function v4(who: Who, method: string, p: string, body?: unknown, type = 'application/json'): Promise<any> {
  const res = await fetch(`${server.apiBase}${p}`, { method, headers: { 'x-auth-email': who.email, 'x-auth-key': who.key, 'content-type': type }, body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body) });
  return res.json();
}

/** A zone of `who`'s with a script on `www.NAME/*` echoing what it saw (nothing behind the route: the fast path may take it). */
async function deploy(who: Who, name: string, script: string): Promise<void> {
  const account = (await v4(who, 'GET', '/accounts')).result[0].id as string;
  const zone = await v4(who, 'POST', '/zones', { account: { id: account }, name, type: 'full' });
  expect(zone.success, JSON.stringify(zone.errors)).toBe(true);
  zones[name] = zone.result.id;
  const source = `export default { fetch(r) { return Response.json({ script: '${script}', url: r.url, proto: r.headers.get('x-forwarded-proto'), ip: r.headers.get('cf-connecting-ip') }, { headers: { 'strict-transport-security': 'max-age=5' } }); } };`;
  const boundary = 'stratus-nginx-tls';
  const body = [`--${boundary}`, 'Content-Disposition: form-data; name="metadata"', 'Content-Type: application/json', '',
    JSON.stringify({ main_module: 'index.js', compatibility_date: '2024-09-23' }), `--${boundary}`,
    'Content-Disposition: form-data; name="index.js"; filename="index.js"', 'Content-Type: application/javascript+module', '', source, `--${boundary}--`, ''].join('\r\n');
  expect((await v4(who, 'PUT', `/accounts/${account}/workers/scripts/${script}`, body, `multipart/form-data; boundary=${boundary}`)).success).toBe(true);
  expect((await v4(who, 'POST', `/zones/${zone.result.id}/workers/routes`, { pattern: `www.${name}/*`, script })).success).toBe(true);
}

/** An HTTPS GET with this server name and Host (the local CA is not trusted here: the names are checked instead). */
function get(name: string, p = '/', opts: tls.ConnectionOptions & { localAddress?: string } = {}): Promise<Answer> {
  return new Promise((resolve, reject) => {
    https.get({ host: '127.0.0.1', port: tlsPort, path: p, servername: name, headers: { host: name }, agent: false, rejectUnauthorized: false, ...opts }, (res) => {
      let body = '';
      const protocol = (res.socket as tls.TLSSocket).getProtocol();
      res.on('data', (c: Buffer) => { body += c.toString(); });
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body, protocol }));
    }).on('error', reject);
  });
}

/** A plain HTTP GET through `--edge` with this Host. */
function plainGet(host: string, p: string): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const port = Number(new URL(server.running.edgeUrl!).port);
    http.get({ host: '127.0.0.1', port, path: p, headers: { host }, agent: false }, (res) => {
      let body = '';
      res.on('data', (c: Buffer) => { body += c.toString(); });
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body, protocol: null }));
    }).on('error', reject);
  });
}

/** The names of the certificate served for `name`; rejects when the handshake fails. */
function servedNames(name: string, opts: tls.ConnectionOptions = {}): Promise<string> {
  return new Promise((resolve, reject) => {
    const s = tls.connect({ host: '127.0.0.1', port: tlsPort, servername: name, rejectUnauthorized: false, ...opts }, () => {
      resolve(s.getPeerCertificate().subjectaltname ?? '');
      s.end();
    });
    s.on('error', reject);
  });
}

const nginxConfig = (): string => server.running.edge!.runtime.nginxConfig() ?? '';

/**
 * Until the nginx workers of the configuration before a change have stopped taking connections: a reload starts
 * new workers before it tells the old ones to finish, and an old worker routes a handshake by the names as they
 * were (a name moved to another TLS range is then served by the range it left, with its old versions:
 * docs/edge.md, "Where TLS ends"). Called once the change was seen answered, so the workers left are the new ones.
 */
async function oldWorkersDone(): Promise<void> {
  await eventually(async () => expect(server.running.edge!.runtime.frontPids()).toHaveLength(frontWorkerCount(availableParallelism())));
}

describe.skipIf(!findNginx() || !findStreamModule())('nginx ends TLS for names with a certificate in the store', () => {
  beforeAll(async () => {
    server = await startTestServer({ logger: capture.logger, flags: { edge: '127.0.0.1:0', 'edge-front': 'nginx', 'edge-fast-path': 'on', 'edge-tls': '127.0.0.1:0' },
      config: { certificates: { acmeDirectory: undefined, acmeEmail: undefined, acmeCaFile: undefined, acmeEab: undefined, renewDays: 30, tickMs: 200, firstRetryMs: 200 } } });
    tlsPort = Number(new URL(server.running.edgeTlsUrl!).port);
    first = { email: server.email, key: server.key };
    const user = await addUser(server, 'tls-second@example.com');
    second = { email: user.email, key: user.key };
    await deploy(first, ONE, 'one');
    await deploy(second, TWO, 'two');
    // both universal certificates issued and handed to nginx
    await eventually(async () => {
      const config = nginxConfig();
      for (const zone of [ONE, TWO]) expect(config).toContain(`"~*^[^.]+\\.${zone.replace('.', '\\.')}$" unix:`);
    }, 60_000);
  }, 120_000);
  afterAll(async () => { await server?.stop(); });

  it("gives each account's hostname its own certificate and script on the one listener", async () => {
    for (const [zone, other, script] of [[ONE, TWO, 'one'], [TWO, ONE, 'two']] as const) {
      const names = await eventually(() => servedNames(`www.${zone}`));
      expect(names).toContain(`DNS:*.${zone}`);
      expect(names).not.toContain(other);
      const res = await eventually(async () => {
        const r = await get(`www.${zone}`, '/hello?x=1');
        expect(r.status).toBe(200);
        return r;
      });
      expect(JSON.parse(res.body)).toEqual({ script, url: `https://www.${zone}/hello?x=1`, proto: 'https', ip: '127.0.0.1' });
    }
  });

  it('takes the fast path for HTTPS requests, each recorded once with the scheme https and the client address', async () => {
    const ray = await eventually(async () => {
      const r = await get(`www.${ONE}`, '/fast', { localAddress: '127.0.0.2' });
      expect(JSON.parse(r.body)).toMatchObject({ script: 'one', url: `https://www.${ONE}/fast`, proto: 'https', ip: '127.0.0.2' });
      const id = String(r.headers['cf-ray']);
      await eventually(async () => expect(accessLines(capture.lines(), 'edge').filter((l) => l.requestId === id)).toHaveLength(1), 10_000);
      expect(accessLines(capture.lines(), 'edge').find((l) => l.requestId === id)).toMatchObject({ fast: true });
      return id;
    }, 30_000);
    expect(accessLines(capture.lines(), 'edge').find((l) => l.requestId === ray)).toMatchObject({ route: 'script:one', scheme: 'https', remote: '127.0.0.2', status: 200 });
    // plain HTTP to the same hostname is recorded as http
    const plain = await plainGet(`www.${ONE}`, '/p');
    expect(JSON.parse(plain.body)).toMatchObject({ url: `http://www.${ONE}/p`, proto: 'http' });
    const id = plain.headers['cf-ray'];
    await eventually(async () => expect(accessLines(capture.lines(), 'edge').find((l) => l.requestId === id)).toMatchObject({ scheme: 'http' }));
  });

  it("acts on min_tls_version and tls_1_3 per server name; the other account's zone keeps its own", async () => {
    expect((await v4(first, 'PATCH', `/zones/${zones[ONE]}/settings/min_tls_version`, { value: '1.3' })).success).toBe(true);
    await eventually(async () => {
      // the version refused (not a handshake refused for another reason while nginx reloads)
      await expect(servedNames(`www.${ONE}`, { maxVersion: 'TLSv1.2' })).rejects.toThrow(/alert protocol version/i);
    }, 20_000);
    await oldWorkersDone();
    expect((await get(`www.${ONE}`)).protocol).toBe('TLSv1.3');
    expect((await get(`www.${TWO}`, '/', { maxVersion: 'TLSv1.2' })).protocol).toBe('TLSv1.2');
    // the second account's zone: tls_1_3 off caps it at TLS 1.2; the first's keeps 1.3
    expect((await v4(second, 'PATCH', `/zones/${zones[TWO]}/settings/tls_1_3`, { value: 'off' })).success).toBe(true);
    await eventually(async () => {
      await expect(servedNames(`www.${TWO}`, { minVersion: 'TLSv1.3' })).rejects.toThrow(/alert protocol version/i);
    }, 20_000);
    await oldWorkersDone();
    expect((await get(`www.${TWO}`)).protocol).toBe('TLSv1.2');
    expect((await get(`www.${ONE}`)).protocol).toBe('TLSv1.3');
    // neither account can change the other's zone
    expect((await v4(second, 'PATCH', `/zones/${zones[ONE]}/settings/min_tls_version`, { value: '1.0' })).success).toBe(false);
  });

  it("refuses the other account's key and token (404 7003) on every route that shapes the first's TLS names, learning nothing, and the listener keeps serving the first's certificate", async () => {
    const user = await addUser(server, 'tls-second@example.com', second.key);
    const group = (name: string) => PERMISSION_GROUPS.find((g) => g.name === name)!.id;
    const token = ((await user.sdk().user.tokens.create({ name: 'all', policies: [{
      effect: 'allow', permission_groups: ['Zone Settings Write', 'SSL and Certificates Write', 'Zone Write'].map((name) => ({ id: group(name) })),
      resources: { 'com.cloudflare.api.account.zone.*': '*' },
    }] } as never)) as { value: string }).value;
    const before = await servedNames(`www.${ONE}`);
    const zone = zones[ONE]!;
    const calls: Array<[string, string, unknown?]> = [
      ['GET', `/zones/${zone}`], ['GET', `/zones/${zone}/settings/min_tls_version`], ['PATCH', `/zones/${zone}/settings/min_tls_version`, { value: '1.0' }],
      ['PATCH', `/zones/${zone}/settings/tls_1_3`, { value: 'off' }], ['PATCH', `/zones/${zone}/settings/ssl`, { value: 'off' }],
      ['PATCH', `/zones/${zone}/settings/automatic_https_rewrites`, { value: 'on' }], ['GET', `/zones/${zone}/settings/security_header`],
      ['GET', `/zones/${zone}/ssl/universal/settings`], ['PATCH', `/zones/${zone}/ssl/universal/settings`, { enabled: false }],
      ['GET', `/zones/${zone}/ssl/certificate_packs?status=all`], ['GET', `/zones/${zone}/custom_certificates`],
    ];
    const ways: Record<string, string>[] = [{ 'x-auth-email': second.email, 'x-auth-key': second.key }, { authorization: `Bearer ${token}` }];
    for (const headers of ways) {
      for (const [method, p, body] of calls) {
        const res = await fetch(`${server.apiBase}${p}`, { method, headers: { ...headers, 'content-type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body) });
        const text = await res.text();
        expect([res.status, (JSON.parse(text) as { errors: { code: number }[] }).errors[0]?.code], `${method} ${p}`).toEqual([404, 7003]);
        expect(text, `${method} ${p}`).not.toContain(ONE);
      }
    }
    // nothing changed: the first's name is still nginx's, with the same certificate, at TLS 1.3 only
    const setting = await v4(first, 'GET', `/zones/${zone}/settings/min_tls_version`);
    expect(setting.result.value).toBe('1.3');
    expect(await servedNames(`www.${ONE}`)).toBe(before);
    await expect(servedNames(`www.${ONE}`, { maxVersion: 'TLSv1.2' })).rejects.toThrow(/protocol version|alert/i);
    expect(nginxConfig()).toContain(`"~*^[^.]+\\.${ONE.replace('.', '\\.')}$" unix:`);
  });

  it('adds the zone\'s HSTS header to its HTTPS answers only, in place of the script\'s own', async () => {
    const hsts = { strict_transport_security: { enabled: true, max_age: 86400, include_subdomains: true, nosniff: true } };
    expect((await v4(first, 'PATCH', `/zones/${zones[ONE]}/settings/security_header`, { value: hsts })).success).toBe(true);
    await eventually(async () => {
      const r = await get(`www.${ONE}`, '/h');
      expect(r.headers['strict-transport-security']).toBe('max-age=86400; includeSubDomains');
      expect(r.headers['x-content-type-options']).toBe('nosniff');
    }, 20_000);
    // the other zone sets none: its script's own header passes unchanged (the first zone's replaced it)
    const other = await get(`www.${TWO}`, '/h');
    expect(other.headers['strict-transport-security']).toBe('max-age=5');
    expect(other.headers['x-content-type-options']).toBeUndefined();
    const plain = await plainGet(`www.${ONE}`, '/h');
    expect(plain.status).toBe(200);
    expect(plain.headers['strict-transport-security']).toBe('max-age=5');
  });

  it('leaves a zone with automatic_https_rewrites to Node, which still serves its certificate', async () => {
    expect((await v4(second, 'PATCH', `/zones/${zones[TWO]}/settings/automatic_https_rewrites`, { value: 'on' })).success).toBe(true);
    await eventually(async () => expect(nginxConfig()).not.toContain(`${TWO.replace('.', '\\.')}$" unix:`), 20_000);
    await server.running.edge!.runtime.frontSettled();
    expect(await servedNames(`www.${TWO}`)).toContain(`DNS:*.${TWO}`);
    expect(JSON.parse((await get(`www.${TWO}`, '/n')).body)).toMatchObject({ script: 'two', url: `https://www.${TWO}/n`, proto: 'https' });
  });

  it('leaves a name without a certificate to Node (a failed handshake here, no fallback certificate)', async () => {
    await expect(servedNames('nothing-here.test')).rejects.toThrow();
    await expect(servedNames(`a.b.${ONE}`)).rejects.toThrow();
  });
});
