import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { sql } from 'kysely';
import { afterEach, expect, it } from 'vitest';
import SQLite from 'better-sqlite3';
import { openDatabase } from './database.js';
import { startCheckpointer } from './sqlite-checkpointer.js';

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

it('an idle database is checked less and less often, and a write after the idle spell is still checkpointed', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'stratus-ckpt-idle-'));
  dirs.push(dir);
  const file = path.join(dir, 'idle.sqlite');
  const db = new SQLite(file);
  db.pragma('journal_mode = WAL');
  db.exec('create table t (v text)');
  const checkpointer = startCheckpointer(db, file, () => {}, { intervalMs: 10, idleMs: 400 });
  const insert = db.prepare('insert into t values (?)');
  const write = () => db.transaction(() => { for (let i = 0; i < 300; i++) insert.run('x'.repeat(4000)); })();
  try {
    write();
    await until('the first write checkpointed', () => fs.statSync(file).size > 1_000_000);
    // Idle well past the longest wait: the thread backs off to 400 ms between looks.
    await new Promise((r) => setTimeout(r, 1500));
    const before = fs.statSync(file).size;
    write();
    await until('the write after the idle spell checkpointed', () => fs.statSync(file).size > before + 1_000_000);
  } finally {
    await checkpointer.stop();
    db.close();
  }
});

it('stopping settles in a process with nothing else to do (the thread is held while it stops)', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'stratus-ckpt-exit-'));
  dirs.push(dir);
  const here = path.dirname(fileURLToPath(import.meta.url));
  const file = path.join(dir, 'x.sqlite');
  // The thread is unreferenced while it runs; a script whose last step is `await stop()` must still finish
  // (an unsettled top-level await would exit with code 13 before printing).
  const script = path.join(dir, 'stop.mjs');
  fs.writeFileSync(script, `
    import { createRequire } from 'node:module';
    import fs from 'node:fs';
    const Database = createRequire(${JSON.stringify(path.join(here, 'database.ts'))})('better-sqlite3');
    const { startCheckpointer } = await import(${JSON.stringify(path.join(here, 'sqlite-checkpointer.ts'))});
    const file = ${JSON.stringify(file)};
    const db = new Database(file);
    db.pragma('journal_mode = WAL');
    db.exec('create table t (v text)');
    const checkpointer = startCheckpointer(db, file);
    const before = fs.statSync(file).size;
    const insert = db.prepare('insert into t values (?)');
    db.transaction(() => { for (let i = 0; i < 500; i++) insert.run('x'.repeat(4000)); })();
    // Running: the thread has moved the log into the file.
    while (fs.statSync(file).size < before + 1_000_000) await new Promise((r) => setTimeout(r, 20));
    await checkpointer.stop();
    db.close();
    console.log('stopped');
  `);
  const run = spawnSync(process.execPath, [script], { encoding: 'utf8', timeout: 120_000 });
  expect({ status: run.status, out: run.stdout.trim() }, run.stderr).toEqual({ status: 0, out: 'stopped' });
});
