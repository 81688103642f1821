import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase, type OpenDatabase } from './database.js';
import { UniqueViolationError, uniqueViolationOf } from './unique-violation.js';
import '../zones/unique-keys.js';
import { AppError } from '../shared/errors.js';

describe('unique violations on SQLite', () => {
  let dir: string;
  let database: OpenDatabase;
  beforeAll(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'stratus-unique-'));
    database = await openDatabase({ dataDir: dir });
  });
  afterAll(async () => {
    await database.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  const zone = (id: string, name: string) => ({
    id, account_id: 'acct', name, status: 'active', type: 'full', name_servers: '[]', serial: 1,
    dns_settings: '{}', zone_settings: '{}', created_on: 'x', modified_on: 'x', record_count: 0,
  });

  it('arrive as the resource\'s AppError, by table, inside and outside transactions', async () => {
    await database.db.insertInto('zones').values(zone('z1', 'dup.example')).execute();
    const outside = await database.db.insertInto('zones').values(zone('z2', 'dup.example')).execute().catch((e: unknown) => e);
    expect(outside).toBeInstanceOf(UniqueViolationError);
    expect(outside).toBeInstanceOf(AppError);
    expect((outside as UniqueViolationError).code).toBe(1061);
    expect((outside as UniqueViolationError).violation).toEqual({ table: 'zones', constraint: undefined, columns: ['name'] });
    const inside = await database.db.transaction().execute((trx) => trx.insertInto('zones').values(zone('z3', 'dup.example')).execute()).catch((e: unknown) => e);
    expect((inside as UniqueViolationError).on('zones')).toBe(true);
    // A primary key, and a table with a generic code.
    const pk = await database.db.insertInto('zones').values(zone('z1', 'other.example')).execute().catch((e: unknown) => e);
    expect((pk as UniqueViolationError).violation.columns).toEqual(['id']);
    await database.db.insertInto('users').values({ id: 'u1', email: 'a@example.com', key_hash: 'h', created_on: 'x' }).execute();
    const user = await database.db.insertInto('users').values({ id: 'u2', email: 'a@example.com', key_hash: 'h2', created_on: 'x' }).execute().catch((e: unknown) => e);
    expect((user as UniqueViolationError).code).toBe(1199);
    expect((user as Error).message).not.toContain('a@example.com');
  });

  it('leaves other errors alone', () => {
    expect(uniqueViolationOf(new Error('x'))).toBeUndefined();
    expect(uniqueViolationOf({ code: 'SQLITE_CONSTRAINT_NOTNULL', message: 'NOT NULL constraint failed: zones.name' })).toBeUndefined();
    expect(uniqueViolationOf({ code: '23503' })).toBeUndefined();
    expect(uniqueViolationOf({ code: '23505', table: 'zones', constraint: 'zones_name_key', detail: 'Key (name)=(a.example) already exists.' }))
      .toEqual({ table: 'zones', constraint: 'zones_name_key', columns: ['name'] });
  });
});
