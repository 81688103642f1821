/**
 * Names have owners on two nodes sharing one PostgreSQL database: racing creates of one zone name by one
 * account give exactly one zone and 1061 for every other (never a 500); racing creates of one name by two
 * accounts give one active zone and one pending; a delegation written on one node activates the child on the
 * other node's DNS server (the delegation names the child's own pair); accounts given pairs at once on both
 * nodes each get their own; a parent and a child of two accounts created at once never both end up active
 * without a delegation (an advisory lock serialises the decisions). Migration 0004 carries existing zones over.
 */
import Cloudflare from 'cloudflare';
import { Kysely, PostgresDialect } from 'kysely';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { accountId } from '../helpers/api.js';
import { addUser } from '../helpers/users.js';
import { freshPostgresUrl } from '../helpers/postgres.js';
import { dig } from '../dns-server/dig.js';
import { migrateTo, migrateToLatest } from '../../src/db/migrations.js';

let url: string;
let drop: () => Promise<void>;
let n1: TestServer;
let n2: TestServer;
let aAccount: string;
let b: { accountId: string; email: string; key: string };

beforeAll(async () => {
  ({ url, drop } = await freshPostgresUrl('owners'));
  n1 = await startTestServer({ flags: { 'database-url': url, s3: 'off' } });
  n2 = await startTestServer({ flags: { 'database-url': url, s3: 'off' } });
  aAccount = await accountId(n1);
  b = await addUser(n1, 'pg-owner-b@example.org', undefined, { databaseUrl: url });
});

afterAll(async () => {
  await n2?.stop();
  await n1?.stop();
  await drop?.();
});

/** POST /zones with the given credentials; returns status and the first error code or the zone status. */
async function create(node: TestServer, email: string, key: string, account: string, name: string): Promise<{ status: number; code?: number; zone?: string }> {
  const res = await fetch(`${node.apiBase}/zones`, {
    method: 'POST', headers: { 'x-auth-email': email, 'x-auth-key': key, 'content-type': 'application/json' },
    body: JSON.stringify({ name, account: { id: account } }),
  });
  const body = await res.json() as { result: { status: string } | null; errors: { code: number }[] };
  return { status: res.status, code: body.errors[0]?.code, zone: body.result?.status };
}

describe('two nodes on one PostgreSQL', () => {
  it('racing creates of one name by one account: one zone, 1061 for the rest, no 500', async () => {
    for (let round = 0; round < 4; round++) {
      const name = `race-${round}.owners.example`;
      const results = await Promise.all(Array.from({ length: 24 }, (_, i) => create(i % 2 ? n2 : n1, n1.email, n1.key, aAccount, name)));
      expect(results.filter((r) => r.status === 200)).toHaveLength(1);
      expect(results.filter((r) => r.status !== 200).map((r) => [r.status, r.code])).toEqual(Array.from({ length: 23 }, () => [400, 1061]));
    }
  });

  it('racing creates of one name by two accounts: exactly one active, the other pending', async () => {
    for (let round = 0; round < 6; round++) {
      const name = `contested-${round}.com`;
      const results = await Promise.all(Array.from({ length: 12 }, (_, i) => (i % 2
        ? create(i % 4 === 1 ? n2 : n1, b.email, b.key, b.accountId, name)
        : create(i % 4 === 0 ? n2 : n1, n1.email, n1.key, aAccount, name))));
      expect(results.filter((r) => r.status >= 500)).toEqual([]);
      const created = results.filter((r) => r.status === 200).map((r) => r.zone).sort();
      expect(created).toEqual(['active', 'pending']);
    }
  });

  it('a delegation written through one node activates the child, served by the other node', async () => {
    const a = n1.sdk();
    const parent = await a.zones.create({ account: { id: aAccount }, name: 'pg-parent.com', type: 'full' });
    const bSdk = new Cloudflare({ apiEmail: b.email, apiKey: b.key, baseURL: n2.apiBase, maxRetries: 0 });
    const child = await bSdk.zones.create({ account: { id: b.accountId }, name: 'kid.pg-parent.com', type: 'full' });
    expect(child.status).toBe('pending');
    await bSdk.dns.records.create({ zone_id: child.id, type: 'TXT', name: '@', content: 'kid', ttl: 300 } as never);
    for (const content of child.name_servers) await a.dns.records.create({ zone_id: parent.id, type: 'NS', name: 'kid', content, ttl: 1 } as never);
    expect((await bSdk.zones.get({ zone_id: child.id })).status).toBe('active');
    const deadline = Date.now() + 20_000;
    let answer = await dig(n2.dnsPort!, 'kid.pg-parent.com', 'TXT');
    while (!answer.answer.includes('kid.pg-parent.com. 300 IN TXT "kid"') && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 200));
      answer = await dig(n2.dnsPort!, 'kid.pg-parent.com', 'TXT');
    }
    expect(answer.answer).toEqual(['kid.pg-parent.com. 300 IN TXT "kid"']);
    expect(answer.flags).toContain('aa');
  });
});

describe('two nodes racing on name server pairs and parents', () => {
  it('accounts given pairs at once on both nodes each get their own pair, never a 500', async () => {
    const users = await Promise.all(Array.from({ length: 8 }, (_, i) => addUser(n1, `pg-pair-${i}@example.org`, undefined, { databaseUrl: url })));
    const made = await Promise.all(users.map(async (u, i) => {
      const res = await fetch(`${(i % 2 ? n2 : n1).apiBase}/zones`, {
        method: 'POST', headers: { 'x-auth-email': u.email, 'x-auth-key': u.key, 'content-type': 'application/json' },
        body: JSON.stringify({ name: `pair-${i}.pg-pairs.example`, account: { id: u.accountId } }),
      });
      return { status: res.status, pair: ((await res.json()) as { result: { name_servers: string[] } }).result?.name_servers };
    }));
    expect(made.map((m) => m.status)).toEqual(users.map(() => 200));
    expect(new Set(made.map((m) => m.pair!.join())).size).toBe(users.length);
    // Both nodes read the stored pair: a second zone of each account, on the other node, has the same one.
    for (const [i, u] of users.entries()) {
      const res = await fetch(`${(i % 2 ? n1 : n2).apiBase}/zones`, {
        method: 'POST', headers: { 'x-auth-email': u.email, 'x-auth-key': u.key, 'content-type': 'application/json' },
        body: JSON.stringify({ name: `again-${i}.pg-pairs.example`, account: { id: u.accountId } }),
      });
      expect(((await res.json()) as { result: { name_servers: string[] } }).result.name_servers).toEqual(made[i]!.pair);
    }
  });

  it('a parent and a child of two accounts created at once on two nodes: never both active without a delegation', async () => {
    for (let round = 0; round < 8; round++) {
      const parent = `race-parent-${round}.net`;
      const [kid, top] = await Promise.all([
        create(round % 2 ? n1 : n2, n1.email, n1.key, aAccount, `shop.${parent}`),
        create(round % 2 ? n2 : n1, b.email, b.key, b.accountId, parent),
      ]);
      expect([kid.status, top.status]).toEqual([200, 200]);
      // Whichever committed first is active; the other waits (a later parent, or a child below another's zone).
      expect([kid.zone, top.zone].sort()).toEqual(['active', 'pending']);
    }
  });
});

describe('migration 0004 on PostgreSQL', () => {
  it('keeps existing zones active, drops the store-wide unique name and enforces one active zone per name', async () => {
    const fresh = await freshPostgresUrl('owners_migrate');
    const db = new Kysely<any>({ dialect: new PostgresDialect({ pool: new pg.Pool({ connectionString: fresh.url }) }) });
    try {
      await migrateTo(db, '0003_api_tokens');
      const row = { account_id: 'acc1', status: 'active', type: 'full', name_servers: '[]', serial: 1, dns_settings: '{}', zone_settings: '{}', created_on: '2025-01-01T00:00:00.0Z', modified_on: '2025-01-01T00:00:00.0Z' };
      await db.insertInto('zones').values({ ...row, id: 'z1', name: 'kept.example' }).execute();
      await migrateToLatest(db);
      expect(await db.selectFrom('zones').select(['name', 'status', 'activated_on', 'hold_after', 'hold_include_subdomains']).execute())
        .toEqual([{ name: 'kept.example', status: 'active', activated_on: '2025-01-01T00:00:00.0Z', hold_after: null, hold_include_subdomains: 0 }]);
      await db.insertInto('zones').values({ ...row, id: 'z2', account_id: 'acc2', name: 'kept.example', status: 'pending' }).execute();
      await expect(db.insertInto('zones').values({ ...row, id: 'z3', account_id: 'acc3', name: 'kept.example' }).execute()).rejects.toMatchObject({ code: '23505' });
      await expect(db.insertInto('zones').values({ ...row, id: 'z4', account_id: 'acc2', name: 'kept.example', status: 'pending' }).execute()).rejects.toMatchObject({ code: '23505' });
    } finally {
      await db.destroy();
      await fresh.drop();
    }
  });
});
