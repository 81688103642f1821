/**
 * Unique keys under real concurrency: two Stratus nodes on one PostgreSQL (and extra connections for what
 * only the CLI and the start do) racing to create the same objects. Exactly one wins each race; every loser
 * gets its resource's error (1061 for a zone, S3's bucket error, 81058 for an identical record) and nothing
 * answers 500. Users and the bootstrap token, created at once by two starting nodes, end up stored once.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { CreateBucketCommand, ListBucketsCommand } from '@aws-sdk/client-s3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { accountId, api, createZone } from '../helpers/api.js';
import { freshPostgresUrl } from '../helpers/postgres.js';
import { testS3Client } from '../helpers/s3-sdk.js';
import { openDatabase, type OpenDatabase } from '../../src/db/database.js';
import { upsertUser } from '../../src/accounts/users.js';
import { TokensService, fullAccessPolicies } from '../../src/accounts/tokens.js';
import { systemClock } from '../../src/shared/clock.js';

let a: TestServer;
let b: TestServer;
let url: string;
let drop: () => Promise<void>;
let blobsDir: string;

beforeAll(async () => {
  ({ url, drop } = await freshPostgresUrl('races'));
  blobsDir = fs.mkdtempSync(path.join(os.tmpdir(), 'stratus-races-'));
  const flags = { 'database-url': url, 'blobs-dir': blobsDir };
  // Both nodes start at once on the empty database: both bootstrap the same admin user.
  [a, b] = await Promise.all([startTestServer({ flags }), startTestServer({ flags })]);
});

afterAll(async () => {
  await b?.stop();
  await a?.stop();
  await drop?.();
  fs.rmSync(blobsDir, { recursive: true, force: true });
});

describe('unique keys under concurrency on PostgreSQL', () => {
  it('two nodes starting at once store the admin once', async () => {
    const database = await openDatabase({ dataDir: blobsDir, url });
    try {
      const users = await database.db.selectFrom('users').select('email').execute();
      expect(users.map((u) => u.email)).toEqual([a.email]);
    } finally {
      await database.close();
    }
    expect((await api(a, 'GET', '/accounts')).body.result).toHaveLength(1);
  });

  it('zones: of two nodes creating one name at once, one wins and the other gets 1061', async () => {
    const account = await accountId(a);
    const rounds = 40;
    const outcomes = await Promise.all(Array.from({ length: rounds }, async (_, i) => {
      const name = `race-${i}.example`;
      const body = { name, account: { id: account }, type: 'full' };
      return { name, results: await Promise.all([api(a, 'POST', '/zones', body), api(b, 'POST', '/zones', body), api(a, 'POST', '/zones', body), api(b, 'POST', '/zones', body)]) };
    }));
    for (const { name, results } of outcomes) {
      expect(results.map((r) => r.status).sort(), name).toEqual([200, 400, 400, 400]);
      for (const r of results.filter((x) => x.status === 400)) {
        expect(r.body.errors, name).toEqual([{ code: 1061, message: `${name} already exists` }]);
      }
    }
    const listed = await api(b, 'GET', '/zones?per_page=50');
    expect(listed.body.result.filter((z: { name: string }) => z.name.startsWith('race-')).length).toBe(rounds);
  });

  it('records: an identical record created on both nodes at once is stored once', async () => {
    const zoneId = await createZone(a, 'race-records.example');
    for (let i = 0; i < 10; i++) {
      const body = { type: 'A', name: `r${i}`, content: '192.0.2.44', ttl: 120 };
      const results = await Promise.all([api(a, 'POST', `/zones/${zoneId}/dns_records`, body), api(b, 'POST', `/zones/${zoneId}/dns_records`, body)]);
      expect(results.map((r) => r.status).sort()).toEqual([200, 400]);
      expect(results.find((r) => r.status === 400)!.body.errors[0]!.code).toBe(81058);
    }
    const listed = await api(a, 'GET', `/zones/${zoneId}/dns_records?type=A&per_page=100`);
    expect(listed.body.result).toHaveLength(10);
  });

  it('buckets: of two nodes creating one bucket at once, one wins and the other gets S3\'s answer', async () => {
    const [s3a, s3b] = [testS3Client(a.running.s3Url!), testS3Client(b.running.s3Url!)];
    for (let i = 0; i < 10; i++) {
      const Bucket = `race-bucket-${i}`;
      const results = await Promise.allSettled([s3a.send(new CreateBucketCommand({ Bucket })), s3b.send(new CreateBucketCommand({ Bucket }))]);
      expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
      const lost = results.find((r): r is PromiseRejectedResult => r.status === 'rejected')!.reason as { name: string; $metadata: { httpStatusCode: number } };
      expect(lost.name).toBe('BucketAlreadyOwnedByYou');
      expect(lost.$metadata.httpStatusCode).toBe(409);
    }
    const names = (await s3a.send(new ListBucketsCommand({}))).Buckets!.map((x) => x.Name).filter((n) => n!.startsWith('race-bucket-'));
    expect(names).toHaveLength(10);
  });

  it('users and the bootstrap token: racing writers on separate connections end with one row each', async () => {
    const connections: OpenDatabase[] = await Promise.all(Array.from({ length: 4 }, () => openDatabase({ dataDir: blobsDir, url })));
    try {
      for (let i = 0; i < 10; i++) {
        const email = `racer-${i}@example.com`;
        const made = await Promise.all(connections.map((c) => upsertUser(c.db, { email, key: `k${i}abcdef` })));
        expect(new Set(made.map((m) => m.userId)).size).toBe(1);
        expect(new Set(made.map((m) => m.accountId)).size).toBe(1);
        const value = `race-token-value-${i}-0123456789abcdefghij`;
        const rows = await Promise.all(connections.map((c) => new TokensService(c.db, systemClock).ensure(made[0]!.userId, 'boot', value, fullAccessPolicies(made[0]!.userId))));
        expect(new Set(rows.map((r) => r.id)).size).toBe(1);
      }
      const users = await connections[0]!.db.selectFrom('users').select('email').where('email', 'like', 'racer-%').execute();
      expect(users).toHaveLength(10);
    } finally {
      await Promise.all(connections.map((c) => c.close()));
    }
  });

  it('a second account racing for names it owns gets its own answers, never a 500', async () => {
    const other = await upsertUserOnServer();
    const results = await Promise.all(Array.from({ length: 10 }, (_, i) => [
      api(a, 'POST', '/zones', { name: `second-race-${i}.example`, account: { id: other.accountId } }, { 'x-auth-email': other.email, 'x-auth-key': other.key }),
      api(b, 'POST', '/zones', { name: `second-race-${i}.example`, account: { id: other.accountId } }, { 'x-auth-email': other.email, 'x-auth-key': other.key }),
    ]).flat());
    expect(results.filter((r) => r.status >= 500)).toEqual([]);
    expect(results.filter((r) => r.status === 200)).toHaveLength(10);
    // The first account does not see them.
    const seen = await api(a, 'GET', '/zones?per_page=50');
    expect(seen.body.result.filter((z: { name: string }) => z.name.startsWith('second-race-'))).toEqual([]);
  });
});

/** A second user with its own account in the shared database. */
async function upsertUserOnServer(): Promise<{ email: string; key: string; accountId: string }> {
  const database = await openDatabase({ dataDir: blobsDir, url });
  try {
    const made = await upsertUser(database.db, { email: 'second-racer@example.com' });
    return { email: made.email, key: made.key, accountId: made.accountId };
  } finally {
    await database.close();
  }
}
