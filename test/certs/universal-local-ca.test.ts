/**
 * Universal SSL out of the box (no --acme-directory): the local CA in the store issues `zone` + `*.zone` for a
 * new zone; `--edge-tls` without `--tls-cert` serves it by SNI (openssl verifies against `stratus ca export`'s
 * root), a name without a certificate fails the handshake, an HTTPS request reaches a deployed script; turning
 * universal SSL off takes the certificate away and on again brings a new one; a custom certificate wins for
 * its names; renewal by an injected clock; the SSL routes through the official SDK, a second user gets 7003,
 * a scoped token needs SSL and Certificates.
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import Cloudflare from 'cloudflare';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { addUser } from '../helpers/users.js';
import { accountId, api, createZone } from '../helpers/api.js';
import { ManualClock } from '../helpers/clock.js';
import { eventually } from '../edge/harness.js';
import { makeCa } from '../helpers/tls-certs.js';
import { deployScript, httpsGet, sClient, servedSerial } from './certs-helpers.js';
import { localRoot } from '../../src/certs/local-ca.js';

const run = promisify(execFile);
const ZONE = 'universal-local.test';
let server: TestServer;
let sdk: Cloudflare;
let tlsPort: number;
let dir: string;
let rootFile: string;
let root: string;
let zoneId: string;
const clock = new ManualClock();

/** A second user's two ways in: its global key, and its own token with SSL and Certificates Write on every zone. */
async function otherCallers(email: string): Promise<Array<Record<string, string | undefined>>> {
  const other = await addUser(server, email);
  const token = ((await other.sdk().user.tokens.create({ name: 'ssl-all', policies: [
    { effect: 'allow', permission_groups: [{ id: 'c03055bc037c4ea9afb9a9f104b7b721' }], resources: { 'com.cloudflare.api.account.zone.*': '*' } },
  ] } as never)) as { value: string }).value;
  return [
    { 'x-auth-email': other.email, 'x-auth-key': other.key },
    { 'x-auth-email': undefined, 'x-auth-key': undefined, authorization: `Bearer ${token}` },
  ];
}

async function activePack(zone: string): Promise<any> {
  return eventually(async () => {
    const packs = await sdk.ssl.certificatePacks.list({ zone_id: zone, status: 'all' });
    const pack = packs.result.find((p) => p.type === 'universal');
    expect(pack?.status, JSON.stringify(pack)).toBe('active');
    return pack;
  }, 30_000);
}

beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'stratus-certs-local-'));
  server = await startTestServer({ clock, flags: { edge: '127.0.0.1:0', 'edge-tls': '127.0.0.1:0' }, config: { certificates: { acmeDirectory: undefined, acmeEmail: undefined, acmeCaFile: undefined, acmeEab: undefined, renewDays: 30, tickMs: 200, firstRetryMs: 200 } } });
  sdk = server.sdk();
  tlsPort = Number(new URL(server.running.edgeTlsUrl!).port);
  zoneId = await createZone(server, ZONE);
  await sdk.dns.records.create({ zone_id: zoneId, type: 'A', name: `www.${ZONE}`, content: '192.0.2.1', proxied: true, ttl: 1 });
  await activePack(zoneId);
  rootFile = path.join(dir, 'root.pem');
}, 120_000);

afterAll(async () => {
  await server?.stop();
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
});

describe('universal SSL from the local CA', () => {
  it('stratus ca export prints the root the leaves chain to', async () => {
    const cli = path.resolve(import.meta.dirname, '../../dist/cli.js');
    const node = path.resolve(import.meta.dirname, '../../node_modules/.bin/node');
    const out = await run(node, [cli, 'ca', 'export', '--data-dir', server.dataDir], { env: { ...process.env, STRATUS_DATA_DIR: server.dataDir } });
    expect(out.stdout).toMatch(/^-----BEGIN CERTIFICATE-----/);
    const { X509Certificate } = await import('node:crypto');
    expect(new X509Certificate(out.stdout).subject).toContain('Stratus Local CA');
    root = out.stdout;
    fs.writeFileSync(rootFile, root);
  });

  it('serves the zone apex and one label under it (wildcard), verified by openssl against the root', async () => {
    for (const name of [ZONE, `www.${ZONE}`, `other.${ZONE}`]) {
      const hs = await sClient(tlsPort, name, rootFile);
      expect(hs.verified, hs.output).toBe(true);
      expect(hs.code, hs.output).toBe(0);
    }
  });

  it('a name without a certificate (two labels down, another zone) fails the handshake', async () => {
    for (const name of [`a.b.${ZONE}`, 'nothing-here.test']) {
      const hs = await sClient(tlsPort, name, rootFile);
      expect(hs.code, hs.output).not.toBe(0);
      expect(hs.verified).toBe(false);
    }
  });

  it('an HTTPS request reaches a deployed script', async () => {
    await deployScript(server, server, await accountId(server), zoneId, 'hello-tls', `www.${ZONE}/*`);
    const res = await eventually(async () => {
      const r = await httpsGet(tlsPort, `www.${ZONE}`, root, '/hi');
      expect(r.status).toBe(200);
      return r;
    });
    expect(JSON.parse(res.body)).toMatchObject({ script: true, url: `https://www.${ZONE}/hi` });
  });

  it('the pack in production\'s shape (SDK): hosts, status, certificates with expires_on, primary_certificate; verification', async () => {
    const pack = await activePack(zoneId);
    expect(pack).toMatchObject({ type: 'universal', hosts: [ZONE, `*.${ZONE}`], status: 'active', validation_method: 'txt', validity_days: 90 });
    expect(pack.certificates).toHaveLength(1);
    expect(pack.certificates[0]).toMatchObject({ hosts: [ZONE, `*.${ZONE}`], status: 'active', issuer: 'Stratus', signature: 'ECDSAWithSHA256', zone_id: zoneId });
    expect(Date.parse(pack.certificates[0].expires_on)).toBeGreaterThan(clock.now().getTime() + 80 * 86_400_000);
    expect(pack.primary_certificate).toBe(pack.certificates[0].id);
    const one = await sdk.ssl.certificatePacks.get(pack.id, { zone_id: zoneId });
    expect(one.id).toBe(pack.id);
    const active = await sdk.ssl.certificatePacks.list({ zone_id: zoneId });
    expect(active.result.map((p) => p.id)).toEqual([pack.id]);
    const verification = await sdk.ssl.verification.get({ zone_id: zoneId });
    expect(verification).toEqual([expect.objectContaining({ cert_pack_uuid: pack.id, certificate_status: 'active', verification_status: true, validation_method: 'txt' })]);
    expect(await sdk.ssl.universal.settings.get({ zone_id: zoneId })).toEqual({ enabled: true });
  });

  it('renews N days before expiry (injected clock): a new certificate is served without a restart', async () => {
    const before = await activePack(zoneId);
    const serial = await servedSerial(tlsPort, `www.${ZONE}`, root);
    clock.advance(61 * 86_400_000); // 90-day leaf: 29 days left < 30
    const after = await eventually(async () => {
      const p = await activePack(zoneId);
      expect(p.certificates[0].id).not.toBe(before.certificates[0].id);
      return p;
    });
    expect(Date.parse(after.certificates[0].expires_on)).toBeGreaterThan(Date.parse(before.certificates[0].expires_on));
    clock.advance(-61 * 86_400_000);
    // the renewed leaf is valid from the advanced clock (not yet for openssl): compare serials without verifying
    await eventually(async () => expect(await servedSerial(tlsPort, `www.${ZONE}`, undefined)).not.toBe(serial));
  });

  it('universal SSL off: the pack and the certificate go; on again: a new one is issued', async () => {
    expect(await sdk.ssl.universal.settings.edit({ zone_id: zoneId, enabled: false })).toEqual({ enabled: false });
    expect((await sdk.ssl.certificatePacks.list({ zone_id: zoneId, status: 'all' })).result).toEqual([]);
    // nginx, which ends TLS for the names with a certificate, loads the change by a graceful reload: soon, not at once
    await eventually(async () => {
      const off = await sClient(tlsPort, `www.${ZONE}`, rootFile);
      expect(off.code, off.output).not.toBe(0);
    });
    expect(await sdk.ssl.universal.settings.edit({ zone_id: zoneId, enabled: true })).toEqual({ enabled: true });
    await activePack(zoneId);
    await eventually(async () => expect((await sClient(tlsPort, `www.${ZONE}`, rootFile)).verified).toBe(true));
  });

  it('a custom certificate wins for its names (and only those); deleting it brings the universal one back', async () => {
    const caDir = fs.mkdtempSync(path.join(dir, 'custom-'));
    makeCa(caDir);
    fs.writeFileSync(path.join(caDir, 'leaf.ext'), `subjectAltName=DNS:www.${ZONE}\nbasicConstraints=CA:FALSE\nextendedKeyUsage=serverAuth\n`);
    const ossl = (args: string[]) => run('openssl', args, { cwd: caDir });
    await ossl(['req', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-keyout', 'leaf.key', '-out', 'leaf.csr', '-subj', `/CN=www.${ZONE}`]);
    await ossl(['x509', '-req', '-in', 'leaf.csr', '-CA', 'ca.pem', '-CAkey', 'ca.key', '-set_serial', '0xc0ffee', '-days', '2', '-out', 'leaf.pem', '-extfile', 'leaf.ext']);
    const certificate = fs.readFileSync(path.join(caDir, 'leaf.pem'), 'utf8');
    const privateKey = fs.readFileSync(path.join(caDir, 'leaf.key'), 'utf8');
    const created = await sdk.customCertificates.create({ zone_id: zoneId, certificate, private_key: privateKey, bundle_method: 'force' });
    expect(created).toMatchObject({ hosts: [`www.${ZONE}`], bundle_method: 'force', status: 'active', zone_id: zoneId, priority: 0 });
    const customCa = path.join(caDir, 'ca.pem');
    await eventually(async () => expect((await sClient(tlsPort, `www.${ZONE}`, customCa)).verified).toBe(true));
    await eventually(async () => expect((await sClient(tlsPort, `other.${ZONE}`, rootFile)).verified).toBe(true));
    const list = await sdk.customCertificates.list({ zone_id: zoneId });
    expect(list.result.map((c) => c.id)).toEqual([created.id]);
    expect((await sdk.customCertificates.get(created.id!, { zone_id: zoneId })).id).toBe(created.id);
    const edited = await sdk.customCertificates.edit(created.id!, { zone_id: zoneId, bundle_method: 'ubiquitous' });
    expect(edited.bundle_method).toBe('ubiquitous');
    // a key that is not the certificate's
    const wrong = await api(server, 'POST', `/zones/${zoneId}/custom_certificates`, { certificate, private_key: (await import('../../src/certs/x509.js')).newLeafKey() });
    expect(wrong.status).toBe(400);
    expect(wrong.body.errors[0].code).toBe(1230);
    // Another account, by key and by its own token, can neither see nor change this certificate.
    for (const who of await otherCallers('ssl-custom-other@example.com')) {
      for (const [method, p, body] of [
        ['GET', `/zones/${zoneId}/custom_certificates/${created.id}`], ['PATCH', `/zones/${zoneId}/custom_certificates/${created.id}`, { priority: 5 }],
        ['DELETE', `/zones/${zoneId}/custom_certificates/${created.id}`], ['GET', `/zones/${zoneId}/custom_certificates`],
      ] as Array<[string, string, unknown?]>) {
        const res = await api(server, method, p, body, who);
        expect([res.status, res.body.errors?.map((e) => e.code)], `${method} ${p}`).toEqual([404, [7003]]);
        expect(JSON.stringify(res.body), `${method} ${p}`).not.toContain('BEGIN CERTIFICATE');
      }
    }
    expect((await sdk.customCertificates.get(created.id!, { zone_id: zoneId })).bundle_method).toBe('ubiquitous');
    await sdk.customCertificates.delete(created.id!, { zone_id: zoneId });
    await eventually(async () => expect((await sClient(tlsPort, `www.${ZONE}`, rootFile)).verified).toBe(true));
  });

  it('an advanced pack for a deeper name is ordered and served', async () => {
    const pack = await sdk.ssl.certificatePacks.create({ zone_id: zoneId, type: 'advanced', hosts: [ZONE, `a.b.${ZONE}`], validation_method: 'txt', validity_days: 90, certificate_authority: 'lets_encrypt' });
    expect(pack).toMatchObject({ type: 'advanced', hosts: [ZONE, `a.b.${ZONE}`], status: 'initializing' });
    await eventually(async () => expect((await sClient(tlsPort, `a.b.${ZONE}`, rootFile)).verified).toBe(true));
    const bad = await api(server, 'POST', `/zones/${zoneId}/ssl/certificate_packs/order`, { type: 'advanced', hosts: ['elsewhere.test'], validation_method: 'txt', validity_days: 90, certificate_authority: 'lets_encrypt' });
    expect(bad.status).toBe(400);
    expect(bad.body.errors[0].code).toBe(1232);
  });

  it('another account gets 7003 on every SSL route and learns nothing', async () => {
    const pack = (await sdk.ssl.certificatePacks.list({ zone_id: zoneId, status: 'all' })).result[0]!;
    for (const who of await otherCallers('ssl-other@example.com')) for (const [method, p, body] of [
      ['GET', `/zones/${zoneId}/ssl/universal/settings`], ['PATCH', `/zones/${zoneId}/ssl/universal/settings`, { enabled: false }],
      ['GET', `/zones/${zoneId}/ssl/certificate_packs?status=all`], ['GET', `/zones/${zoneId}/ssl/certificate_packs/${pack.id}`],
      ['POST', `/zones/${zoneId}/ssl/certificate_packs/order`, { type: 'advanced', hosts: [ZONE], validation_method: 'txt', validity_days: 90, certificate_authority: 'google' }],
      ['GET', `/zones/${zoneId}/ssl/verification`], ['GET', `/zones/${zoneId}/custom_certificates`], ['POST', `/zones/${zoneId}/custom_certificates`, { certificate: 'x', private_key: 'y' }],
    ] as Array<[string, string, unknown?]>) {
      const res = await api(server, method, p, body, who);
      expect(res.status, `${method} ${p}`).toBe(404);
      expect(res.body.errors.map((e) => e.code), `${method} ${p}`).toEqual([7003]);
    }
    expect(await sdk.ssl.universal.settings.get({ zone_id: zoneId })).toEqual({ enabled: true });
  });

  it('a token needs SSL and Certificates Read / Write on the zone', async () => {
    const make = async (group: string) => {
      const res = await api(server, 'POST', '/user/tokens', { name: group, policies: [{ effect: 'allow', resources: { [`com.cloudflare.api.account.zone.${zoneId}`]: '*' }, permission_groups: [{ id: group }] }] });
      expect(res.status, JSON.stringify(res.body.errors)).toBe(200);
      return res.body.result.value as string;
    };
    const readToken = await make('7b7216b327b04b8fbc8f524e1f9b7531');
    const dnsToken = await make('82e64a83756745bbbb1c9c2701bf816b');
    const as = (t: string) => ({ authorization: `Bearer ${t}`, 'x-auth-email': undefined, 'x-auth-key': undefined });
    const first = await api(server, 'GET', `/zones/${zoneId}/ssl/universal/settings`, undefined, as(readToken));
    expect(first.status, JSON.stringify(first.body)).toBe(200);
    expect((await api(server, 'GET', `/zones/${zoneId}/custom_certificates`, undefined, as(readToken))).status).toBe(200);
    expect((await api(server, 'PATCH', `/zones/${zoneId}/ssl/universal/settings`, { enabled: false }, as(readToken))).status).toBe(403);
    expect((await api(server, 'GET', `/zones/${zoneId}/ssl/certificate_packs`, undefined, as(dnsToken))).status).toBe(403);
    expect(await sdk.ssl.universal.settings.get({ zone_id: zoneId })).toEqual({ enabled: true });
  });

  it('the root key is sealed at rest (the stored row holds no PEM key)', async () => {
    const { openDatabase } = await import('../../src/db/database.js');
    const database = await openDatabase({ dataDir: server.dataDir });
    try {
      const rows = await database.db.selectFrom('certificates').select('sealed_key').execute();
      const ca = await database.db.selectFrom('certificate_authorities').select('sealed_key').execute();
      for (const r of [...rows, ...ca]) expect(r.sealed_key).toMatch(/^v1\.[\w-]+\.[\w-]+$/);
      expect(rows.length).toBeGreaterThan(0);
      void localRoot;
    } finally {
      await database.close();
    }
  });
});
