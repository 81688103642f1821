/**
 * The zone cache's lazy rebuilds, against a real Stratus (records written through the v4 API) and a second
 * handle on the same SQLite database: a change announcement only marks the zone dirty; the first query for it
 * triggers one rebuild that covers every change so far; clean zones never wait; new and deleted zones are
 * waited for; background rebuilds happen after the debounce.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { api, createZone } from '../helpers/api.js';
import { openDatabase, type OpenDatabase } from '../../src/db/database.js';
import { ZoneCache } from '../../src/dns-server/zone-cache.js';
import { lookup } from '../../src/dns/lookup.js';
import { RCODE, TYPE } from '../../src/dns/wire/constants.js';
import { silentLogger } from '../../src/shared/logger.js';

let server: TestServer;
let database: OpenDatabase;
const edge = { ipv4: ['203.0.113.1'], ipv6: ['2001:db8::1'] };

beforeAll(async () => {
  server = await startTestServer();
  database = await openDatabase({ dataDir: server.dataDir });
});
afterAll(async () => {
  await database?.close();
  await server?.stop();
});

async function addA(zoneId: string, name: string, content: string): Promise<void> {
  const res = await api(server, 'POST', `/zones/${zoneId}/dns_records`, { type: 'A', name, content, ttl: 120 });
  expect(res.status).toBe(200);
}

async function dbSerial(zoneId: string): Promise<number> {
  const row = await database.db.selectFrom('zones').select('serial').where('id', '=', zoneId).executeTakeFirstOrThrow();
  return Number(row.serial);
}

function answers(cache: ZoneCache, qname: string): number {
  const zone = cache.find(qname);
  return zone ? lookup(zone, qname, TYPE.A).answer.length : -1;
}

describe('zone cache', () => {
  it('marks zones dirty on change and rebuilds once, lazily, for the first query', async () => {
    const z1 = await createZone(server, 'lazy-one.example');
    const z2 = await createZone(server, 'lazy-two.example');
    const cache = new ZoneCache(database.db, edge, silentLogger(), undefined, { debounceMs: 0 });
    const swaps: string[] = [];
    cache.onSwap((id) => swaps.push(id));
    await cache.loadAll();
    const before = cache.find('lazy-one.example')!;
    const clean = cache.find('lazy-two.example')!;
    swaps.length = 0;

    const gen = cache.generation;
    for (let i = 0; i < 5; i++) {
      await addA(z1, `h${i}`, `192.0.2.${i + 1}`);
      cache.markChanged(z1);
    }
    expect(cache.generation).toBeGreaterThan(gen); // packet caches drop their answers at once
    expect(swaps).toEqual([]); // no rebuild yet
    expect(cache.find('h0.lazy-one.example')).toBe(before);
    expect(cache.pendingFor(clean)).toBeUndefined(); // clean zones never wait
    const p1 = cache.pendingFor(before);
    const p2 = cache.pendingFor(before);
    expect(p1).toBeInstanceOf(Promise);
    await Promise.all([p1, p2]);
    expect(swaps).toEqual([z1]); // five changes, two waiters: one rebuild
    expect(cache.find('h0.lazy-one.example')!.serial).toBe(await dbSerial(z1));
    for (let i = 0; i < 5; i++) expect(answers(cache, `h${i}.lazy-one.example`)).toBe(1);
    expect(cache.pendingFor(cache.find('lazy-one.example'))).toBeUndefined();
    expect(cache.get(z2)).toBe(clean);
    await cache.close();
  });

  it('a change during a rebuild gets one more rebuild before the waiter is answered', async () => {
    const z = await createZone(server, 'lazy-overlap.example');
    const cache = new ZoneCache(database.db, edge, silentLogger(), undefined, { debounceMs: 0 });
    await cache.loadAll();
    let swaps = 0;
    cache.onSwap(() => swaps++);
    await addA(z, 'a', '192.0.2.1');
    cache.markChanged(z);
    const first = cache.pendingFor(cache.get(z));
    await addA(z, 'b', '192.0.2.2');
    cache.markChanged(z);
    const second = cache.pendingFor(cache.get(z));
    await second;
    expect(answers(cache, 'a.lazy-overlap.example')).toBe(1);
    expect(answers(cache, 'b.lazy-overlap.example')).toBe(1);
    expect(cache.get(z)!.serial).toBe(await dbSerial(z));
    await first;
    expect(swaps).toBeLessThanOrEqual(2);
    await cache.close();
  });

  it('waits for zones being created (names in no zone) and for deleted zones', async () => {
    const cache = new ZoneCache(database.db, edge, silentLogger(), undefined, { debounceMs: 0 });
    await cache.loadAll();
    const z = await createZone(server, 'lazy-new.example');
    cache.markChanged(z);
    expect(cache.find('www.lazy-new.example')).toBeUndefined();
    await cache.pendingFor(undefined);
    expect(cache.find('www.lazy-new.example')?.zoneId).toBe(z);

    // A zone created below an existing one: queries answered from the parent wait for it too.
    const parent = await createZone(server, 'lazy-parent.example');
    cache.markChanged(parent);
    await cache.pendingFor(undefined);
    const child = await createZone(server, 'sub.lazy-parent.example');
    cache.markChanged(child);
    expect(cache.pendingFor(cache.find('www.sub.lazy-parent.example'))).toBeInstanceOf(Promise);
    await cache.pendingFor(cache.find('www.sub.lazy-parent.example'));
    expect(cache.find('www.sub.lazy-parent.example')?.zoneId).toBe(child);

    expect((await api(server, 'DELETE', `/zones/${z}`)).status).toBe(200);
    cache.markChanged(z);
    const old = cache.find('lazy-new.example');
    expect(old?.zoneId).toBe(z);
    await cache.pendingFor(old);
    expect(cache.find('lazy-new.example')).toBeUndefined();
    expect(cache.pendingFor(undefined)).toBeUndefined();
    await cache.close();
  });

  it('rebuilds in the background after the debounce, coalescing a burst', async () => {
    const z = await createZone(server, 'lazy-background.example');
    const cache = new ZoneCache(database.db, edge, silentLogger(), undefined, { debounceMs: 30, maxDelayMs: 2000 });
    await cache.loadAll();
    let swaps = 0;
    cache.onSwap(() => swaps++);
    const idle = new Promise<void>((resolve) => cache.onIdle(resolve));
    for (let i = 0; i < 3; i++) {
      await addA(z, `b${i}`, '192.0.2.9');
      cache.markChanged(z);
    }
    expect(cache.busy).toBe(true);
    await idle; // nobody queried
    expect(cache.busy).toBe(false);
    expect(swaps).toBeGreaterThanOrEqual(1);
    expect(swaps).toBeLessThanOrEqual(3);
    expect(cache.get(z)!.serial).toBe(await dbSerial(z));
    expect(lookup(cache.get(z)!, 'b2.lazy-background.example', TYPE.A).rcode).toBe(RCODE.NOERROR);
    expect(answers(cache, 'b2.lazy-background.example')).toBe(1);
    await cache.close();
  });
});
