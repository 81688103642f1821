import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase, type OpenDatabase } from './database.js';
import { MultiRowInsert } from './multi-row-insert.js';
import { freshPostgresUrl } from '../../test/helpers/postgres.js';

interface AccountRow extends Record<string, unknown> { id: string; name: string; settings: string; created_on: string }
const INSERT = new MultiRowInsert<AccountRow>('accounts', ['id', 'name', 'settings', 'created_on'], 3);

function behavesOn(label: string, open: () => Promise<{ database: OpenDatabase; cleanup(): Promise<void> }>): void {
  describe(`MultiRowInsert on ${label}`, () => {
    let database: OpenDatabase;
    let cleanup: () => Promise<void>;
    beforeAll(async () => ({ database, cleanup } = await open()));
    afterAll(async () => cleanup());

    it('inserts every row in chunks (a partial last one too), values bound as parameters, in a transaction too', async () => {
      const rows = Array.from({ length: 7 }, (_, i) => ({ id: `m${i}`, name: i === 3 ? "x' or '1'='1" : `n${i}`, settings: '{}', created_on: `2026-01-0${i + 1}` }));
      await database.db.transaction().execute((trx) => INSERT.execute(trx, rows.slice(0, 4)));
      await INSERT.execute(database.db, rows.slice(4));
      await INSERT.execute(database.db, []);
      const stored = await database.db.selectFrom('accounts').select(['id', 'name', 'settings', 'created_on']).where('id', 'like', 'm%').orderBy('id').execute();
      expect(stored).toEqual(rows);
    });

    it('a failing chunk fails the call (a duplicate key)', async () => {
      await expect(INSERT.execute(database.db, [{ id: 'm0', name: 'again', settings: '{}', created_on: 'x' }])).rejects.toThrow();
    });
  });
}

behavesOn('SQLite', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'stratus-mri-'));
  const database = await openDatabase({ dataDir: dir });
  return { database, cleanup: async () => { await database.close(); fs.rmSync(dir, { recursive: true, force: true }); } };
});

behavesOn('PostgreSQL', async () => {
  const { url, drop } = await freshPostgresUrl('mri');
  const database = await openDatabase({ dataDir: '', url });
  return { database, cleanup: async () => { await database.close(); await drop(); } };
});
