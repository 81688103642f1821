/**
 * certs/serving-nodes.ts on a real SQLite database: the wait ends once every live node serves the serial, a
 * node whose heartbeat is older than `liveMs` does not count, a live node that never serves it fails the wait
 * with the nodes named, an abort ends the wait at once, and a closed node's rows are gone.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase, type OpenDatabase } from '../../src/db/database.js';
import { ServingNodes } from '../../src/certs/serving-nodes.js';

const TIMING = { heartbeatMs: 50, liveMs: 10_000, timeoutMs: 1_500 };
let dir: string;
let database: OpenDatabase;

beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'stratus-serving-nodes-'));
  database = await openDatabase({ dataDir: dir });
  await database.db.insertInto('acme_challenges').values({ id: 'c1', zone_id: 'z1', name: '_acme-challenge.z.test', content: 'v', created_ms: Date.now() }).execute();
});

afterAll(async () => {
  await database?.close();
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
});

describe('serving nodes', () => {
  it('waits for every live node, ignores a node gone quiet, names one that never serves (its own wait timing out)', async () => {
    let servedB = 4;
    const a = new ServingNodes(database.db, () => 7, TIMING);
    const b = new ServingNodes(database.db, () => servedB, TIMING);
    a.start();
    b.start();
    // a node whose last heartbeat is older than liveMs does not hold anyone up
    await database.db.insertInto('dns_nodes').values({ node_id: 'gone', heartbeat_ms: Date.now() - 60_000 }).execute();
    await expect(a.waitServed('z1', 7, 'the record')).rejects.toThrow(new RegExp(`the record was not served by 1 of 2 live DNS nodes.*nodes ${b.nodeId}.*the CA was not asked`));
    // the same wait with room to spare: it ends once b's next beat records the serial
    const patient = new ServingNodes(database.db, () => 7, { ...TIMING, timeoutMs: 120_000 });
    const waiting = patient.waitServed('z1', 7, 'the record');
    servedB = 7;
    await expect(waiting).resolves.toBeUndefined();
    await patient.close();
    const abort = new AbortController();
    const stuck = a.waitServed('z1', 8, 'the record', abort.signal);
    abort.abort(new Error('closing'));
    await expect(stuck).rejects.toThrow('closing');
    await b.close();
    await a.close();
    expect(await database.db.selectFrom('dns_nodes').select('node_id').execute()).toEqual([{ node_id: 'gone' }]);
    expect(await database.db.selectFrom('dns_node_zone_serials').selectAll().execute()).toEqual([]);
  });
});
