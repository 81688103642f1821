import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import SQLite from 'better-sqlite3';
import { Kysely, SqliteDialect } from 'kysely';
import { describe, expect, it } from 'vitest';
import { migrateTo } from './migrations.js';

describe('migration 0015 on SQLite', () => {
  it('puts zones created secondary before it on the pre-signed path, and leaves the others', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'stratus-m15-'));
    const db = new Kysely<any>({ dialect: new SqliteDialect({ database: new SQLite(path.join(dir, 'db.sqlite')) }) });
    try {
      await migrateTo(db, '0014_secondary_dns');
      const row = { account_id: 'acc1', status: 'active', name_servers: '["ns1.stratus.invalid"]', serial: 7, dns_settings: '{}', zone_settings: '{}', created_on: '2025-01-01T00:00:00.0Z', modified_on: '2025-01-02T00:00:00.0Z' };
      await db.insertInto('zones').values([
        { ...row, id: 'z1', name: 'old-secondary.example', type: 'secondary' },
        { ...row, id: 'z2', name: 'full.example', type: 'full' },
        { ...row, id: 'z3', name: 'signed-secondary.example', type: 'secondary', dnssec: '{"status":"active"}' },
      ]).execute();
      await migrateTo(db, '0015_secondary_incoming');
      const rows = await db.selectFrom('zones').select(['id', 'dnssec']).orderBy('id').execute();
      expect(JSON.parse(rows[0].dnssec)).toMatchObject({ presigned: true, useNsec3: true, status: 'disabled' });
      expect(rows.slice(1)).toEqual([{ id: 'z2', dnssec: null }, { id: 'z3', dnssec: '{"status":"active"}' }]);
      expect(await db.selectFrom('secondary_dns_incoming').selectAll().execute()).toEqual([]);
      expect(await db.selectFrom('zone_journal').selectAll().execute()).toEqual([]);
    } finally {
      await db.destroy();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
