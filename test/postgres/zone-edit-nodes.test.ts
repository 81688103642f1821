/**
 * Zone edits and zone settings on two nodes sharing one PostgreSQL database: a zone paused through node 1
 * (the SDK's `zones.edit`) answers its proxied records with their origin on node 2's DNS server, and back with
 * the edge addresses once unpaused; a setting written on node 1 reads the same on node 2; a second user of
 * the same database is refused on both.
 */
import Cloudflare from 'cloudflare';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { createZone } from '../helpers/api.js';
import { addUser } from '../helpers/users.js';
import { freshPostgresUrl } from '../helpers/postgres.js';
import { dig } from '../dns-server/dig.js';

let url: string;
let drop: () => Promise<void>;
let n1: TestServer;
let n2: TestServer;

beforeAll(async () => {
  ({ url, drop } = await freshPostgresUrl('zone_edit'));
  n1 = await startTestServer({ flags: { 'database-url': url, s3: 'off', 'edge-ipv4': '192.0.2.44' } });
  n2 = await startTestServer({ flags: { 'database-url': url, s3: 'off', 'edge-ipv4': '192.0.2.44' } });
});

afterAll(async () => {
  await n2?.stop();
  await n1?.stop();
  await drop?.();
});

/** Asks node `port` until an A answer ends with `address` (changes reach the other node through the change log). */
async function answers(port: number, name: string, address: string): Promise<string[]> {
  let last: string[] = [];
  for (let i = 0; i < 200; i++) {
    last = (await dig(port, name, 'A')).answer;
    if (last.some((l) => l.endsWith(` ${address}`))) return last;
    await new Promise((r) => setTimeout(r, 100));
  }
  return last;
}

describe('zone edits across nodes', () => {
  it('pausing on one node changes the answers of the other', async () => {
    const zoneId = await createZone(n1, 'pg-paused.example');
    await n1.sdk().dns.records.create({ zone_id: zoneId, type: 'A', name: 'app', content: '198.51.100.44', proxied: true } as never);
    expect(await answers(n2.dnsPort!, 'app.pg-paused.example', '192.0.2.44')).toEqual(['app.pg-paused.example. 300 IN A 192.0.2.44']);
    expect((await n1.sdk().zones.edit({ zone_id: zoneId, paused: true })).paused).toBe(true);
    expect(await answers(n2.dnsPort!, 'app.pg-paused.example', '198.51.100.44')).toEqual(['app.pg-paused.example. 300 IN A 198.51.100.44']);
    expect((await n2.sdk().zones.get({ zone_id: zoneId })).paused).toBe(true);
    await n2.sdk().zones.edit({ zone_id: zoneId, paused: false });
    expect(await answers(n1.dnsPort!, 'app.pg-paused.example', '192.0.2.44')).toEqual(['app.pg-paused.example. 300 IN A 192.0.2.44']);
  });

  it('a setting written on one node reads the same on the other; a second user is refused on both', async () => {
    const zoneId = await createZone(n1, 'pg-settings.example');
    await n1.sdk().zones.settings.edit('security_level', { zone_id: zoneId, value: 'high' });
    expect(await n2.sdk().zones.settings.get('security_level', { zone_id: zoneId })).toMatchObject({ value: 'high' });
    const other = await addUser(n1, 'pg-zone-edit-other@example.org', undefined, { databaseUrl: url });
    for (const node of [n1, n2]) {
      const sdk = new Cloudflare({ apiEmail: other.email, apiKey: other.key, baseURL: node.apiBase, maxRetries: 0 });
      await expect(sdk.zones.edit({ zone_id: zoneId, paused: true })).rejects.toBeInstanceOf(Cloudflare.NotFoundError);
      await expect(sdk.zones.settings.edit('security_level', { zone_id: zoneId, value: 'low' })).rejects.toBeInstanceOf(Cloudflare.NotFoundError);
    }
    expect(await n1.sdk().zones.get({ zone_id: zoneId })).toMatchObject({ paused: false });
  });
});
