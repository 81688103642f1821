import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { openDatabase, type OpenDatabase } from '../db/database.js';
import { ZonePolicies } from './zone-policy.js';
import { ZonePolicyIndex, type ZonePolicyReader } from './zone-policy-index.js';

let database: OpenDatabase;
let dir: string;
let policies: ZonePolicies;
/** Every `readPolicies` call's ids, and the number of listings. */
let reads: string[][];
let listings: number;
let index: ZonePolicyIndex;

const stamp = '2026-11-28T00:00:00Z';
async function addZone(id: string, name: string, account: string, settings: object, status = 'active'): Promise<void> {
  await database.db.insertInto('zones').values({
    id, account_id: account, name, status, type: 'full', name_servers: '[]', serial: 1, dns_settings: '{}',
    zone_settings: JSON.stringify(settings), created_on: stamp, modified_on: stamp, activated_on: status === 'active' ? stamp : null,
  }).execute();
}
async function setMinTls(id: string, version: string): Promise<void> {
  await database.db.updateTable('zones').set((eb) => ({ zone_settings: JSON.stringify({ min_tls_version: { value: version } }), serial: eb('serial', '+', 1) })).where('id', '=', id).execute();
}

beforeEach(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'stratus-policy-index-'));
  database = await openDatabase({ dataDir: dir });
  for (const account of ['acct-a', 'acct-b']) await database.db.insertInto('accounts').values({ id: account, name: account, settings: '{}', created_on: stamp }).execute();
  policies = new ZonePolicies(database.db, undefined, 3_600_000);
  reads = [];
  listings = 0;
  const reader: ZonePolicyReader = {
    activeZones: () => { listings++; return policies.activeZones(); },
    readPolicies: (ids) => { reads.push([...ids].sort()); return policies.readPolicies(ids); },
  };
  index = new ZonePolicyIndex(reader);
  await addZone('zone-a', 'a.test', 'acct-a', { min_tls_version: { value: '1.2' } });
  await addZone('zone-b', 'b.test', 'acct-b', {});
});
afterEach(async () => {
  policies.close();
  await database.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

it("finds each name's zone by its longest active suffix, wildcards included, and reads each zone's settings once", async () => {
  const got = await index.resolve(['a.test', 'www.a.test', '*.a.test', 'b.test', 'other.test']);
  expect(got.get('a.test')?.minTls).toBe('TLSv1.2');
  expect(got.get('*.a.test')?.zoneId).toBe('zone-a');
  expect(got.get('www.a.test')?.accountId).toBe('acct-a');
  expect(got.get('b.test')?.accountId).toBe('acct-b');
  expect(got.get('other.test')).toBeUndefined();
  expect(reads).toEqual([['zone-a', 'zone-b']]);
  expect(listings).toBe(1);
  // nothing changed: nothing read again
  await index.resolve(['a.test', 'b.test']);
  expect(reads).toHaveLength(1);
  expect(listings).toBe(1);
});

it("a settings notice for one account's zone re-reads that zone only; the other account's names keep their policy", async () => {
  await index.resolve(['a.test', 'b.test']);
  await setMinTls('zone-b', '1.3');
  index.changed({ zones: new Set(['zone-b']), zonesMoved: false });
  const got = await index.resolve(['a.test', 'b.test']);
  expect(reads.at(-1)).toEqual(['zone-b']);
  expect(listings).toBe(1);
  expect(got.get('b.test')?.minTls).toBe('TLSv1.3');
  expect(got.get('a.test')?.minTls).toBe('TLSv1.2');
});

it('a relisting (changes on another node) re-reads only the zones whose serial moved', async () => {
  await index.resolve(['a.test', 'b.test']);
  await setMinTls('zone-a', '1.1');
  index.relist();
  const got = await index.resolve(['a.test', 'b.test']);
  expect(listings).toBe(2);
  expect(reads.at(-1)).toEqual(['zone-a']);
  expect(got.get('a.test')?.minTls).toBe('TLSv1.1');
});

it('a zone that came (a sub-zone of another account) takes its names from the parent zone; one that went gives them back', async () => {
  await index.resolve(['shop.a.test', 'a.test']);
  await addZone('zone-shop', 'shop.a.test', 'acct-b', { min_tls_version: { value: '1.3' } });
  index.changed({ zones: new Set(['zone-shop']), zonesMoved: true });
  let got = await index.resolve(['shop.a.test', 'a.test']);
  expect(got.get('shop.a.test')).toMatchObject({ zoneId: 'zone-shop', accountId: 'acct-b', minTls: 'TLSv1.3' });
  expect(got.get('a.test')?.zoneId).toBe('zone-a');
  expect(reads.at(-1)).toEqual(['zone-shop']);
  // deleted without a notice reaching this node: found while its settings are read again, the zones are listed again
  await database.db.deleteFrom('zones').where('id', '=', 'zone-shop').execute();
  index.changed({ zones: new Set(['zone-shop']), zonesMoved: false });
  got = await index.resolve(['shop.a.test', 'a.test']);
  expect(got.get('shop.a.test')?.zoneId).toBe('zone-a');
});

it('a zone that is not active holds no names', async () => {
  await addZone('zone-p', 'pending.test', 'acct-b', {}, 'pending');
  const got = await index.resolve(['pending.test', 'x.pending.test']);
  expect(got.get('pending.test')).toBeUndefined();
  expect(got.get('x.pending.test')).toBeUndefined();
  expect(reads).toEqual([]);
});
