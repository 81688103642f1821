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
import { upsertUser } from '../accounts/users.js';
import { applySecondaryCopy, type CopiedRecord } from './secondary-copy.js';
import { readChanges } from './change-log.js';

describe('the copy of a secondary zone (real SQLite)', () => {
  let dir: string;
  let database: OpenDatabase;
  let feed: ZoneChangeFeed;
  let changes: ZoneChange[];
  let zones: ZonesService;
  let records: RecordsService;
  let caller: { accountIds: string[] };
  const clock = fixedClock(new Date('2026-01-02T03:04:05Z'));
  const Z = 'copy.example';
  const soa = (serial: number): CopiedRecord => ({ name: Z, type: 'SOA', ttl: 3600, rdata: `ns1.${Z}. hostmaster.${Z}. ${serial} 3600 600 86400 300` });
  const rec = (name: string, type: string, rdata: string, ttl = 300): CopiedRecord => ({ name: name ? `${name}.${Z}` : Z, type, ttl, rdata });
  const stored = async (id: string) => (await database.db.selectFrom('dns_records').select(['name', 'type', 'ttl', 'content']).where('zone_id', '=', id).execute())
    .map((r) => `${r.name} ${r.ttl} ${r.type} ${r.content}`).sort();

  beforeEach(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'stratus-copy-'));
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

  it('writes a full copy, then a difference, each in one logged change; keeps TTLs; skips what it cannot store', async () => {
    const zone = await zones.create(caller, { name: Z, accountId: caller.accountIds[0], type: 'secondary' });
    const first = await applySecondaryCopy(records, zone, { full: [
      soa(10), rec('', 'NS', `ns1.${Z}.`, 172800), rec('ns1', 'A', '192.0.2.53'), rec('www', 'A', '192.0.2.1', 30),
      rec('www', 'A', '192.0.2.1', 30), rec('z', 'ZONEMD', '1 1 1 00'), rec('', 'RRSIG', 'CDS 13 2 0 20260101000000 20250101000000 1 copy.example. AAAA'),
    ] });
    expect(first).toMatchObject({ added: 4, deleted: 0, skippedCount: 2 });
    expect(first.skipped.join(' ')).toMatch(/ZONEMD.*CDS/);
    expect(await stored(zone.id)).toEqual([
      `copy.example 172800 NS ns1.copy.example`, `copy.example 3600 SOA ns1.copy.example hostmaster.copy.example 10 3600 600 86400 300`,
      `ns1.copy.example 300 A 192.0.2.53`, `www.copy.example 30 A 192.0.2.1`,
    ].sort());
    const second = await applySecondaryCopy(records, zone, { deleted: [soa(10), rec('www', 'A', '192.0.2.1', 30)], added: [soa(11), rec('new', 'TXT', '"hi"')] });
    expect(second).toMatchObject({ added: 2, deleted: 2 });
    expect(await stored(zone.id)).toEqual([
      `copy.example 172800 NS ns1.copy.example`, `copy.example 3600 SOA ns1.copy.example hostmaster.copy.example 11 3600 600 86400 300`,
      `new.copy.example 300 TXT "hi"`, `ns1.copy.example 300 A 192.0.2.53`,
    ].sort());
    // A full copy equal to what is stored changes no record; one that differs changes only the difference.
    const same = await applySecondaryCopy(records, zone, { full: [soa(11), rec('', 'NS', `ns1.${Z}.`, 172800), rec('ns1', 'A', '192.0.2.53'), rec('new', 'TXT', '"hi"')] });
    expect(same).toMatchObject({ added: 0, deleted: 0 });
    const serial = Number((await database.db.selectFrom('zones').select('serial').where('id', '=', zone.id).executeTakeFirstOrThrow()).serial);
    const logged = await readChanges(database.db, zone.id, zone.serial, serial);
    expect(logged?.map((c) => c.records?.length)).toEqual([4, 4, 0]);
    expect(changes.filter((c) => c.kind === 'records')).toHaveLength(3);
  });

  it('an SOA that differs from the one the difference names still replaces it (one SOA)', async () => {
    const zone = await zones.create(caller, { name: Z, accountId: caller.accountIds[0], type: 'secondary' });
    await applySecondaryCopy(records, zone, { full: [soa(10), rec('a', 'A', '192.0.2.1')] });
    await applySecondaryCopy(records, zone, { deleted: [soa(9)], added: [soa(12)] });
    expect((await stored(zone.id)).filter((r) => r.includes(' SOA '))).toEqual([`copy.example 3600 SOA ns1.copy.example hostmaster.copy.example 12 3600 600 86400 300`]);
  });

  it('refuses API writes to a secondary zone (1292) and copies to a zone that is not secondary', async () => {
    const zone = await zones.create(caller, { name: Z, accountId: caller.accountIds[0], type: 'secondary' });
    await expect(records.create(zone, { type: 'A', name: 'x', content: '192.0.2.9' }, { apiDate: '2025-06-01', warnings: [] })).rejects.toMatchObject({ code: 1292 });
    const full = await zones.create(caller, { name: 'full.example', accountId: caller.accountIds[0], type: 'full' });
    await expect(applySecondaryCopy(records, full, { full: [rec('a', 'A', '192.0.2.1')] })).rejects.toThrow(/gone/);
    expect(await stored(full.id)).toEqual([]);
  });
});
