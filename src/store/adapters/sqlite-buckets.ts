/**
 * The bucket settings, leases and lifecycle helpers of the SQLite metadata store (schema step 3 in
 * sqlite-schema.ts): plain statements on the shared `buckets.sqlite` handle, kept apart from the object and
 * upload paths of sqlite-metadata.ts.
 */
import type { Database } from 'better-sqlite3';
import type { BucketRecord, NewBucketSettings } from '../ports.js';
import { prefixUpperBoundText } from '../keys.js';

/** A registry row without its unset settings (buckets registered by a first write have none). */
function record(row: BucketRecord): BucketRecord {
  const { storageClass, location, ...rest } = row;
  return { ...rest, ...(storageClass ? { storageClass } : {}), ...(location ? { location } : {}) };
}

const BUCKET_COLUMNS = 'name, created, storage_class AS storageClass, location';

/** Bucket registry statements beyond the original name and creation date. */
export class SqliteBuckets {
  constructor(private readonly db: Database) {}

  /** Registers a bucket with its settings; false when the name is taken. */
  create(name: string, created: number, s: NewBucketSettings = {}): boolean {
    return this.db
      .prepare('INSERT OR IGNORE INTO store_buckets (name, created, storage_class, location, lifecycle) VALUES (?, ?, ?, ?, ?)')
      .run(name, created, s.storageClass ?? null, s.location ?? null, s.lifecycle ?? null).changes > 0;
  }

  get(name: string): BucketRecord | null {
    const row = this.db.prepare(`SELECT ${BUCKET_COLUMNS} FROM store_buckets WHERE name = ?`).get(name) as BucketRecord | undefined;
    return row ? record(row) : null;
  }

  /** Buckets whose name starts with `prefix`, by name (TEXT compares as UTF-8 bytes). */
  list(prefix = ''): BucketRecord[] {
    if (prefix === '') return (this.db.prepare(`SELECT ${BUCKET_COLUMNS} FROM store_buckets ORDER BY name`).all() as BucketRecord[]).map(record);
    const upper = prefixUpperBoundText(prefix);
    return ((upper === null
      ? this.db.prepare(`SELECT ${BUCKET_COLUMNS} FROM store_buckets WHERE name >= ? ORDER BY name`).all(prefix)
      : this.db.prepare(`SELECT ${BUCKET_COLUMNS} FROM store_buckets WHERE name >= ? AND name < ? ORDER BY name`).all(prefix, upper)) as BucketRecord[]).map(record);
  }

  setStorageClass(name: string, storageClass: string): boolean {
    return this.db.prepare('UPDATE store_buckets SET storage_class = ? WHERE name = ?').run(storageClass, name).changes > 0;
  }

  getLifecycle(name: string): string | null {
    return (this.db.prepare('SELECT lifecycle FROM store_buckets WHERE name = ?').get(name) as { lifecycle: string | null } | undefined)?.lifecycle ?? null;
  }

  setLifecycle(name: string, lifecycle: string | null): boolean {
    return this.db.prepare('UPDATE store_buckets SET lifecycle = ? WHERE name = ?').run(lifecycle, name).changes > 0;
  }

  withLifecycle(): string[] {
    return (this.db.prepare('SELECT name FROM store_buckets WHERE lifecycle IS NOT NULL ORDER BY name').all() as { name: string }[]).map((r) => r.name);
  }

  setObjectStorageClass(bucket: string, key: string, version: string, storageClass: string): boolean {
    return this.db
      .prepare('UPDATE store_objects SET storage_class = ? WHERE bucket = ? AND key = ? AND version = ?')
      .run(storageClass, bucket, Buffer.from(key, 'utf8'), version).changes > 0;
  }

  /** Takes the lease when free, expired or held by `holder` (one IMMEDIATE transaction). */
  takeLease(name: string, holder: string, now: number, ttlMs: number): boolean {
    return this.db.transaction((): boolean => {
      const row = this.db.prepare('SELECT holder, until FROM store_leases WHERE name = ?').get(name) as { holder: string; until: number } | undefined;
      if (row && row.holder !== holder && row.until > now) return false;
      this.db.prepare('INSERT OR REPLACE INTO store_leases (name, holder, until) VALUES (?, ?, ?)').run(name, holder, now + ttlMs);
      return true;
    }).immediate();
  }
}
