/**
 * DNS keeps answering from the snapshots it has while PostgreSQL does not answer: a zone whose change was
 * announced just before the database went silent is rebuilt once (that rebuild fails after the database
 * timeout); from then on queries answer from the snapshot in hand instead of waiting for rebuilds that fail
 * too, and the background retry brings the zone up to date once the database answers again.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { api, createZone } from '../helpers/api.js';
import { freshPostgresUrl } from '../helpers/postgres.js';
import { openDatabase, type OpenDatabase } from '../../src/db/database.js';
import { ZoneCache } from '../../src/dns-server/zone-cache.js';
import { silentLogger } from '../../src/shared/logger.js';
import { startTcpProxy, type TcpProxy } from './tcp-proxy.js';
import { waitUntil } from './load.js';

let drop: () => Promise<void>;
let server: TestServer;
let proxy: TcpProxy;
let database: OpenDatabase;

beforeAll(async () => {
  let url: string;
  ({ url, drop } = await freshPostgresUrl('snapshots'));
  server = await startTestServer({ flags: { 'database-url': url } });
  const target = new URL(url);
  proxy = await startTcpProxy({ host: target.hostname, port: Number(target.port || 5432) });
  target.host = `127.0.0.1:${proxy.port}`;
  database = await openDatabase({ dataDir: '', url: target.toString(), queryTimeoutMs: 1000 });
}, 60_000);

afterAll(async () => {
  await database?.close();
  await proxy?.close();
  await server?.stop();
  await drop?.();
});

it('answers from the snapshot in hand while rebuilds fail, and catches up when the database is back', async () => {
  const zoneId = await createZone(server, 'snapshots.example');
  expect((await api(server, 'POST', `/zones/${zoneId}/dns_records`, { type: 'A', name: 'www', content: '192.0.2.1', ttl: 120 })).status).toBe(200);
  const cache = new ZoneCache(database.db, { ipv4: ['203.0.113.1'], ipv6: [] }, silentLogger(), () => {}, { debounceMs: 0 });
  try {
    await cache.loadAll();
    const before = cache.find('www.snapshots.example')!;
    expect(before.serial).toBeGreaterThan(0);
    // A change committed through another node, announced just as the network to the database stalls.
    expect((await api(server, 'POST', `/zones/${zoneId}/dns_records`, { type: 'A', name: 'new', content: '192.0.2.2', ttl: 120 })).status).toBe(200);
    proxy.setMode('stall');
    cache.markChanged(zoneId);
    await cache.pendingFor(before); // the one rebuild that waits, and fails
    expect(cache.find('www.snapshots.example')).toBe(before);
    expect(cache.pendingFor(before), 'queries no longer wait for failing rebuilds').toBeUndefined();
    proxy.setMode('pass');
    await waitUntil(async () => { await cache.pendingFor(cache.find('www.snapshots.example')); return cache.find('www.snapshots.example') !== before; }, 30_000, 'the zone to be rebuilt');
    expect(cache.find('www.snapshots.example')!.serial).toBeGreaterThan(before.serial);
  } finally {
    await cache.close();
  }
}, 60_000);
