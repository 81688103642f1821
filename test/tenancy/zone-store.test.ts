/**
 * The zone store under the ownership rules on SQLite: migration 0004 carries zones of an older store over
 * (records and counts intact, existing zones active), one account cannot hold two zones of a name even when
 * its creates race, and two accounts racing for a name end with one active zone and one pending.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import SQLite from 'better-sqlite3';
import Cloudflare from 'cloudflare';
import { Kysely, SqliteDialect } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { migrateTo, migrateToLatest } from '../../src/db/migrations.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { accountId, api } from '../helpers/api.js';
import { addUser } from '../helpers/users.js';
import { openDatabase } from '../../src/db/database.js';
import { dig } from '../dns-server/dig.js';

describe('migration 0004 on SQLite', () => {
  it('rebuilds zones without the store-wide unique name, keeping rows, and enforces the new indexes', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'stratus-m4-'));
    const db = new Kysely<any>({ dialect: new SqliteDialect({ database: new SQLite(path.join(dir, 'db.sqlite')) }) });
    try {
      await migrateTo(db, '0003_api_tokens');
      const row = { account_id: 'acc1', status: 'active', type: 'full', name_servers: '["ns1.stratus.invalid"]', serial: 7, dns_settings: '{"x":1}', zone_settings: '{}', created_on: '2025-01-01T00:00:00.0Z', modified_on: '2025-01-02T00:00:00.0Z' };
      await db.insertInto('zones').values({ ...row, id: 'z1', name: 'kept.example', record_count: 1 }).execute();
      await migrateTo(db, '0004_zone_owners');
      expect(await db.selectFrom('zones').selectAll().execute()).toEqual([{
        ...row, id: 'z1', name: 'kept.example', record_count: 1, activated_on: '2025-01-01T00:00:00.0Z', hold_after: null, hold_include_subdomains: 0,
      }]);
      await db.insertInto('zones').values({ ...row, id: 'z2', account_id: 'acc2', name: 'kept.example', status: 'pending' }).execute();
      await expect(db.insertInto('zones').values({ ...row, id: 'z3', account_id: 'acc3', name: 'kept.example' }).execute()).rejects.toMatchObject({ code: 'SQLITE_CONSTRAINT_UNIQUE' });
      await expect(db.insertInto('zones').values({ ...row, id: 'z4', account_id: 'acc2', name: 'kept.example', status: 'pending' }).execute()).rejects.toMatchObject({ code: 'SQLITE_CONSTRAINT_UNIQUE' });
      // A crash after the step committed but before the migrator recorded it: the step runs again harmlessly.
      await db.deleteFrom('kysely_migration').where('name', '=', '0004_zone_owners').execute();
      await migrateTo(db, '0004_zone_owners');
      expect(await db.selectFrom('zones').select(['id', 'status', 'activated_on']).orderBy('id').execute()).toEqual([
        { id: 'z1', status: 'active', activated_on: '2025-01-01T00:00:00.0Z' }, { id: 'z2', status: 'pending', activated_on: null },
      ]);
      await migrateToLatest(db); // the later steps run on top of it
    } finally {
      await db.destroy();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('racing creates on one node', () => {
  let server: TestServer;
  beforeAll(async () => { server = await startTestServer(); });
  afterAll(async () => { await server?.stop(); });

  it('one account: one zone, 1061 for the rest; two accounts: one active and one pending', async () => {
    const mine = await accountId(server);
    const results = await Promise.all(Array.from({ length: 20 }, () => api(server, 'POST', '/zones', { name: 'sqlite-race.example', account: { id: mine } })));
    expect(results.filter((r) => r.status === 200)).toHaveLength(1);
    expect(new Set(results.filter((r) => r.status !== 200).map((r) => `${r.status} ${r.body.errors[0]!.code}`))).toEqual(new Set(['400 1061']));

    const other = await addUser(server, 'race-b@example.org');
    const headers = { 'x-auth-email': other.email, 'x-auth-key': other.key };
    const both = await Promise.all([
      api(server, 'POST', '/zones', { name: 'contested.example', account: { id: mine } }),
      api(server, 'POST', '/zones', { name: 'contested.example', account: { id: other.accountId } }, headers),
    ]);
    expect(both.map((r) => r.status)).toEqual([200, 200]);
    expect(both.map((r) => r.body.result.status).sort()).toEqual(['active', 'pending']);
  });
});

describe('zones stored before the ownership rules', () => {
  it('a takeover stored by an older version is moved at start and never served', async () => {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'stratus-reconcile-'));
    let server = await startTestServer({ dataDir });
    try {
      const a = server.sdk();
      const parent = await a.zones.create({ account: { id: await accountId(server) }, name: 'pre-rules.example', type: 'full' });
      await a.dns.records.create({ zone_id: parent.id, type: 'TXT', name: 'www', content: 'a', ttl: 300 } as never);
      const other = await addUser(server, 'old-b@example.org');
      const child = await other.sdk().zones.create({ account: { id: other.accountId }, name: 'www.pre-rules.example', type: 'full' });
      await other.sdk().dns.records.create({ zone_id: child.id, type: 'TXT', name: '@', content: 'b', ttl: 300 } as never);
      await server.stop();
      // What an older version stored: every zone active.
      const database = await openDatabase({ dataDir });
      await database.db.updateTable('zones').set({ status: 'active' }).execute();
      await database.close();

      server = await startTestServer({ dataDir });
      const b = addUserSdk(server, other.email, other.key);
      expect((await b.zones.get({ zone_id: child.id })).status).toBe('moved');
      expect((await dig(server.dnsPort!, 'www.pre-rules.example', 'TXT')).answer).toEqual(['www.pre-rules.example. 300 IN TXT "a"']);
    } finally {
      await server.stop();
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
  });
});

function addUserSdk(server: TestServer, email: string, key: string): Cloudflare {
  return new Cloudflare({ apiEmail: email, apiKey: key, baseURL: server.apiBase, maxRetries: 0 });
}
