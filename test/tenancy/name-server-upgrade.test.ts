/**
 * Upgrading a store from before per-account name servers (migration 0011 and the start step,
 * zones/name-server-upgrade.ts): the admin's zones keep the instance names (nothing served changes), another
 * account's zones take the account's new pair, except a zone active only through another account's
 * delegation to the instance names (it keeps them, so the delegation still holds). The pairs are stored:
 * a second restart, even with another pool, changes nothing.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Cloudflare from 'cloudflare';
import { describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { accountId } from '../helpers/api.js';
import { addUser } from '../helpers/users.js';
import { openDatabase } from '../../src/db/database.js';
import { dig } from '../dns-server/dig.js';

const INSTANCE = ['ns1.stratus.invalid', 'ns2.stratus.invalid'];

describe('zones stored before per-account name servers', () => {
  it('keep the admin\'s names, take the account\'s pair otherwise, keep names a delegation relies on; stable across restarts', async () => {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'stratus-ns-upgrade-'));
    let server: TestServer = await startTestServer({ dataDir });
    try {
      const admin = server.sdk();
      const adminAccount = await accountId(server);
      const parent = await admin.zones.create({ account: { id: adminAccount }, name: 'old-parent.example', type: 'full' });
      const other = await addUser(server, 'old-tenant@example.org');
      const b = other.sdk();
      const own = await b.zones.create({ account: { id: other.accountId }, name: 'old-own.example', type: 'full' });
      const waiting = await b.zones.create({ account: { id: other.accountId }, name: 'wait.old-parent.example', type: 'full' });
      const delegated = await b.zones.create({ account: { id: other.accountId }, name: 'kid.old-parent.example', type: 'full' });
      for (const content of INSTANCE) await admin.dns.records.create({ zone_id: parent.id, type: 'NS', name: 'kid', content, ttl: 1 } as never);
      await server.stop();
      // What the older version stored: every zone with the instance names, the child active by that delegation, no pairs.
      const database = await openDatabase({ dataDir });
      await database.db.updateTable('zones').set({ name_servers: JSON.stringify(INSTANCE) }).execute();
      await database.db.updateTable('zones').set({ status: 'active' }).where('id', '=', delegated.id).execute();
      await database.db.deleteFrom('account_name_servers').execute();
      await database.close();

      server = await startTestServer({ dataDir });
      const b2 = new Cloudflare({ apiEmail: other.email, apiKey: other.key, baseURL: server.apiBase, maxRetries: 0 });
      expect((await server.sdk().zones.get({ zone_id: parent.id })).name_servers).toEqual(INSTANCE);
      const pair = (await b2.zones.get({ zone_id: own.id })).name_servers;
      expect(pair).not.toEqual(INSTANCE);
      expect(pair.every((n) => n.endsWith('.stratus.invalid'))).toBe(true);
      expect((await b2.zones.get({ zone_id: waiting.id })).name_servers).toEqual(pair);
      const kid = await b2.zones.get({ zone_id: delegated.id });
      expect([kid.status, kid.name_servers]).toEqual(['active', INSTANCE]);
      expect((await dig(server.dnsPort!, 'old-own.example', 'SOA')).answer[0]!.split(' ')[4]).toBe(`${pair[0]}.`);
      expect((await dig(server.dnsPort!, 'old-parent.example', 'SOA')).answer[0]!.split(' ')[4]).toBe('ns1.stratus.invalid.');
      // A new zone of the account gets the same stored pair.
      expect((await b2.zones.create({ account: { id: other.accountId }, name: 'new-own.example', type: 'full' })).name_servers).toEqual(pair);
      await server.stop();

      server = await startTestServer({ dataDir, flags: { 'name-server-pool': 'xa,xb,xc' } });
      const b3 = new Cloudflare({ apiEmail: other.email, apiKey: other.key, baseURL: server.apiBase, maxRetries: 0 });
      expect((await b3.zones.get({ zone_id: own.id })).name_servers).toEqual(pair);
      expect((await b3.zones.create({ account: { id: other.accountId }, name: 'newer-own.example', type: 'full' })).name_servers).toEqual(pair);
      expect((await server.sdk().zones.create({ account: { id: adminAccount }, name: 'newer-admin.example', type: 'full' })).name_servers).toEqual(INSTANCE);
    } finally {
      await server.stop();
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
