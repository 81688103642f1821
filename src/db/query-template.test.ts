import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase, type OpenDatabase } from './database.js';
import { QueryTemplate } from './query-template.js';
import { freshPostgresUrl } from '../../test/helpers/postgres.js';

const ACCOUNT_BY_NAME = new QueryTemplate<{ name: string }, { id: string; settings: string }>((db, p) => db.selectFrom('accounts')
  .select(['id', 'settings']).where('name', '=', p('name')).where('created_on', '!=', 'never').orderBy('id'));
const INSERT_ACCOUNT = new QueryTemplate<{ id: string; name: string }, never>((db, p) => db.insertInto('accounts')
  .values({ id: p('id'), name: p('name'), settings: '{}', created_on: sql<string>`${'2026-01-01'}` }));

/** The same templates on each dialect: placeholders take the values given, constants keep theirs. */
function behavesOn(label: string, open: () => Promise<{ database: OpenDatabase; cleanup(): Promise<void> }>): void {
  describe(`QueryTemplate on ${label}`, () => {
    let database: OpenDatabase;
    let cleanup: () => Promise<void>;
    beforeAll(async () => ({ database, cleanup } = await open()));
    afterAll(async () => cleanup());

    it('runs with new values each time, in a transaction too, and keeps build-time constants', async () => {
      await INSERT_ACCOUNT.execute(database.db, { id: 'a1', name: 'one' });
      await database.db.transaction().execute((trx) => INSERT_ACCOUNT.execute(trx, { id: 'a2', name: 'two' }));
      await INSERT_ACCOUNT.execute(database.db, { id: 'a3', name: 'one' });
      expect(await ACCOUNT_BY_NAME.execute(database.db, { name: 'one' })).toEqual([{ id: 'a1', settings: '{}' }, { id: 'a3', settings: '{}' }]);
      expect(await ACCOUNT_BY_NAME.executeTakeFirst(database.db, { name: 'two' })).toEqual({ id: 'a2', settings: '{}' });
      expect(await ACCOUNT_BY_NAME.executeTakeFirst(database.db, { name: 'none' })).toBeUndefined();
      const stamps = await database.db.selectFrom('accounts').select('created_on').distinct().execute();
      expect(stamps).toEqual([{ created_on: '2026-01-01' }]);
    });

    it('binds values as parameters, never as SQL text', async () => {
      const hostile = "x' or '1'='1";
      await INSERT_ACCOUNT.execute(database.db, { id: 'a4', name: hostile });
      expect(await ACCOUNT_BY_NAME.execute(database.db, { name: hostile })).toEqual([{ id: 'a4', settings: '{}' }]);
      expect(await ACCOUNT_BY_NAME.execute(database.db, { name: "' or '1'='1" })).toEqual([]);
    });
  });
}

behavesOn('SQLite', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'stratus-qt-'));
  const database = await openDatabase({ dataDir: dir });
  return { database, cleanup: async () => { await database.close(); fs.rmSync(dir, { recursive: true, force: true }); } };
});

behavesOn('PostgreSQL', async () => {
  const { url, drop } = await freshPostgresUrl('qt');
  const database = await openDatabase({ dataDir: '', url });
  return { database, cleanup: async () => { await database.close(); await drop(); } };
});
