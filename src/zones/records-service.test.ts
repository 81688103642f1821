import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openDatabase, type OpenDatabase } from '../db/database.js';
import { loadConfig } from '../config/config.js';
import { fixedClock } from '../shared/clock.js';
import { ZoneChangeFeed, type ZoneChange } from './change-feed.js';
import { ZonesService } from './zones-service.js';
import { RecordsService } from './records-service.js';
import { parseRecordFilters } from './record-filters.js';
import { upsertUser } from '../accounts/users.js';
import { CompiledQuery } from 'kysely';
import { pageQuery } from './record-list.js';

describe('records service', () => {
  let dir: string;
  let database: OpenDatabase;
  let feed: ZoneChangeFeed;
  let changes: ZoneChange[];
  let zones: ZonesService;
  let records: RecordsService;
  let caller: { accountIds: string[] };
  const clock = fixedClock(new Date('2025-03-04T05:06:07.89Z'));
  const ctx = () => ({ apiDate: '2025-06-01', warnings: [] });

  beforeEach(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'stratus-rs-'));
    database = await openDatabase({ dataDir: dir });
    feed = new ZoneChangeFeed();
    changes = [];
    feed.subscribe((c) => changes.push(c));
    const config = loadConfig({}, {});
    zones = new ZonesService(database.db, clock, feed, config.nameservers);
    records = new RecordsService(database.db, clock, feed, config.plan, config.serviceRanges);
    const user = await upsertUser(database.db, { email: 'u@example.com', key: 'k' });
    caller = { accountIds: [user.accountId] };
  });
  afterEach(async () => {
    await database.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  const serial = async (id: string) => (await database.db.selectFrom('zones').select(['serial', 'record_count']).where('id', '=', id).executeTakeFirstOrThrow());

  it('bumps the serial and announces every committed change; failed writes change nothing', async () => {
    const zone = await zones.create(caller, { name: 'svc.example', accountId: caller.accountIds[0], type: undefined });
    expect(zone.serial).toBe(2025030400);
    expect(changes).toEqual([{ zoneId: zone.id, kind: 'created' }]);
    const r = await records.create(zone, { type: 'A', name: 'www', content: '192.0.2.1' }, ctx());
    expect(await serial(zone.id)).toEqual({ serial: 2025030401, record_count: 1 });
    expect(r.createdOn).toBe('2025-03-04T05:06:07.89Z');
    await expect(records.create(zone, { type: 'A', name: 'www', content: '192.0.2.1' }, ctx())).rejects.toMatchObject({ code: 81058 });
    expect(await serial(zone.id)).toEqual({ serial: 2025030401, record_count: 1 });
    await records.patch(zone, r.id, { ttl: 300 }, ctx());
    expect((await serial(zone.id)).serial).toBe(2025030402);
    await records.delete(zone, r.id);
    expect(await serial(zone.id)).toEqual({ serial: 2025030403, record_count: 0 });
    const www = { id: r.id, name: 'www.svc.example', type: 'A', content: '192.0.2.1', data: null, priority: null, proxied: false, settings: {} };
    expect(changes.slice(1)).toEqual([
      { zoneId: zone.id, kind: 'records', serial: 2025030401, records: [{ id: r.id, before: null, after: { ...www, ttl: 1 } }] },
      { zoneId: zone.id, kind: 'records', serial: 2025030402, records: [{ id: r.id, before: { ...www, ttl: 1 }, after: { ...www, ttl: 300 } }] },
      { zoneId: zone.id, kind: 'records', serial: 2025030403, records: [{ id: r.id, before: { ...www, ttl: 300 }, after: null }] },
    ]);
    const logged = await database.db.selectFrom('zone_changes').select(['serial', 'body']).where('zone_id', '=', zone.id).orderBy('serial').execute();
    expect(logged.map((l) => Number(l.serial))).toEqual([2025030401, 2025030402, 2025030403]);
    expect(JSON.parse(logged[2]!.body)).toEqual({ records: [[r.id, { ...www, ttl: 300 }, null]] });
    await zones.delete(zone.id);
    expect(changes.at(-1)).toEqual({ zoneId: zone.id, kind: 'deleted' });
    expect(await database.db.selectFrom('zone_changes').select('serial').where('zone_id', '=', zone.id).execute()).toEqual([]);
  });

  it('lists by exact name through the (zone_id, name) index (as record-list.ts orders it) and in default order through (zone_id, type, name)', async () => {
    const zone = await zones.create(caller, { name: 'big.example', accountId: caller.accountIds[0], type: 'full' });
    const explain = async (text: string, params: unknown[]) => {
      const res = await database.db.executeQuery(CompiledQuery.raw(`EXPLAIN QUERY PLAN ${text}`, params));
      return JSON.stringify(res.rows);
    };
    const byName = pageQuery(database.db, zone.id, parseRecordFilters({ name: ['x'] }, zone.name)).compile();
    expect(await explain(byName.sql, [...byName.parameters])).toMatch(/USING INDEX dns_records_zone_name \(zone_id=\? AND name=\?\)/);
    const byTypeName = pageQuery(database.db, zone.id, parseRecordFilters({ name: ['x'], type: ['TXT'] }, zone.name)).compile();
    expect(await explain(byTypeName.sql, [...byTypeName.parameters])).toMatch(/USING INDEX dns_records_zone_(type_)?name \(zone_id=\? AND .*name=\?\)/);
    const all = pageQuery(database.db, zone.id, parseRecordFilters({}, zone.name)).compile();
    const allPlan = await explain(all.sql, [...all.parameters]);
    expect(allPlan).toMatch(/USING INDEX dns_records_zone_type_name/);
    expect(allPlan).not.toMatch(/TEMP B-TREE/);
    const q = parseRecordFilters({ name: ['x'] }, zone.name);
    expect(q.conditions).toEqual([{ field: 'name', op: 'exact', values: ['x.big.example'] }]);
  });

  it('lists of the templated shapes (no filter, exact names and types) return what the query built for them returns', async () => {
    const zone = await zones.create(caller, { name: 'tpl.example', accountId: caller.accountIds[0], type: 'full' });
    await records.transaction(zone, async (tx) => {
      for (let i = 0; i < 30; i++) {
        await tx.create({ type: i % 3 === 0 ? 'TXT' : 'A', name: `h${i % 10}`, content: i % 3 === 0 ? `v=${i}` : `192.0.2.${i + 1}`, ttl: 1 }, ctx());
      }
    });
    const shapes: Record<string, string[]>[] = [
      {}, { per_page: ['7'], page: ['2'] }, { direction: ['desc'], order: ['content'] },
      { name: ['h3'] }, { name: ['h3'], type: ['A'] }, { name: ['H4.TPL.example.'], type: ['TXT'] }, { type: ['TXT'], per_page: ['4'], page: ['3'] },
      { name: ['h1'], match: ['any'], type: ['TXT'] }, { name: ['h1', 'h2'] },
    ];
    for (const query of shapes) {
      // Twice: the first call compiles the shape's template, the second reuses it with these values.
      for (let round = 0; round < 2; round++) {
        const q = parseRecordFilters(query, zone.name);
        const expected = await pageQuery(database.db, zone.id, q).execute();
        const { records: got } = await records.list(zone, q);
        expect(got.map((r) => r.id), JSON.stringify(query)).toEqual(expected.map((r) => r.id));
      }
    }
    // The same shape with other values gives other rows.
    const h5 = await records.list(zone, parseRecordFilters({ name: ['h5'] }, zone.name));
    expect(h5.records.map((r) => r.name)).toEqual(['h5.tpl.example', 'h5.tpl.example', 'h5.tpl.example']);
  });
});
