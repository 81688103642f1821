/**
 * ACME through pebble (Debian's `pebble`, resolving through Stratus's DNS port): the universal pack is ordered
 * with DNS-01 answered by Stratus's own DNS, openssl verifies apex and wildcard against pebble's root, the
 * challenge record never shows in the records API and is gone after; a CA that is down at first (pebble not
 * started yet) fails the order with the reason in the pack, then issues once it is up (backoff).
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type Cloudflare from 'cloudflare';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { createZone } from '../helpers/api.js';
import { eventually } from '../edge/harness.js';
import { stopChild } from '../helpers/stop-child.js';
import { sClient } from './certs-helpers.js';
import { freePort } from '../dns-server/ports.js';

const ZONE = 'pebble-acme.test';
let server: TestServer;
let sdk: Cloudflare;
let dir: string;
let pebble: ChildProcess | undefined;
let zoneId: string;
let tlsPort: number;
let acmePort: number;
let mgmtPort: number;
let caFile: string;
const pebbleLog: string[] = [];


beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'stratus-pebble-'));
  const ossl = (args: string[]) => execFileSync('openssl', args, { cwd: dir, stdio: 'pipe' });
  ossl(['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-keyout', 'ca.key', '-out', 'ca.pem', '-days', '2', '-subj', '/CN=pebble test CA']);
  fs.writeFileSync(path.join(dir, 'p.ext'), 'subjectAltName=IP:127.0.0.1,DNS:localhost\nbasicConstraints=CA:FALSE\nextendedKeyUsage=serverAuth\n');
  ossl(['req', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-keyout', 'p.key', '-out', 'p.csr', '-subj', '/CN=localhost']);
  ossl(['x509', '-req', '-in', 'p.csr', '-CA', 'ca.pem', '-CAkey', 'ca.key', '-set_serial', '0x77', '-days', '2', '-out', 'p.pem', '-extfile', 'p.ext']);
  caFile = path.join(dir, 'ca.pem');
  acmePort = await freePort();
  mgmtPort = await freePort();
  server = await startTestServer({ flags: {
    edge: '127.0.0.1:0', 'edge-tls': '127.0.0.1:0', 'acme-directory': `https://127.0.0.1:${acmePort}/dir`, 'acme-ca-file': caFile, 'acme-email': 'ops@example.com',
  }, config: { certificates: {
    acmeDirectory: `https://127.0.0.1:${acmePort}/dir`, acmeCaFile: caFile, acmeEmail: 'ops@example.com', acmeEab: undefined, renewDays: 30,
    tickMs: 200, firstRetryMs: 300, maxRetryMs: 2000,
  } } });
  sdk = server.sdk();
  tlsPort = Number(new URL(server.running.edgeTlsUrl!).port);
}, 120_000);

afterAll(async () => {
  if (pebble) await stopChild(pebble);
  await server?.stop();
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
});

function startPebble(): void {
  fs.writeFileSync(path.join(dir, 'pebble.json'), JSON.stringify({ pebble: {
    listenAddress: `127.0.0.1:${acmePort}`, managementListenAddress: `127.0.0.1:${mgmtPort}`, certificate: path.join(dir, 'p.pem'), privateKey: path.join(dir, 'p.key'),
    httpPort: 5002, tlsPort: 5001, ocspResponderURL: '', externalAccountBindingRequired: false,
  } }));
  pebble = spawn('pebble', ['-config', path.join(dir, 'pebble.json'), '-dnsserver', `127.0.0.1:${server.dnsPort}`],
    { env: { ...process.env, PEBBLE_VA_NOSLEEP: '1', PEBBLE_WFE_NONCEREJECT: '0', PEBBLE_AUTHZREUSE: '0' }, stdio: ['ignore', 'pipe', 'pipe'] });
  for (const s of [pebble.stdout!, pebble.stderr!]) s.on('data', (c: Buffer) => pebbleLog.push(c.toString()));
}

describe('ACME (pebble) with DNS-01 on Stratus\'s DNS', () => {
  it('a CA that is down fails the order with the reason in the pack; once it is up the pack becomes active', async () => {
    zoneId = await createZone(server, ZONE);
    await sdk.dns.records.create({ zone_id: zoneId, type: 'A', name: `www.${ZONE}`, content: '192.0.2.1', proxied: true, ttl: 1 });
    const failed = await eventually(async () => {
      const pack = (await sdk.ssl.certificatePacks.list({ zone_id: zoneId, status: 'all' })).result[0] as any;
      expect(pack?.validation_errors?.length, JSON.stringify(pack)).toBeGreaterThan(0);
      return pack;
    }, 90_000);
    expect(failed.status).not.toBe('active');
    expect(failed.validation_errors[0].message).toMatch(/ACME|ECONNREFUSED|connect/i);
    startPebble();
    await eventually(async () => {
      const pack = (await sdk.ssl.certificatePacks.list({ zone_id: zoneId, status: 'all' })).result[0] as any;
      expect(pack?.status, `${JSON.stringify(pack)}\n${pebbleLog.join('').slice(-2000)}`).toBe('active');
    }, 90_000);
  }, 240_000);

  it('openssl verifies apex and wildcard against pebble\'s root', async () => {
    const roots = await new Promise<string>((resolve, reject) => {
      import('node:https').then((https) => https.get({ host: '127.0.0.1', port: mgmtPort, path: '/roots/0', ca: fs.readFileSync(caFile) }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve(Buffer.concat(chunks).toString()));
      }).on('error', reject), reject);
    });
    const rootFile = path.join(dir, 'pebble-root.pem');
    fs.writeFileSync(rootFile, roots);
    await eventually(async () => {
      for (const name of [ZONE, `www.${ZONE}`]) {
        const hs = await sClient(tlsPort, name, rootFile);
        expect(hs.verified, hs.output).toBe(true);
      }
    });
  });

  it('the challenge records were served but never listed among the zone\'s records, and are gone', async () => {
    const records = await sdk.dns.records.list({ zone_id: zoneId });
    expect(records.result.map((r) => r.name)).not.toContain(`_acme-challenge.${ZONE}`);
    const { openDatabase } = await import('../../src/db/database.js');
    const database = await openDatabase({ dataDir: server.dataDir });
    try {
      expect(await database.db.selectFrom('acme_challenges').selectAll().execute()).toEqual([]);
      const logged = await database.db.selectFrom('zone_changes').select('body').where('zone_id', '=', zoneId).execute();
      expect(logged.some((r) => r.body.includes('_acme-challenge'))).toBe(true);
      const count = await database.db.selectFrom('dns_records').select('id').where('zone_id', '=', zoneId).execute();
      expect(count).toHaveLength(1);
    } finally {
      await database.close();
    }
  });
});
