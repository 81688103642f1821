/**
 * Two nodes on one PostgreSQL database (local CA): one universal pack and one certificate for a new zone
 * (one node orders, under the lease), and both nodes serve that same certificate on their HTTPS edge.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { freshPostgresUrl } from '../helpers/postgres.js';
import { createZone } from '../helpers/api.js';
import { eventually } from '../edge/harness.js';
import { servedSerial } from './certs-helpers.js';

const ZONE = 'two-nodes-certs.test';
const CERTS = { acmeDirectory: undefined, acmeEmail: undefined, acmeCaFile: undefined, acmeEab: undefined, renewDays: 30, tickMs: 200, firstRetryMs: 200 };
const SECRETS = '0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef';
let a: TestServer;
let b: TestServer;
let db: { url: string; drop(): Promise<void> };

beforeAll(async () => {
  db = await freshPostgresUrl('certs_two_nodes');
  const flags = { edge: '127.0.0.1:0', 'edge-tls': '127.0.0.1:0', 'database-url': db.url, 'secrets-key': SECRETS };
  a = await startTestServer({ flags, config: { certificates: CERTS } });
  b = await startTestServer({ flags, config: { certificates: CERTS } });
}, 120_000);

afterAll(async () => {
  await a?.stop();
  await b?.stop();
  await db?.drop();
});

describe('certificates on two nodes sharing PostgreSQL', () => {
  it('one node orders the pack; both serve the same certificate', async () => {
    const zoneId = await createZone(a, ZONE);
    const pack = await eventually(async () => {
      const packs = (await b.sdk().ssl.certificatePacks.list({ zone_id: zoneId, status: 'all' })).result as any[];
      expect(packs).toHaveLength(1);
      expect(packs[0].status).toBe('active');
      return packs[0];
    });
    expect(pack.certificates).toHaveLength(1);
    const portA = Number(new URL(a.running.edgeTlsUrl!).port);
    const portB = Number(new URL(b.running.edgeTlsUrl!).port);
    const serialA = await eventually(() => servedSerial(portA, `www.${ZONE}`, undefined), 10_000);
    const serialB = await eventually(() => servedSerial(portB, `www.${ZONE}`, undefined), 10_000);
    expect(serialA).toBe(serialB);
    const again = (await a.sdk().ssl.certificatePacks.list({ zone_id: zoneId, status: 'all' })).result as any[];
    expect(again.map((p) => p.certificates.map((c: any) => c.id))).toEqual([[pack.certificates[0].id]]);
  });
});
