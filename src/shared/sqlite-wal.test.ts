import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';
import SQLite from 'better-sqlite3';
import { afterEach, expect, it } from 'vitest';
import { enableWal } from './sqlite-wal.js';

const require = createRequire(import.meta.url);
const dirs: string[] = [];
afterEach(() => { for (const d of dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true }); });

/** A thread holding a read transaction on `file` (rollback mode) until it is told to end it. */
async function holdShared(file: string): Promise<Worker> {
  const w = new Worker(`
    const { parentPort, workerData } = require('node:worker_threads');
    const db = new (require(workerData.module))(workerData.file);
    db.exec('BEGIN'); db.prepare('SELECT count(*) FROM t').get();
    parentPort.postMessage('held');
    parentPort.once('message', () => { db.exec('COMMIT'); db.close(); parentPort.close(); });
  `, { eval: true, workerData: { module: require.resolve('better-sqlite3'), file } });
  await new Promise((resolve) => w.once('message', resolve));
  return w;
}

it('retries the switch while another connection holds the new file, and gives up with SQLITE_BUSY after its timeout', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'stratus-wal-'));
  dirs.push(dir);
  const file = path.join(dir, 'x.sqlite');
  const setup = new SQLite(file);
  setup.exec('CREATE TABLE t (v)');
  setup.close();
  const holder = await holdShared(file);
  const db = new SQLite(file, { timeout: 0 }); // BUSY at once, as SQLite answers a switch that could deadlock
  expect(() => db.pragma('journal_mode = WAL')).toThrow(expect.objectContaining({ code: 'SQLITE_BUSY' }));
  expect(() => enableWal(db, 50)).toThrow(expect.objectContaining({ code: 'SQLITE_BUSY' }));
  // Released from the other thread while this one retries: the switch then succeeds.
  holder.postMessage('release');
  enableWal(db);
  expect(db.pragma('journal_mode', { simple: true })).toBe('wal');
  db.close();
  await holder.terminate();
});
