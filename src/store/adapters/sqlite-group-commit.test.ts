import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import SQLite from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { GroupCommit } from './sqlite-group-commit.js';

const dirs: string[] = [];
function openDb(): SQLite.Database {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'group-commit-'));
  dirs.push(dir);
  const db = new SQLite(path.join(dir, 'db.sqlite'));
  db.pragma('journal_mode = WAL');
  db.exec('CREATE TABLE kv (k TEXT PRIMARY KEY, v INTEGER NOT NULL)');
  return db;
}
afterEach(() => {
  for (const d of dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true });
});

describe('GroupCommit', () => {
  it('runs the writes of one turn in one transaction, in order, each seeing the ones before it', async () => {
    const db = openDb();
    const increment = new GroupCommit(db, (k: string) => {
      const row = db.prepare('SELECT v FROM kv WHERE k = ?').get(k) as { v: number } | undefined;
      const v = (row?.v ?? 0) + 1;
      db.prepare('INSERT OR REPLACE INTO kv (k, v) VALUES (?, ?)').run(k, v);
      return v;
    });
    const results = await Promise.all(Array.from({ length: 10 }, () => increment.run('a')));
    expect(results).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
    // A second connection sees every write, committed.
    const other = new SQLite(db.name, { readonly: true });
    expect(other.prepare('SELECT v FROM kv WHERE k = ?').get('a')).toEqual({ v: 10 });
    other.close();
    db.close();
  });

  it('settles a write only after its commit: nothing of a batch is visible to another connection before', async () => {
    const db = openDb();
    const other = new SQLite(db.name, { readonly: true });
    const seenInside: Array<unknown> = [];
    const put = new GroupCommit(db, (k: string) => {
      db.prepare('INSERT INTO kv (k, v) VALUES (?, 1)').run(k);
      seenInside.push(other.prepare('SELECT count(*) AS n FROM kv').get());
      return k;
    });
    await Promise.all([put.run('x'), put.run('y'), put.run('z')]);
    expect(seenInside).toEqual([{ n: 0 }, { n: 0 }, { n: 0 }]);
    expect(other.prepare('SELECT count(*) AS n FROM kv').get()).toEqual({ n: 3 });
    other.close();
    db.close();
  });

  it('rejects a write that throws alone, rolling back only its own changes', async () => {
    const db = openDb();
    const put = new GroupCommit(db, (k: string, v: number) => {
      db.prepare('INSERT INTO kv (k, v) VALUES (?, ?)').run(k, v);
      if (v < 0) throw new Error(`negative ${k}`);
      return k;
    });
    const settled = await Promise.allSettled([put.run('a', 1), put.run('b', -1), put.run('c', 3), put.run('a', 4)]);
    expect(settled.map((s) => s.status)).toEqual(['fulfilled', 'rejected', 'fulfilled', 'rejected']);
    expect((settled[1] as PromiseRejectedResult).reason.message).toBe('negative b');
    expect((settled[3] as PromiseRejectedResult).reason.code).toBe('SQLITE_CONSTRAINT_PRIMARYKEY');
    expect(db.prepare('SELECT k, v FROM kv ORDER BY k').all()).toEqual([{ k: 'a', v: 1 }, { k: 'c', v: 3 }]);
    db.close();
  });

  it('rejects every write of a batch whose transaction cannot start, and stores none', async () => {
    const db = openDb();
    db.pragma('busy_timeout = 0');
    const put = new GroupCommit(db, (k: string) => {
      db.prepare('INSERT INTO kv (k, v) VALUES (?, 1)').run(k);
      return k;
    });
    // Another connection holds the write lock: BEGIN IMMEDIATE fails with SQLITE_BUSY.
    const other = new SQLite(db.name);
    other.pragma('busy_timeout = 0');
    other.exec('BEGIN IMMEDIATE');
    const settled = await Promise.allSettled([put.run('a'), put.run('b')]);
    expect(settled.map((s) => s.status)).toEqual(['rejected', 'rejected']);
    expect((settled[0] as PromiseRejectedResult).reason.code).toBe('SQLITE_BUSY');
    other.exec('ROLLBACK');
    // The next turn's writes go through.
    await expect(put.run('c')).resolves.toBe('c');
    expect(db.prepare('SELECT k FROM kv').all()).toEqual([{ k: 'c' }]);
    other.close();
    db.close();
  });
});
