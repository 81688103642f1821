/**
 * The scale-out configuration for real: Stratus nodes on the machine's PostgreSQL (127.0.0.1:5432, trust
 * auth) instead of the embedded SQLite database. Each run creates a database of its own and drops it after.
 * Two nodes share it: writes through either API are served by both, the CNAME rule holds across nodes under
 * concurrent writers, and data survives a restart.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import Cloudflare from 'cloudflare';
import { CreateBucketCommand, GetObjectCommand, ListBucketsCommand, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, TEST_S3_ACCESS_KEY_ID, TEST_S3_SECRET, type TestServer } from '../helpers/server.js';
import { createZone } from '../helpers/api.js';
import { AUTH_CACHE_MS } from '../../src/api/auth.js';
import { freshPostgresUrl, withPostgresAdmin as admin } from '../helpers/postgres.js';
import { dig } from '../dns-server/dig.js';

let url: string;
let drop: () => Promise<void>;

async function eventually<T>(probe: () => Promise<T>, ok: (v: T) => boolean, ms = 10_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await probe();
    if (ok(v) || Date.now() > end) return v;
    await new Promise((r) => setTimeout(r, 200));
  }
}

let a: TestServer;
let b: TestServer;
/** The object bodies folder both nodes share (bucket metadata is in PostgreSQL). */
let blobsDir: string;
let flags: Record<string, string>;

beforeAll(async () => {
  ({ url, drop } = await freshPostgresUrl('nodes'));
  blobsDir = fs.mkdtempSync(path.join(os.tmpdir(), 'stratus-shared-blobs-'));
  flags = { 'database-url': url, 'blobs-dir': blobsDir };
  a = await startTestServer({ flags });
  b = await startTestServer({ flags });
});

afterAll(async () => {
  await b?.stop();
  await a?.stop();
  await drop?.();
  fs.rmSync(blobsDir, { recursive: true, force: true });
});

function s3(node: TestServer): S3Client {
  return new S3Client({
    endpoint: node.running.s3Url!, region: 'auto', forcePathStyle: true, maxAttempts: 1,
    credentials: { accessKeyId: TEST_S3_ACCESS_KEY_ID, secretAccessKey: TEST_S3_SECRET },
  });
}

describe('Stratus on PostgreSQL', () => {
  it('keeps zones and records in PostgreSQL, served by both nodes', async () => {
    const zoneId = await createZone(a, 'pg-nodes.example');
    await a.sdk().dns.records.create({ zone_id: zoneId, type: 'A', name: 'www', content: '192.0.2.7', ttl: 120 } as never);
    const rows = await admin(async () => {
      const c = new pg.Client({ connectionString: url });
      await c.connect();
      try { return (await c.query('SELECT name, type, content FROM dns_records WHERE zone_id = $1', [zoneId])).rows; } finally { await c.end(); }
    });
    expect(rows).toEqual([{ name: 'www.pg-nodes.example', type: 'A', content: '192.0.2.7' }]);

    const listedOnB = await b.sdk().dns.records.list({ zone_id: zoneId, name: { exact: 'www.pg-nodes.example' } } as never);
    expect(listedOnB.result.map((r) => r.content)).toEqual(['192.0.2.7']);

    const want = ['www.pg-nodes.example. 120 IN A 192.0.2.7'];
    expect((await dig(a.dnsPort!, 'www.pg-nodes.example', 'A')).answer).toEqual(want);
    const onB = await eventually(() => dig(b.dnsPort!, 'www.pg-nodes.example', 'A'), (r) => JSON.stringify(r.answer) === JSON.stringify(want));
    expect(onB.answer).toEqual(want);
  });

  it('serves an API token made on one node from the other; a token deleted on one node stops on the other', async () => {
    const zoneId = await createZone(a, 'pg-token.example');
    const made = await a.sdk().user.tokens.create({ name: 'pg', policies: [{ effect: 'allow', permission_groups: [{ id: '4755a26eedb94da69e1066d98aa820be' }], resources: { [`com.cloudflare.api.account.zone.${zoneId}`]: '*' } }] });
    const onB = new Cloudflare({ apiToken: made.value!, baseURL: b.apiBase, maxRetries: 0 });
    const rec = await onB.dns.records.create({ zone_id: zoneId, type: 'TXT', name: 'tok', content: '"from b"', ttl: 120 });
    expect(rec.name).toBe('tok.pg-token.example');
    await a.sdk().user.tokens.delete(made.id!);
    // b remembers a successful authentication for AUTH_CACHE_MS at most.
    await new Promise((r) => setTimeout(r, AUTH_CACHE_MS + 100));
    await expect(onB.user.tokens.verify()).rejects.toBeInstanceOf(Cloudflare.AuthenticationError);
  });

  it('lets only one of two nodes win conflicting concurrent writes', async () => {
    const zoneId = await createZone(a, 'pg-race.example');
    for (let round = 0; round < 5; round++) {
      const name = `r${round}`;
      const results = await Promise.allSettled([
        a.sdk().dns.records.create({ zone_id: zoneId, type: 'CNAME', name, content: 'target.example.net' } as never),
        b.sdk().dns.records.create({ zone_id: zoneId, type: 'A', name, content: '192.0.2.9' } as never),
      ]);
      expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
      const listed = await a.sdk().dns.records.list({ zone_id: zoneId, name: { exact: `${name}.pg-race.example` } } as never);
      expect(listed.result).toHaveLength(1);
    }
  });

  it('finds everything again after both nodes restart', async () => {
    const zoneId = await createZone(a, 'pg-restart.example');
    await b.sdk().dns.records.create({ zone_id: zoneId, type: 'TXT', name: '@', content: 'hello' } as never);
    await a.stop();
    await b.stop();
    a = await startTestServer({ flags });
    b = await startTestServer({ flags });
    const listed = await a.sdk().dns.records.list({ zone_id: zoneId, type: 'TXT' } as never);
    expect(listed.result.map((r) => r.content)).toEqual(['"hello"']);
    expect((await dig(b.dnsPort!, 'pg-restart.example', 'TXT')).answer).toEqual(['pg-restart.example. 300 IN TXT "hello"']);
  });

  it('keeps bucket metadata in PostgreSQL: what one node stores over S3, the other lists and serves', async () => {
    const [onA, onB] = [s3(a), s3(b)];
    try {
      await onA.send(new CreateBucketCommand({ Bucket: 'shared' }));
      expect((await onB.send(new ListBucketsCommand({}))).Buckets?.map((x) => x.Name)).toContain('shared');
      const big = randomBytes(300_000); // above the inline limit: a blob in the shared folder
      await onA.send(new PutObjectCommand({ Bucket: 'shared', Key: 'big.bin', Body: big }));
      await onB.send(new PutObjectCommand({ Bucket: 'shared', Key: 'small.txt', Body: 'from b' }));
      const gotBig = await onB.send(new GetObjectCommand({ Bucket: 'shared', Key: 'big.bin' }));
      expect(Buffer.from(await gotBig.Body!.transformToByteArray()).equals(big)).toBe(true);
      const gotSmall = await onA.send(new GetObjectCommand({ Bucket: 'shared', Key: 'small.txt' }));
      expect(await gotSmall.Body!.transformToString()).toBe('from b');
      const rows = await admin(async () => {
        const c = new pg.Client({ connectionString: url });
        await c.connect();
        // the store names an account's bucket `<account id>/<name>` (docs/store.md, "Accounts")
        try { return (await c.query("SELECT convert_from(key, 'UTF8') AS key FROM store_objects WHERE bucket = $1 ORDER BY key", [`${a.running.adminAccountId}/shared`])).rows; } finally { await c.end(); }
      });
      expect(rows.map((r) => r.key)).toEqual(['big.bin', 'small.txt']);
    } finally {
      onA.destroy();
      onB.destroy();
    }
  });
});
