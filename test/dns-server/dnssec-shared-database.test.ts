/**
 * Zone keys are shared by nodes through the database: two nodes on one PostgreSQL database with the same
 * secrets key serve the same DNSKEY and sign with it after DNSSEC is enabled on one of them; a node with
 * another secrets key cannot open the key and serves the zone unsigned (and says so in its log).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { createZone } from '../helpers/api.js';
import { freshPostgresUrl } from '../helpers/postgres.js';
import { captureLogger } from '../helpers/capture-logger.js';
import { dig } from './dig.js';

const ZONE = 'shared-keys.example';
const KEY_A = 'a'.repeat(64);
const KEY_B = 'b'.repeat(64);
let db: Awaited<ReturnType<typeof freshPostgresUrl>>;
let a: TestServer;
let b: TestServer;
let c: TestServer;
const cLog = captureLogger();

beforeAll(async () => {
  db = await freshPostgresUrl('dnssec');
  a = await startTestServer({ config: { databaseUrl: db.url, secretsKey: KEY_A } });
  b = await startTestServer({ config: { databaseUrl: db.url, secretsKey: KEY_A } });
  c = await startTestServer({ config: { databaseUrl: db.url, secretsKey: KEY_B }, logger: cLog.logger });
});
afterAll(async () => {
  await c?.stop();
  await b?.stop();
  await a?.stop();
  await db?.drop();
});

async function eventually<T>(fn: () => Promise<T>, ok: (v: T) => boolean, ms = 15_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await fn();
    if (ok(v) || Date.now() > end) return v;
    await new Promise((r) => setTimeout(r, 200));
  }
}

describe('DNSSEC across nodes', () => {
  it('nodes with the same secrets key sign with the zone key from the database; another key serves unsigned', async () => {
    const zoneId = await createZone(a, ZONE);
    await a.sdk().dns.records.create({ zone_id: zoneId, type: 'A', name: `www.${ZONE}`, content: '192.0.2.1', ttl: 300 } as never);
    const on = await a.sdk().dns.dnssec.edit({ zone_id: zoneId, status: 'active' });
    const keyOf = async (s: TestServer) => (await dig(s.dnsPort!, ZONE, 'DNSKEY', { extra: ['+dnssec'] })).answer.filter((l) => l.split(' ')[3] === 'DNSKEY').map((l) => l.split(' ').slice(7).join(''));
    expect(await keyOf(a)).toEqual([on.public_key]);
    expect(await eventually(() => keyOf(b), (k) => k.length > 0)).toEqual([on.public_key]);
    const sig = await dig(b.dnsPort!, `www.${ZONE}`, 'A', { extra: ['+dnssec'] });
    expect(sig.answer.filter((l) => l.includes(' RRSIG ')).map((l) => Number(l.split(' ')[10]))).toEqual([on.key_tag]);

    await eventually(() => dig(c.dnsPort!, `www.${ZONE}`, 'A'), (r) => r.answer.length > 0);
    const unsigned = await dig(c.dnsPort!, `www.${ZONE}`, 'A', { extra: ['+dnssec'] });
    expect(unsigned.answer).toEqual([`www.${ZONE}. 300 IN A 192.0.2.1`]);
    expect(cLog.lines.some((l) => l.includes('does not open with this secrets key'))).toBe(true);
  });
});
