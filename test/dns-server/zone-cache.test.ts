/**
 * The zone cache against a real Stratus (records written through the v4 API) and a second cache on the same
 * SQLite database, which hears of changes only as "something changed" and follows them through the change
 * log: small changesets apply at once, big ones in slices while queries wait, catching up replays the log
 * without reloading, a gap the log cannot fill reloads the zone, new, nested and deleted zones are waited for,
 * zones that stop or start being active (status changes) are dropped and loaded.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { api, createZone } from '../helpers/api.js';
import { openDatabase, type OpenDatabase } from '../../src/db/database.js';
import { ZoneCache, type ZoneUpdate } from '../../src/dns-server/zone-cache.js';
import { lookup } from '../../src/dns/lookup.js';
import { RCODE, TYPE } from '../../src/dns/wire/constants.js';
import { silentLogger } from '../../src/shared/logger.js';
import { pruneChanges, readChanges } from '../../src/zones/change-log.js';
import { addUser } from '../helpers/users.js';
import type { RecordChange } from '../../src/dns/zone-tree.js';

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

async function follower(): Promise<{ cache: ZoneCache; updates: ZoneUpdate[] }> {
  const cache = new ZoneCache(database.db, edge, silentLogger());
  await cache.loadAll();
  const updates: ZoneUpdate[] = [];
  cache.onUpdate((u) => updates.push(u));
  return { cache, updates };
}

function creates(zone: string, n: number, from = 0): RecordChange[] {
  return Array.from({ length: n }, (_, i) => {
    const id = `big${from + i}`;
    return { id, before: null, after: { id, name: `n${from + i}.${zone}`, type: 'A', content: '192.0.2.7', data: null, priority: null, ttl: 60, proxied: false, settings: {} } };
  });
}

describe('zone cache', () => {
  it('catches up through the change log, in order, without reloading the zone', async () => {
    const z = await createZone(server, 'follow-log.example');
    const { cache, updates } = await follower();
    const clean = await createZone(server, 'follow-clean.example');
    cache.markChanged(clean);
    await cache.pendingFor(undefined);
    for (let i = 0; i < 5; i++) await addA(z, `h${i}`, `192.0.2.${i + 1}`);
    updates.length = 0;
    cache.markChanged(z);
    expect(cache.pendingFor(cache.get(clean))).toBeUndefined(); // other zones never wait
    const waiting = cache.pendingFor(cache.get(z));
    expect(waiting).toBeInstanceOf(Promise);
    await waiting;
    for (let i = 0; i < 5; i++) expect(answers(cache, `h${i}.follow-log.example`)).toBe(1);
    expect(cache.get(z)!.serial).toBe(await dbSerial(z));
    expect(updates.map((u) => u.t)).toEqual(['changes', 'changes', 'changes', 'changes', 'changes']);
    expect(cache.pendingFor(cache.get(z))).toBeUndefined();
    await cache.close();
  });

  it('applies a small changeset that follows the tree at once, and a big one in slices while queries wait', async () => {
    const z = await createZone(server, 'follow-sync.example');
    const { cache } = await follower();
    const serial = cache.get(z)!.serial;
    cache.apply({ zoneId: z, kind: 'records', serial: serial + 1, records: creates('follow-sync.example', 3) });
    expect(cache.pendingFor(cache.get(z))).toBeUndefined();
    expect(answers(cache, 'n2.follow-sync.example')).toBe(1);
    cache.apply({ zoneId: z, kind: 'records', serial: serial + 2, records: creates('follow-sync.example', 20_000, 3) });
    const waiting = cache.pendingFor(cache.get(z));
    expect(waiting).toBeInstanceOf(Promise);
    let turns = 0;
    const ticker = setInterval(() => turns++, 0);
    await waiting;
    clearInterval(ticker);
    expect(turns).toBeGreaterThan(1); // the event loop ran while the changeset was applied
    expect(answers(cache, 'n20002.follow-sync.example')).toBe(1);
    expect(cache.get(z)!.serial).toBe(serial + 2);
    // A serial already held is ignored; one that skips ahead makes the zone catch up from the database.
    cache.apply({ zoneId: z, kind: 'records', serial: serial + 1, records: [] });
    expect(cache.pendingFor(cache.get(z))).toBeUndefined();
    await cache.close();
  });

  it('reloads a zone when the change log cannot fill the gap', async () => {
    const z = await createZone(server, 'follow-gap.example');
    const { cache, updates } = await follower();
    await addA(z, 'before', '192.0.2.1');
    await addA(z, 'after', '192.0.2.2');
    await pruneChanges(database.db, Date.now() + 1);
    updates.length = 0;
    cache.markChanged(z);
    await cache.pendingFor(cache.get(z));
    expect(updates[0]?.t).toBe('reset');
    expect(answers(cache, 'before.follow-gap.example')).toBe(1);
    expect(answers(cache, 'after.follow-gap.example')).toBe(1);
    expect(cache.get(z)!.serial).toBe(await dbSerial(z));
    await cache.close();
  });

  it('waits for zones being created (names in no zone) and for deleted zones', async () => {
    const { cache } = await follower();
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

  it('polling follows other writers: new serials, new zones, deleted zones', async () => {
    const z = await createZone(server, 'follow-poll.example');
    const { cache } = await follower();
    const idle = () => new Promise<void>((resolve) => { if (!cache.busy) resolve(); else cache.onIdle(resolve); });
    await addA(z, 'p', '192.0.2.3');
    const fresh = await createZone(server, 'follow-poll-new.example');
    // A new zone is loaded at the first poll; a serial ahead of the tree is followed when the next poll still
    // sees the tree behind it (the serial could be this node's own write, not yet published on its feed).
    await cache.poll();
    await idle();
    expect(cache.get(fresh)).toBeDefined();
    expect(lookup(cache.get(z)!, 'p.follow-poll.example', TYPE.A).rcode).toBe(RCODE.NXDOMAIN);
    await cache.poll();
    await idle();
    expect(lookup(cache.get(z)!, 'p.follow-poll.example', TYPE.A).rcode).toBe(RCODE.NOERROR);
    expect(cache.get(fresh)).toBeDefined();
    expect((await api(server, 'DELETE', `/zones/${fresh}`)).status).toBe(200);
    await cache.poll();
    expect(cache.get(fresh)).toBeUndefined();
    await cache.close();
  });

  it('polling drops a zone that stops being active and loads it when it is active again; status changes are logged', async () => {
    // The other account's parent delegates `app` to the admin's pair; the admin's child is active by it.
    const other = await addUser(server, 'follow-status@example.org');
    const headers = { 'x-auth-email': other.email, 'x-auth-key': other.key };
    const parent = await api(server, 'POST', '/zones', { name: 'follow-status.example', account: { id: other.accountId } }, headers);
    expect(parent.status).toBe(200);
    const parentId = parent.body.result.id as string;
    const delegateApp = async (targets: string[]) => {
      const ids: string[] = [];
      for (const content of targets) ids.push((await api(server, 'POST', `/zones/${parentId}/dns_records`, { type: 'NS', name: 'app', content, ttl: 1 }, headers)).body.result.id);
      return ids;
    };
    const pair = ['ns1.stratus.invalid', 'ns2.stratus.invalid'];
    const ns = await delegateApp(pair);
    const child = await createZone(server, 'app.follow-status.example');
    expect((await api(server, 'GET', `/zones/${child}`)).body.result).toMatchObject({ status: 'active', name_servers: pair });
    await addA(child, 'www', '192.0.2.9');
    const { cache } = await follower();
    const idle = () => new Promise<void>((resolve) => { if (!cache.busy) resolve(); else cache.onIdle(resolve); });
    const first = cache.get(child)!.serial;
    for (const id of ns) expect((await api(server, 'DELETE', `/zones/${parentId}/dns_records/${id}`, undefined, headers)).status).toBe(200);
    const moved = await api(server, 'GET', `/zones/${child}`);
    expect(moved.body.result.status).toBe('moved');
    await cache.poll();
    await idle();
    expect(cache.get(child), 'a moved zone is not served').toBeUndefined();
    expect(cache.find('www.app.follow-status.example')?.zoneId).toBe(parentId);
    await delegateApp(pair);
    expect((await api(server, 'GET', `/zones/${child}`)).body.result.status).toBe('active');
    await cache.poll();
    await idle();
    expect(answers(cache, 'www.app.follow-status.example')).toBe(1);
    const serial = await dbSerial(child);
    expect(cache.get(child)!.serial).toBe(serial);
    expect(serial).toBe(first + 2);
    const logged = await readChanges(database.db, child, first, serial);
    expect(logged?.map((c) => c.records), 'both status changes are in the log, without records').toEqual([[], []]);
    await cache.close();
  });
});
