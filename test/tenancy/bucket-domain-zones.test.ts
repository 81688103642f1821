/**
 * Bucket custom domains belong to an active zone of the bucket's account, and go with it (issue 34, part 2):
 * B's pending `alpha.test` cannot attach `files.alpha.test`; a hostname of A's zone is answered to B exactly like a
 * zone that does not exist; a row left by an old attach of B's (before this rule) does not block A's own attach;
 * deleting A's zone removes the domain (and the edge stops serving it); B's key and token are refused on A's routes.
 * Migration 0012 removes rows whose zone is gone, on SQLite and PostgreSQL.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import SQLite from 'better-sqlite3';
import { Kysely, PostgresDialect, SqliteDialect } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { migrateTo, migrateToLatest } from '../../src/db/migrations.js';
import { openDatabase } from '../../src/db/database.js';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { accountId, api, createZone } from '../helpers/api.js';
import { addUser } from '../helpers/users.js';
import { freshPostgresUrl } from '../helpers/postgres.js';
import { edgeRequest } from '../edge/request.js';
import { eventually } from '../edge/harness.js';

const ZONE = 'alpha.test';
const HOST = `files.${ZONE}`;
const R2_WRITE = 'bf7481a1826f439697cb59a20b22293e';
/** Workers Routes Write (a zone permission group; B's token has it on every zone, i.e. B's zones). */
const WORKERS_ROUTES_WRITE = '28f4b596e7d643029c524985477ae49a';

let server: TestServer;
let edge: string;
let a: string;
let aZone: string;
let b: Awaited<ReturnType<typeof addUser>>;
let bZone: string;
const asB = () => ({ 'x-auth-email': b.email, 'x-auth-key': b.key });
const custom = (account: string, bucket: string) => `/accounts/${account}/r2/buckets/${bucket}/domains/custom`;

beforeAll(async () => {
  server = await startTestServer({ flags: { edge: '127.0.0.1:0' } });
  edge = server.running.edgeUrl!;
  a = await accountId(server);
  aZone = await createZone(server, ZONE);
  b = await addUser(server, 'squatter@example.com');
  const made = await api(server, 'POST', '/zones', { name: ZONE, account: { id: b.accountId } }, asB());
  expect([made.status, made.body.result?.status]).toEqual([200, 'pending']);
  bZone = made.body.result.id;
  expect((await api(server, 'POST', `/accounts/${a}/r2/buckets`, { name: 'a-files' })).status).toBe(200);
  expect((await api(server, 'POST', `/accounts/${b.accountId}/r2/buckets`, { name: 'b-files' }, asB())).status).toBe(200);
  await api(server, 'PUT', `/accounts/${a}/r2/buckets/a-files/objects/hello.txt`, 'from A', { 'content-type': 'text/plain' });
}, 60_000);

afterAll(async () => {
  await server?.stop();
});

describe('a custom domain needs an active zone of the bucket account', () => {
  it("refuses B's attach through its pending zone, and tells B nothing of A's zone", async () => {
    const pending = await api(server, 'POST', custom(b.accountId, 'b-files'), { domain: HOST, zoneId: bZone }, asB());
    expect([pending.status, pending.body.errors[0]?.code]).toEqual([400, 10040]);
    expect(pending.body.errors[0]?.message).toBe('The zone alpha.test is not active: a custom domain must be a hostname of an active zone of this account');
    // A's zone id is answered exactly like an id no zone has
    const theirs = await api(server, 'POST', custom(b.accountId, 'b-files'), { domain: HOST, zoneId: aZone }, asB());
    const none = await api(server, 'POST', custom(b.accountId, 'b-files'), { domain: HOST, zoneId: 'f'.repeat(32) }, asB());
    expect([theirs.status, theirs.body.errors[0]?.code]).toEqual([none.status, none.body.errors[0]?.code]);
    expect(theirs.body.errors[0]?.message.replace(aZone, 'ID')).toBe(none.body.errors[0]?.message.replace('f'.repeat(32), 'ID'));
    expect(JSON.stringify(theirs.body)).not.toContain(`"${ZONE}`);
    // nothing was written: no record in B's zone, no domain
    expect((await api(server, 'GET', custom(b.accountId, 'b-files'), undefined, asB())).body.result).toEqual({ domains: [] });
    expect((await api(server, 'GET', `/zones/${bZone}/dns_records?name=${HOST}`, undefined, asB())).body.result).toEqual([]);
  });

  it("A attaches the hostname although an old row of B's (made before this rule) names it; the edge serves A's bucket", async () => {
    // the state issue 34 found: B's row in B's pending zone, written before the rule existed
    const database = await openDatabase({ dataDir: server.dataDir });
    try {
      await database.db.insertInto('r2_domains').values({ hostname: HOST, account_id: b.accountId, bucket: 'b-files', bucket_created: new Date().toISOString(), kind: 'custom', zone_id: bZone, enabled: 1, min_tls: null, created_on: new Date().toISOString() }).execute();
    } finally {
      await database.close();
    }
    // a row of a zone that is not active (or not the hostname's active zone) is never served
    expect(await server.running.edgeCatalog!.resolve(HOST, '/hello.txt')).not.toMatchObject({ kind: 'bucket' });
    const added = await api(server, 'POST', custom(a, 'a-files'), { domain: HOST, zoneId: aZone });
    expect([added.status, added.body.result]).toEqual([200, { domain: HOST, enabled: true, minTLS: '1.0' }]);
    expect((await api(server, 'GET', custom(b.accountId, 'b-files'), undefined, asB())).body.result).toEqual({ domains: [] });
    await eventually(async () => {
      const res = await edgeRequest(edge, HOST, { path: '/hello.txt' });
      expect([res.status, res.body]).toEqual([200, 'from A']);
    });
  });

  it('names the most specific active zone holding the hostname: a zone below takes its names', async () => {
    const deep = await createZone(server, `deep.${ZONE}`);
    expect((await api(server, 'GET', `/zones/${deep}`)).body.result.status).toBe('active');
    const viaParent = await api(server, 'POST', custom(a, 'a-files'), { domain: `x.deep.${ZONE}`, zoneId: aZone });
    expect([viaParent.status, viaParent.body.errors[0]?.code, viaParent.body.errors[0]?.message]).toEqual([400, 10040, `x.deep.${ZONE} is not a hostname of the zone ${ZONE}`]);
    const own = await api(server, 'POST', custom(a, 'a-files'), { domain: `x.deep.${ZONE}`, zoneId: deep });
    expect(own.status).toBe(200);
    expect((await api(server, 'DELETE', `/zones/${deep}`)).status).toBe(200);
    expect((await api(server, 'GET', custom(a, 'a-files'))).body.result.domains.map((d: { domain: string }) => d.domain)).toEqual([HOST]);
  });

  it("B's key and B's token are refused on A's domain routes", async () => {
    const token = (await b.sdk().user.tokens.create({
      name: 'b r2', policies: [{ effect: 'allow', permission_groups: [{ id: R2_WRITE }], resources: { [`com.cloudflare.api.account.${b.accountId}`]: '*' } }],
    } as never) as { value: string }).value;
    for (const [auth, refused] of [[asB(), [404, 7003]], [{ authorization: `Bearer ${token}` }, [403, 9109]]] as const) {
      const as: Record<string, string | undefined> = { 'x-auth-email': undefined, 'x-auth-key': undefined, ...auth };
      for (const [method, p, body] of [
        ['GET', custom(a, 'a-files'), undefined],
        ['GET', `${custom(a, 'a-files')}/${HOST}`, undefined],
        ['POST', custom(a, 'a-files'), { domain: `more.${ZONE}`, zoneId: aZone }],
        ['PUT', `${custom(a, 'a-files')}/${HOST}`, { enabled: false }],
        ['DELETE', `${custom(a, 'a-files')}/${HOST}`, undefined],
      ] as const) {
        const res = await api(server, method, p, body, as);
        expect([res.status, res.body.errors[0]?.code], `${method} ${p}`).toEqual(refused);
        expect(res.body.result).toBeNull();
      }
    }
    expect((await api(server, 'GET', `${custom(a, 'a-files')}/${HOST}`)).body.result).toMatchObject({ domain: HOST, enabled: true, status: { ownership: 'active' } });
  });

  it("Workers routes follow zone state: B's route on its pending zone runs nothing; B's key and token are refused on A's zone routes", async () => {
    const form = new FormData();
    form.set('metadata', JSON.stringify({ main_module: 'index.js' }));
    form.set('index.js', new File(['export default { fetch() { return new Response("squatted"); } };'], 'index.js', { type: 'application/javascript+module' }));
    const up = await fetch(`${server.apiBase}/accounts/${b.accountId}/workers/scripts/squat`, { method: 'PUT', headers: asB(), body: form });
    expect(up.status).toBe(200);
    const route = await api(server, 'POST', `/zones/${bZone}/workers/routes`, { pattern: `${ZONE}/*`, script: 'squat' }, asB());
    expect(route.status).toBe(200);
    const target = await server.running.edgeCatalog!.resolve(HOST, '/hello.txt');
    expect(target).toMatchObject({ kind: 'bucket', accountId: a });
    expect(await server.running.edgeCatalog!.resolve(ZONE, '/')).not.toMatchObject({ kind: 'script' });
    expect((await edgeRequest(edge, ZONE, { path: '/' })).body).not.toBe('squatted');

    const token = (await b.sdk().user.tokens.create({
      name: 'b routes', policies: [{ effect: 'allow', permission_groups: [{ id: WORKERS_ROUTES_WRITE }], resources: { 'com.cloudflare.api.account.zone.*': '*' } }],
    } as never) as { value: string }).value;
    for (const auth of [asB(), { authorization: `Bearer ${token}` }]) {
      const as: Record<string, string | undefined> = { 'x-auth-email': undefined, 'x-auth-key': undefined, ...auth };
      for (const [method, body] of [['GET', undefined], ['POST', { pattern: `${ZONE}/*`, script: 'squat' }]] as const) {
        const res = await api(server, method, `/zones/${aZone}/workers/routes`, body, as);
        // A's zone is one neither B's key nor B's token can see: 404 + 7003, as for a zone id nobody has
        expect([res.status, res.body.errors[0]?.code], method).toEqual([404, 7003]);
        expect(res.body.result).toBeNull();
      }
    }
    expect((await api(server, 'GET', `/zones/${aZone}/workers/routes`)).body.result).toEqual([]);
  });

  it('deleting the zone removes its custom domains; the edge stops serving them', async () => {
    expect((await api(server, 'DELETE', `/zones/${aZone}`)).status).toBe(200);
    expect((await api(server, 'GET', custom(a, 'a-files'))).body.result).toEqual({ domains: [] });
    await eventually(async () => expect((await edgeRequest(edge, HOST, { path: '/hello.txt' })).body).not.toBe('from A'));
    const database = await openDatabase({ dataDir: server.dataDir });
    try {
      expect(await database.db.selectFrom('r2_domains').select('hostname').where('hostname', '=', HOST).execute()).toEqual([]);
    } finally {
      await database.close();
    }
  });
});

/** Rows a store could hold before migration 0012: a live one, one of a deleted zone, one in another account's zone. */
async function checkMigration(db: Kysely<any>): Promise<void> {
  await migrateTo(db, '0010_worker_version_limits');
  const zone = { status: 'active', type: 'full', name_servers: '[]', serial: 1, dns_settings: '{}', zone_settings: '{}', created_on: '2025-01-01T00:00:00.0Z', modified_on: '2025-01-01T00:00:00.0Z' };
  await db.insertInto('zones').values({ ...zone, id: 'z1', account_id: 'acc1', name: 'kept.example' }).execute();
  const domain = { bucket: 'b', bucket_created: '2025-01-01T00:00:00.0Z', kind: 'custom', enabled: 1, min_tls: null, created_on: '2025-01-01T00:00:00.0Z' };
  await db.insertInto('r2_domains').values([
    { ...domain, hostname: 'files.kept.example', account_id: 'acc1', zone_id: 'z1' },
    { ...domain, hostname: 'files.gone.example', account_id: 'acc1', zone_id: 'z-gone' },
    { ...domain, hostname: 'steal.kept.example', account_id: 'acc2', zone_id: 'z1' },
    { ...domain, hostname: 'pub-1.r2.localhost', account_id: 'acc1', zone_id: null, kind: 'managed' },
  ]).execute();
  await db.insertInto('workers_routes').values([
    { id: 'r1', zone_id: 'z1', pattern: 'kept.example/*', script: 's', created_on: '2025-01-01T00:00:00.0Z' },
    { id: 'r2', zone_id: 'z-gone', pattern: 'gone.example/*', script: 's', created_on: '2025-01-01T00:00:00.0Z' },
  ]).execute();
  await migrateToLatest(db);
  expect((await db.selectFrom('r2_domains').select('hostname').orderBy('hostname').execute()).map((r) => r.hostname)).toEqual(['files.kept.example', 'pub-1.r2.localhost']);
  expect((await db.selectFrom('workers_routes').select('id').execute()).map((r) => r.id)).toEqual(['r1']);
}

describe('migration 0012', () => {
  it('removes custom domains and routes whose zone is gone or another account\'s (SQLite)', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'stratus-m12-'));
    const db = new Kysely<any>({ dialect: new SqliteDialect({ database: new SQLite(path.join(dir, 'db.sqlite')) }) });
    try {
      await checkMigration(db);
    } finally {
      await db.destroy();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('does the same on PostgreSQL', async () => {
    const fresh = await freshPostgresUrl('edge_rows_migrate');
    const db = new Kysely<any>({ dialect: new PostgresDialect({ pool: new pg.Pool({ connectionString: fresh.url }) }) });
    try {
      await checkMigration(db);
    } finally {
      await db.destroy();
      await fresh.drop();
    }
  });
});
