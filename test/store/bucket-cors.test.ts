/**
 * Bucket CORS rules through the store's public API (kept in order, only the rule's fields, removed by null or
 * an empty list), and the schema step that adds them to a `buckets.sqlite` made before they existed.
 */
import { describe, expect, it } from 'vitest';
import fs from 'node:fs';
import path from 'node:path';
import SQLite from 'better-sqlite3';
import type { BucketCorsRule } from '../../src/store/types.js';
import { openTemp } from './helpers.js';

const RULES: BucketCorsRule[] = [
  { id: 'web', allowedOrigins: ['https://*.example.com'], allowedMethods: ['GET', 'HEAD'], allowedHeaders: ['*'], exposeHeaders: ['ETag'], maxAgeSeconds: 600 },
  { allowedOrigins: ['*'], allowedMethods: ['PUT'], allowedHeaders: [], exposeHeaders: [] },
];

describe('bucket CORS in the store', () => {
  it('stores rules with a registered bucket, replaces and removes them', async () => {
    const { store, dir } = await openTemp();
    try {
      expect(await store.putBucketCors('absent', RULES)).toBe('missing');
      await store.createBucket('site');
      expect(await store.getBucketCors('site')).toBeNull();
      expect(await store.putBucketCors('site', [{ ...RULES[0]!, extra: 'dropped' } as BucketCorsRule, RULES[1]!])).toBe('ok');
      expect(await store.getBucketCors('site')).toEqual(RULES);
      expect(await store.putBucketCors('site', [])).toBe('ok');
      expect(await store.getBucketCors('site')).toBeNull();
      await store.putBucketCors('site', RULES);
      expect(await store.putBucketCors('site', null)).toBe('ok');
      expect(await store.getBucketCors('site')).toBeNull();
    } finally {
      await store.close();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  it('adds the column to a database made before it, keeping its buckets', async () => {
    const { store, dir } = await openTemp();
    try {
      await store.createBucket('old-bucket');
      await store.close();
      const file = path.join(dir, 'buckets.sqlite');
      const db = new SQLite(file);
      db.exec('ALTER TABLE store_buckets DROP COLUMN cors');
      db.close();
      const { store: again } = await openTemp({ dataDir: dir });
      try {
        expect((await again.listBuckets()).map((b) => b.name)).toEqual(['old-bucket']);
        expect(await again.getBucketCors('old-bucket')).toBeNull();
        expect(await again.putBucketCors('old-bucket', RULES)).toBe('ok');
        expect(await again.getBucketCors('old-bucket')).toEqual(RULES);
      } finally {
        await again.close();
      }
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
