import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openDatabase, type OpenDatabase } from '../db/database.js';
import { WriteQueue } from './write-queue.js';
import { StorageFullError, UnavailableError } from '../shared/faults.js';

describe('WriteQueue (group commit)', () => {
  let dir: string;
  let database: OpenDatabase;
  beforeEach(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'stratus-wq-'));
    database = await openDatabase({ dataDir: dir });
  });
  afterEach(async () => {
    await database.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  const ids = async () => (await database.db.selectFrom('accounts').select('id').orderBy('id').execute()).map((r) => r.id);

  it('runs concurrent jobs in order; a failing job is rolled back alone, with its own error', async () => {
    const q = new WriteQueue(database.db);
    const results = await Promise.allSettled(['a', 'b', 'c', 'd'].map((id) => q.run(async (trx) => {
      await trx.insertInto('accounts').values({ id, name: id, settings: '{}', created_on: 'now' }).execute();
      await trx.insertInto('accounts').values({ id: `${id}2`, name: id, settings: '{}', created_on: 'now' }).execute();
      if (id === 'c') throw new Error('job c fails after writing');
      const seen = await trx.selectFrom('accounts').select('id').execute();
      return seen.length;
    })));
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'fulfilled', 'rejected', 'fulfilled']);
    expect((results[2] as PromiseRejectedResult).reason.message).toBe('job c fails after writing');
    expect(await ids()).toEqual(['a', 'a2', 'b', 'b2', 'd', 'd2']);
    // Each job saw the jobs before it.
    expect((results[0] as PromiseFulfilledResult<number>).value).toBe(2);
    expect((results[3] as PromiseFulfilledResult<number>).value).toBe(6);
  });

  it('a store fault in one job fails the whole group with that fault, and nothing of the group is applied', async () => {
    const q = new WriteQueue(database.db);
    const results = await Promise.allSettled(['a', 'b', 'c'].map((id) => q.run(async (trx) => {
      await trx.insertInto('accounts').values({ id, name: id, settings: '{}', created_on: 'now' }).execute();
      if (id === 'b') throw new StorageFullError(new Error('SQLITE_FULL'));
      return id;
    })));
    expect(results.map((r) => r.status)).toEqual(['rejected', 'rejected', 'rejected']);
    for (const r of results) expect((r as PromiseRejectedResult).reason).toBeInstanceOf(StorageFullError);
    expect(await ids()).toEqual([]);
    // The queue goes on with the next group.
    await q.run((trx) => trx.insertInto('accounts').values({ id: 'd', name: 'd', settings: '{}', created_on: 'now' }).execute());
    expect(await ids()).toEqual(['d']);
  });

  it('a lone job failing with a fault gets the fault, not a rollback error', async () => {
    const q = new WriteQueue(database.db);
    const fault = new UnavailableError('database');
    await expect(q.run(async () => { throw fault; })).rejects.toBe(fault);
  });

  it('jobs that arrive in the same event-loop turn share one transaction; a later job gets its own', async () => {
    const q = new WriteQueue(database.db);
    const transactions: unknown[] = [];
    const job = (id: string) => q.run(async (trx) => {
      transactions.push(trx);
      await trx.insertInto('accounts').values({ id, name: id, settings: '{}', created_on: 'now' }).execute();
    });
    await Promise.all([job('a'), job('b'), job('c')]);
    await job('d');
    expect(transactions).toHaveLength(4);
    expect(new Set(transactions.slice(0, 3)).size).toBe(1);
    expect(transactions[3]).not.toBe(transactions[0]);
    expect(await ids()).toEqual(['a', 'b', 'c', 'd']);
  });

  it('a lone failing job writes nothing; later jobs still run', async () => {
    const q = new WriteQueue(database.db);
    await expect(q.run(async (trx) => { await trx.insertInto('accounts').values({ id: 'x', name: 'x', settings: '{}', created_on: 'now' }).execute(); throw new Error('no'); })).rejects.toThrow('no');
    await q.run((trx) => trx.insertInto('accounts').values({ id: 'y', name: 'y', settings: '{}', created_on: 'now' }).execute());
    expect(await ids()).toEqual(['y']);
  });

  it('after the database is closed, jobs waiting and every later one are rejected with the fault (503 + 1280), without spinning: timers keep firing', async () => {
    const q = new WriteQueue(database.db);
    await q.run((trx) => trx.insertInto('accounts').values({ id: 'a', name: 'a', settings: '{}', created_on: 'now' }).execute());
    let ticks = 0;
    const ticker = setInterval(() => { ticks++; }, 1);
    try {
      const waiting = [1, 2, 3].map(() => q.run(async () => 'never'));
      await database.db.destroy();
      for (const r of await Promise.allSettled(waiting)) {
        expect(r.status).toBe('rejected');
        expect((r as PromiseRejectedResult).reason).toBeInstanceOf(UnavailableError);
        expect((r as PromiseRejectedResult).reason).toMatchObject({ code: 1280, status: 503, retryAfterSeconds: 5 });
      }
      await expect(q.run(async () => 'never')).rejects.toBeInstanceOf(UnavailableError);
      // The event loop is not starved: a timer set now fires.
      const before = ticks;
      await new Promise((resolve) => setTimeout(resolve, 5));
      expect(ticks).toBeGreaterThan(before);
    } finally {
      clearInterval(ticker);
    }
  });
});
