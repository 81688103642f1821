/**
 * The PostgreSQL MetadataStore against the machine's PostgreSQL (a fresh database for this file): the shared
 * contract suite, with `shared` a second store (its own pool) on the same database, then races between two
 * stores that stand for two Stratus nodes.
 */
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PostgresMetadataStore } from '../../src/store/adapters/postgres-metadata.js';
import type { ObjectRecord } from '../../src/store/ports.js';
import { metadataStoreContract } from '../store/contract/metadata-store.js';
import { freshPostgresUrl } from '../helpers/postgres.js';

let url: string;
let drop: () => Promise<void>;

beforeAll(async () => {
  ({ url, drop } = await freshPostgresUrl('store_meta'));
});

afterAll(async () => {
  await drop?.();
});

async function sql<T extends pg.QueryResultRow>(db: string, text: string, values: unknown[] = []): Promise<T[]> {
  const c = new pg.Client({ connectionString: db });
  await c.connect();
  try {
    return (await c.query<T>(text, values)).rows;
  } finally {
    await c.end();
  }
}

/** Empties the store's tables (every test of the contract expects an empty store). */
async function reset(): Promise<void> {
  const [row] = await sql<{ tables: string | null }>(
    url,
    `SELECT string_agg(quote_ident(tablename), ', ') AS tables FROM pg_tables WHERE schemaname = current_schema() AND tablename LIKE 'store\\_%'`,
  );
  if (row?.tables) await sql(url, `TRUNCATE ${row.tables}`);
}

metadataStoreContract('postgres', {
  async open() {
    await reset();
    return { store: await PostgresMetadataStore.connect(url), shared: () => PostgresMetadataStore.connect(url) };
  },
});

const rec = (key: string, over: Partial<ObjectRecord> = {}): ObjectRecord => ({
  key,
  version: `v-${Math.random()}`,
  size: 1,
  etag: 'e',
  uploaded: 1000,
  checksums: {},
  httpMetadata: {},
  customMetadata: {},
  storageClass: 'Standard',
  ssec: null,
  body: { kind: 'inline', data: new Uint8Array([1]) },
  ...over,
});

describe('PostgresMetadataStore across two nodes', () => {
  let a: PostgresMetadataStore;
  let b: PostgresMetadataStore;
  beforeAll(async () => {
    await reset();
    a = await PostgresMetadataStore.connect(url);
    b = await PostgresMetadataStore.connect(url);
  });
  afterAll(async () => {
    await a?.close();
    await b?.close();
  });

  it('races of create-if-absent puts on one key: exactly one wins each round, the losers see the winner', async () => {
    for (let round = 0; round < 50; round++) {
      const key = `race/${round}`;
      const attempts = Array.from({ length: 10 }, (_, i) => rec(key, { version: `r${round}-${i}` }));
      const results = await Promise.all(attempts.map((r, i) => (i % 2 ? b : a).putObject('races', r, (cur) => cur === null)));
      const winners = results.flatMap((r, i) => (r.ok ? [attempts[i]!.version] : []));
      expect(winners).toHaveLength(1);
      for (const r of results) if (!r.ok) expect(r.current?.version).toBe(winners[0]);
      expect((await a.getObject('races', key))?.version).toBe(winners[0]);
    }
  });

  it('compare-and-swap increments from both nodes lose no update', async () => {
    const increment = async (s: PostgresMetadataStore): Promise<void> => {
      for (;;) {
        const cur = await s.getObject('cas', 'counter');
        const n = Number(cur?.customMetadata.n ?? 0);
        const next = rec('counter', { customMetadata: { n: String(n + 1) } });
        if ((await s.putObject('cas', next, (c) => (c?.version ?? null) === (cur?.version ?? null))).ok) return;
      }
    };
    await Promise.all(Array.from({ length: 40 }, (_, i) => increment(i % 2 ? b : a)));
    expect((await b.getObject('cas', 'counter'))?.customMetadata.n).toBe('40');
  });

  it('a bucket deleted while another node writes to it stays registered whenever it holds data', async () => {
    for (let round = 0; round < 100; round++) {
      const bucket = `del-${round}`;
      await a.createBucket(bucket, 1);
      const [deleted] = await Promise.all([a.deleteBucket(bucket), b.putObject(bucket, rec('k', { uploaded: 2 }), () => true)]);
      const registered = await a.getBucket(bucket);
      expect(registered).not.toBeNull();
      // Either the delete came first (the put registered the bucket again, dated by itself) or the put did.
      if (deleted === 'deleted') expect(registered!.created).toBe(2);
      else expect([deleted, registered!.created]).toEqual(['not-empty', 1]);
      expect(await a.getObject(bucket, 'k')).not.toBeNull();
    }
  });

  it('stores keys as bytes: U+0000 and byte order beyond the BMP', async () => {
    for (const k of ['a\u0000b', 'a', 'a\u0001', '\uFFFD', '𐀀']) await a.putObject('bytes', rec(k), () => true);
    expect((await b.scanObjects('bytes', { prefix: 'a', limit: 10 })).map((r) => r.key)).toEqual(['a', 'a\u0000b', 'a\u0001']);
    expect((await b.scanObjects('bytes', { prefix: '', after: 'a\u0001', limit: 10 })).map((r) => r.key)).toEqual(['\uFFFD', '𐀀']);
    expect(await b.getObject('bytes', 'a\u0000b')).toMatchObject({ key: 'a\u0000b' });
  });
});

describe('PostgresMetadataStore schema', () => {
  it('adds the bucket CORS column to a database made before it (schema step 2), keeping its buckets', async () => {
    const db = await freshPostgresUrl('store_step2');
    try {
      const first = await PostgresMetadataStore.connect(db.url);
      await first.createBucket('old', 1);
      await first.close();
      await sql(db.url, 'ALTER TABLE store_buckets DROP COLUMN cors');
      const stores = await Promise.all(Array.from({ length: 3 }, () => PostgresMetadataStore.connect(db.url)));
      try {
        expect(await stores[0]!.getBucket('old')).toEqual({ name: 'old', created: 1 });
        expect(await stores[1]!.setBucketCors('old', '[]x')).toBe(true);
        expect(await stores[2]!.getBucketCors('old')).toBe('[]x');
      } finally {
        await Promise.all(stores.map((s) => s.close()));
      }
    } finally {
      await db.drop();
    }
  });

  it('is created once when several nodes start at the same time; writes do not depend on the default isolation', async () => {
    const db = await freshPostgresUrl('store_schema');
    try {
      const stores = await Promise.all(Array.from({ length: 6 }, () => PostgresMetadataStore.connect(db.url)));
      await stores[0]!.createBucket('x', 1);
      expect(await stores[5]!.getBucket('x')).toEqual({ name: 'x', created: 1 });
      await Promise.all(stores.map((s) => s.close()));
      const again = await PostgresMetadataStore.connect(db.url);
      expect((await again.listBuckets()).map((x) => x.name)).toEqual(['x']);
      await again.close();
      const tables = await sql<{ tablename: string }>(db.url, `SELECT tablename FROM pg_tables WHERE tablename LIKE 'store\\_%' ORDER BY tablename`);
      expect(tables.map((t) => t.tablename)).toEqual(['store_buckets', 'store_garbage', 'store_leases', 'store_meta', 'store_objects', 'store_parts', 'store_uploads']);

      // Writes choose READ COMMITTED themselves: a stricter database default changes nothing.
      await sql(db.url, `DO $$ BEGIN EXECUTE format('ALTER DATABASE %I SET default_transaction_isolation = %L', current_database(), 'serializable'); END $$`);
      const [x, y] = await Promise.all([PostgresMetadataStore.connect(db.url), PostgresMetadataStore.connect(db.url)]);
      try {
        for (let round = 0; round < 10; round++) {
          const results = await Promise.all(Array.from({ length: 6 }, (_, i) => (i % 2 ? y : x).putObject('x', rec(`k${round}`), (cur) => cur === null)));
          expect(results.filter((r) => r.ok)).toHaveLength(1);
        }
      } finally {
        await x.close();
        await y.close();
      }
    } finally {
      await db.drop();
    }
  });
});
