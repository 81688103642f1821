/**
 * Two nodes on one PostgreSQL database race turning universal SSL off against their issuance loops: zones are
 * created on one node (its loop wakes to make their universal pack at once) while the other turns universal SSL
 * off right away. A change turning it off is never followed by a pack or a certificate for the zone, and neither
 * node serves one (the pack check and insert, and the certificate's, run under the zone's row lock).
 */
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { freshPostgresUrl } from '../helpers/postgres.js';
import { createZone } from '../helpers/api.js';
import { eventually } from '../edge/harness.js';
import { servedSerial } from './certs-helpers.js';

const CERTS = { acmeDirectory: undefined, acmeEmail: undefined, acmeCaFile: undefined, acmeEab: undefined, renewDays: 30, tickMs: 20, firstRetryMs: 200 };
const SECRETS = '0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef';
const ZONES = 12;
let a: TestServer;
let b: TestServer;
let db: { url: string; drop(): Promise<void> };
let sql: pg.Client;

beforeAll(async () => {
  db = await freshPostgresUrl('certs_off_race');
  const flags = { edge: '127.0.0.1:0', 'edge-tls': '127.0.0.1:0', 'database-url': db.url, 'secrets-key': SECRETS };
  a = await startTestServer({ flags, config: { certificates: CERTS } });
  b = await startTestServer({ flags, config: { certificates: CERTS } });
  sql = new pg.Client({ connectionString: db.url });
  await sql.connect();
}, 120_000);

afterAll(async () => {
  await a?.stop();
  await b?.stop();
  await sql?.end();
  await db?.drop();
});

describe('universal SSL turned off while two nodes\' loops make packs', () => {
  it('no pack or certificate follows the change, on either node', async () => {
    const names = Array.from({ length: ZONES }, (_, i) => `off-race-${i}.test`);
    const ids = await Promise.all(names.map(async (name, i) => {
      const id = await createZone(i % 2 ? a : b, name);
      await (i % 2 ? b : a).sdk().ssl.universal.settings.edit({ zone_id: id, enabled: false });
      return id;
    }));
    // Both loops have scanned since: a zone created after every change has its certificate served by both nodes.
    const canary = await createZone(a, 'off-race-canary.test');
    for (const node of [a, b]) {
      const port = Number(new URL(node.running.edgeTlsUrl!).port);
      await eventually(() => servedSerial(port, 'www.off-race-canary.test', undefined), 30_000);
    }
    expect((await sql.query('SELECT id FROM certificate_packs WHERE zone_id = $1', [canary])).rows).toHaveLength(1);
    expect((await sql.query('SELECT zone_id, status FROM certificate_packs WHERE zone_id = ANY($1)', [ids])).rows).toEqual([]);
    expect((await sql.query('SELECT zone_id FROM certificates WHERE zone_id = ANY($1)', [ids])).rows).toEqual([]);
    for (const node of [a, b]) {
      const port = Number(new URL(node.running.edgeTlsUrl!).port);
      for (const name of names) await expect(servedSerial(port, `www.${name}`, undefined)).rejects.toThrow();
      const settings = await node.sdk().ssl.universal.settings.get({ zone_id: ids[0]! });
      expect(settings.enabled).toBe(false);
    }
  }, 180_000);
});
