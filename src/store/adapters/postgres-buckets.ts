/**
 * The bucket settings, leases and lifecycle helpers of the PostgreSQL metadata store (schema step 3 in
 * postgres-schema.ts), kept apart from the object and upload paths of postgres-metadata.ts.
 */
import type pg from 'pg';
import type { BucketRecord, NewBucketSettings } from '../ports.js';
import { prefixUpperBoundText } from '../keys.js';
import { beginLocked } from './postgres-schema.js';
import { keyBytes } from './metadata-rows.js';
import * as SQL from './postgres-sql.js';

/** A registry row without its unset settings (buckets registered by a first write have none). */
function record(row: BucketRecord): BucketRecord {
  const { storageClass, location, ...rest } = row;
  return { ...rest, ...(storageClass ? { storageClass } : {}), ...(location ? { location } : {}) };
}

const BUCKET_COLUMNS = 'name, created, storage_class AS "storageClass", location';

/** Bucket registry statements beyond the original name and creation date. */
export class PostgresBuckets {
  constructor(private readonly pool: pg.Pool) {}

  private async count(text: string, values: unknown[]): Promise<boolean> {
    return ((await this.pool.query(text, values)).rowCount ?? 0) > 0;
  }

  create(name: string, created: number, s: NewBucketSettings = {}): Promise<boolean> {
    return this.count(SQL.CREATE_BUCKET, [name, created, s.storageClass ?? null, s.location ?? null, s.lifecycle ?? null]);
  }

  async get(name: string): Promise<BucketRecord | null> {
    const row = (await this.pool.query<BucketRecord>(`SELECT ${BUCKET_COLUMNS} FROM store_buckets WHERE name = $1`, [name])).rows[0];
    return row ? record(row) : null;
  }

  /** Buckets whose name starts with `prefix`, by name (`COLLATE "C"`: byte order). */
  async list(prefix = ''): Promise<BucketRecord[]> {
    const upper = prefix === '' ? null : prefixUpperBoundText(prefix);
    const where = prefix === '' ? '' : upper === null ? 'WHERE name >= $1' : 'WHERE name >= $1 AND name < $2';
    const args = prefix === '' ? [] : upper === null ? [prefix] : [prefix, upper];
    return (await this.pool.query<BucketRecord>(`SELECT ${BUCKET_COLUMNS} FROM store_buckets ${where} ORDER BY name`, args)).rows.map(record);
  }

  setStorageClass(name: string, storageClass: string): Promise<boolean> {
    return this.count('UPDATE store_buckets SET storage_class = $2 WHERE name = $1', [name, storageClass]);
  }

  async getLifecycle(name: string): Promise<string | null> {
    return (await this.pool.query<{ lifecycle: string | null }>('SELECT lifecycle FROM store_buckets WHERE name = $1', [name])).rows[0]?.lifecycle ?? null;
  }

  setLifecycle(name: string, lifecycle: string | null): Promise<boolean> {
    return this.count('UPDATE store_buckets SET lifecycle = $2 WHERE name = $1', [name, lifecycle]);
  }

  async withLifecycle(): Promise<string[]> {
    return (await this.pool.query<{ name: string }>('SELECT name FROM store_buckets WHERE lifecycle IS NOT NULL ORDER BY name')).rows.map((r) => r.name);
  }

  setObjectStorageClass(bucket: string, key: string, version: string, storageClass: string): Promise<boolean> {
    return this.count('UPDATE store_objects SET storage_class = $4 WHERE bucket = $1 AND key = $2 AND version = $3', [bucket, keyBytes(key), version, storageClass]);
  }

  /** Deletes the object iff its version matches, under the key's advisory lock (as every object write). */
  async deleteObjectVersion(bucket: string, key: string, version: string): Promise<boolean> {
    const c = await this.pool.connect();
    let broken: Error | undefined;
    try {
      await c.query(beginLocked({ bucket, keys: [key] }));
      const { rows } = await c.query<{ n: number }>(SQL.DELETE_OBJECT_VERSION, [bucket, keyBytes(key), version, Date.now()]);
      await c.query('COMMIT');
      return rows[0]!.n > 0;
    } catch (err) {
      await c.query('ROLLBACK').catch((e: Error) => (broken = e));
      throw err;
    } finally {
      c.release(broken);
    }
  }

  takeLease(name: string, holder: string, now: number, ttlMs: number): Promise<boolean> {
    return this.count(SQL.TAKE_LEASE, [name, holder, now, now + ttlMs]);
  }
}
