import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { sql } from 'kysely';
import { afterEach, expect, it } from 'vitest';
import { openDatabase } from './database.js';

const dirs: string[] = [];
afterEach(() => { for (const d of dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true }); });

async function until(what: string, cond: () => boolean): Promise<void> {
  for (const end = Date.now() + 60_000; !cond();) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

it('with background checkpoints, commits never checkpoint; the thread moves the log into the file; nothing is lost on close', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'stratus-ckpt-'));
  dirs.push(dir);
  const file = path.join(dir, 'stratus.sqlite');
  const database = await openDatabase({ dataDir: dir, backgroundCheckpoints: true });
  const { rows } = await sql<{ wal_autocheckpoint: number }>`pragma wal_autocheckpoint`.execute(database.db);
  expect(rows[0]!.wal_autocheckpoint).toBe(0);
  const before = fs.statSync(file).size;
  // About 4 MiB of rows, far past the 1,000 pages after which a commit would checkpoint by itself.
  for (let i = 0; i < 20; i++) {
    await database.db.insertInto('accounts').values(Array.from({ length: 50 }, (_, j) => ({ id: `a${i}-${j}`, name: 'x'.repeat(4000), settings: '{}', created_on: 'now' }))).execute();
  }
  await until('the database file to grow (the log checkpointed by the thread)', () => fs.statSync(file).size > before + 3_000_000);
  await database.close();
  const again = await openDatabase({ dataDir: dir });
  const count = await again.db.selectFrom('accounts').select((e) => e.fn.countAll<number>().as('n')).where('id', 'like', 'a%-%').executeTakeFirstOrThrow();
  expect(Number(count.n)).toBe(1000);
  await again.close();
});
