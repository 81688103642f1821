/**
 * MetadataStore on PostgreSQL, so several stateless Stratus nodes can share bucket metadata. Same semantics
 * as the SQLite adapter; the schema and the locking rules are in postgres-schema.ts.
 *
 * Atomicity (READ COMMITTED, the default): every conditional write is one transaction that first takes its
 * locks (advisory locks on the keys it writes and, when it may register a bucket, a shared lock on the bucket;
 * row locks on the upload it changes), then reads the rows in a later statement, so its snapshot already
 * includes every commit of the writers it waited for. The `check`/`build` callbacks run between that read
 * and the write, and the replaced bodies go to `store_garbage` in the write's own statement. `deleteBucket`
 * takes the bucket's lock exclusively, so no put, completion or new upload of the bucket is in flight while
 * it decides the bucket is empty, and any that follows registers the bucket again.
 */
import pg from 'pg';
import type {
  BucketRecord,
  CompletionBuilder,
  DeleteCheck,
  DeleteBucketResult,
  MetadataStore,
  NewBucketSettings,
  ObjectRecord,
  PartRecord,
  ScanOptions,
  SwapResult,
  UploadRecord,
  UploadScanOptions,
} from '../ports.js';
import { prefixUpperBound } from '../keys.js';
import { adoptLegacyBuckets, BEGIN, beginLocked, preparePostgres, UploadState } from './postgres-schema.js';
import { PostgresBuckets } from './postgres-buckets.js';
import { keyBytes, partChecksumsValue, objectValues, toPart, toRecord, toUpload, uploadValues, type ObjectRow, type PartRow, type UploadRow } from './metadata-rows.js';
import * as SQL from './postgres-sql.js';
import { createPool } from '../../db/pg-pool.js';
import { asFault, reportingFaults, NO_FAULT_REPORTER, type FaultReporter } from '../../shared/faults.js';

/** Anything that runs a query: the pool or a client checked out of it. */
type Queryable = pg.Pool | pg.PoolClient;

/** Options of {@link PostgresMetadataStore.connect}. */
export interface PostgresMetadataOptions {
  /** Most connections this store opens (default 10). */
  maxConnections?: number;
  /** Told when a connection breaks, idle or in use (the pool opens a new one when next needed). */
  onConnectionLost?: (err: Error) => void;
  /** Told of every fault (database away) and of the next success (the health state). */
  health?: FaultReporter;
  /** A query without an answer this long breaks its connection (ms; default 30 000). */
  queryTimeoutMs?: number;
}

/** `bigint` (OID 20) as a JS number: sizes and epoch ms stay far below 2^53. */
const TYPES: pg.CustomTypesConfig = {
  getTypeParser: ((oid: number, format?: string) =>
    oid === 20 ? (v: string) => Number(v) : pg.types.getTypeParser(oid, format as 'text')) as pg.CustomTypesConfig['getTypeParser'],
};

/** The shared MetadataStore: tables `store_*` in one PostgreSQL database. */
export class PostgresMetadataStore implements MetadataStore {
  /** Prepared-statement names by SQL text (each connection prepares a statement on its first use). */
  private readonly names = new Map<string, string>();

  private readonly buckets: PostgresBuckets;

  private constructor(private readonly pool: pg.Pool, private readonly health: FaultReporter) {
    this.buckets = new PostgresBuckets(pool);
  }

  /** Opens a pool on `url`, creates the schema if missing and returns the store; `close()` ends the pool. */
  static async connect(url: string, opts: PostgresMetadataOptions = {}): Promise<PostgresMetadataStore> {
    const health = opts.health ?? NO_FAULT_REPORTER;
    // A connection that breaks (idle or in use) fails only its own queries; the next query opens a new one.
    const pool = createPool({
      url, max: opts.maxConnections ?? 10, types: TYPES, name: 'buckets', ...(opts.queryTimeoutMs !== undefined ? { queryTimeoutMs: opts.queryTimeoutMs } : {}),
      onConnectionError: (err) => { health.down('database', err); opts.onConnectionLost?.(err); },
    });
    try {
      await preparePostgres(pool);
    } catch (err) {
      await pool.end();
      throw err;
    }
    return new PostgresMetadataStore(pool, health);
  }

  private run<R extends pg.QueryResultRow>(db: Queryable, text: string, values: unknown[]): Promise<pg.QueryResult<R>> {
    let name = this.names.get(text);
    if (!name) {
      name = `stratus_store_${this.names.size}`;
      this.names.set(text, name);
    }
    return this.guard(() => db.query<R>({ name, text, values }));
  }

  /** Runs `fn`; a fault (PostgreSQL away) is reported and thrown as an UnavailableError, a success reported. */
  private guard<T>(fn: () => Promise<T>): Promise<T> {
    return reportingFaults(this.health, 'database', (err) => asFault(err, 'database'), fn);
  }

  private async one<R extends pg.QueryResultRow>(db: Queryable, text: string, values: unknown[]): Promise<R | null> {
    return (await this.run<R>(db, text, values)).rows[0] ?? null;
  }

  /** Runs `fn` in a transaction opened by `begin` (BEGIN plus any locks); rolls back when it throws. */
  private async tx<T>(begin: string, fn: (c: pg.PoolClient) => Promise<T>): Promise<T> {
    const c = await this.guard(() => this.pool.connect());
    let broken: Error | undefined;
    try {
      await this.guard(() => c.query(begin));
      const out = await fn(c);
      await this.guard(() => c.query('COMMIT'));
      return out;
    } catch (err) {
      await c.query('ROLLBACK').catch((e: Error) => (broken = e));
      throw err;
    } finally {
      c.release(broken);
    }
  }

  async getObject(bucket: string, key: string): Promise<ObjectRecord | null> {
    const row = await this.one<ObjectRow>(this.pool, SQL.GET_OBJECT, [bucket, keyBytes(key)]);
    return row ? toRecord(row) : null;
  }

  async putObject(bucket: string, record: ObjectRecord, check: (current: ObjectRecord | null) => boolean): Promise<SwapResult> {
    return this.tx(beginLocked({ bucket, bucketLock: 'shared', keys: [record.key] }), async (c): Promise<SwapResult> => {
      const row = await this.one<ObjectRow>(c, SQL.LOCK_OBJECT, [bucket, keyBytes(record.key)]);
      const current = row ? toRecord(row) : null;
      if (!check(current)) return { ok: false, current };
      await this.run(c, SQL.WRITE_OBJECT, [...objectValues(bucket, record), Date.now()]);
      return { ok: true, replaced: current };
    });
  }

  async deleteObjects(bucket: string, keys: string[], check?: DeleteCheck): Promise<Array<{ key: string; current: ObjectRecord | null }>> {
    if (keys.length === 0) return [];
    return this.tx(beginLocked({ bucket, keys }), async (c) => {
      const refused: Array<{ key: string; current: ObjectRecord | null }> = [];
      let doomed = keys;
      if (check) {
        doomed = [];
        for (const key of keys) {
          const row = await this.one<ObjectRow>(c, SQL.LOCK_OBJECT, [bucket, keyBytes(key)]);
          const current = row ? toRecord(row) : null;
          if (check(key, current)) doomed.push(key);
          else refused.push({ key, current });
        }
      }
      if (doomed.length > 0) await this.run(c, SQL.DELETE_OBJECTS, [bucket, doomed.map(keyBytes), Date.now()]);
      return refused;
    });
  }

  async scanObjects(bucket: string, opts: ScanOptions): Promise<ObjectRecord[]> {
    const args: unknown[] = [bucket];
    const arg = (v: unknown): string => `$${args.push(v)}`;
    const where = ['bucket = $1'];
    const prefix = keyBytes(opts.prefix);
    if (prefix.length > 0) {
      where.push(`key >= ${arg(prefix)}`);
      const upper = prefixUpperBound(prefix);
      if (upper) where.push(`key < ${arg(upper)}`);
    }
    if (opts.after !== undefined) where.push(`key > ${arg(keyBytes(opts.after))}`);
    if (opts.from !== undefined) where.push(`key >= ${arg(keyBytes(opts.from))}`);
    const sql = `SELECT * FROM store_objects WHERE ${where.join(' AND ')} ORDER BY key LIMIT ${arg(opts.limit)}`;
    return (await this.run<ObjectRow>(this.pool, sql, args)).rows.map(toRecord);
  }

  async lastKeyWithPrefix(bucket: string, prefix: string): Promise<string | null> {
    const lower = keyBytes(prefix);
    const upper = prefixUpperBound(lower);
    const row = upper
      ? await this.one<{ key: Buffer }>(this.pool, 'SELECT key FROM store_objects WHERE bucket = $1 AND key >= $2 AND key < $3 ORDER BY key DESC LIMIT 1', [bucket, lower, upper])
      : await this.one<{ key: Buffer }>(this.pool, 'SELECT key FROM store_objects WHERE bucket = $1 AND key >= $2 ORDER BY key DESC LIMIT 1', [bucket, lower]);
    return row ? row.key.toString('utf8') : null;
  }

  async createUpload(bucket: string, u: UploadRecord): Promise<void> {
    await this.tx(beginLocked({ bucket, bucketLock: 'shared' }), (c) => this.run(c, SQL.CREATE_UPLOAD, uploadValues(bucket, u, UploadState[u.state])));
  }

  async getUpload(bucket: string, uploadId: string): Promise<UploadRecord | null> {
    const row = await this.one<UploadRow>(this.pool, SQL.GET_UPLOAD, [bucket, uploadId]);
    return row ? toUpload(row) : null;
  }

  /** Locks and reads an upload of `key`; null when unknown or of another key. */
  private async lockUpload(c: pg.PoolClient, bucket: string, uploadId: string, key: string): Promise<UploadRecord | null> {
    const row = await this.one<UploadRow>(c, SQL.LOCK_UPLOAD, [bucket, uploadId]);
    const upload = row ? toUpload(row) : null;
    return upload && upload.key === key ? upload : null;
  }

  /** Aborts a locked upload that is active but older than the limit; true when it did. */
  private async expireIfDue(c: pg.PoolClient, upload: UploadRecord, now: number, maxAgeMs: number): Promise<boolean> {
    if (upload.state !== 'active' || upload.created > now - maxAgeMs) return false;
    await this.run(c, SQL.ABORT_UPLOADS, [[upload.uploadId], Date.now()]);
    return true;
  }

  async putPart(bucket: string, uploadId: string, key: string, part: PartRecord, now: number, maxAgeMs: number): Promise<'ok' | 'no-upload'> {
    return this.tx(BEGIN, async (c): Promise<'ok' | 'no-upload'> => {
      const upload = await this.lockUpload(c, bucket, uploadId, key);
      if (!upload || upload.state !== 'active' || (await this.expireIfDue(c, upload, now, maxAgeMs))) return 'no-upload';
      await this.run(c, SQL.PUT_PART, [uploadId, part.partNumber, part.size, part.etag, part.blobId, part.iv, Date.now(), partChecksumsValue(part)]);
      return 'ok';
    });
  }

  async listParts(bucket: string, uploadId: string): Promise<PartRecord[]> {
    void bucket;
    return (await this.run<PartRow>(this.pool, SQL.LIST_PARTS, [uploadId])).rows.map(toPart);
  }

  async completeUpload(bucket: string, uploadId: string, key: string, now: number, maxAgeMs: number, build: CompletionBuilder): Promise<ObjectRecord> {
    for (;;) {
      const record = await this.tx(beginLocked({ bucket, bucketLock: 'shared', keys: [key] }), async (c): Promise<ObjectRecord | null> => {
        const upload = await this.lockUpload(c, bucket, uploadId, key);
        // An expired upload is aborted in a transaction of its own, which commits even though `build` then
        // throws; the next round sees it aborted.
        if (upload && (await this.expireIfDue(c, upload, now, maxAgeMs))) return null;
        const parts = upload?.state === 'active' ? (await this.run<PartRow>(c, SQL.LIST_PARTS, [uploadId])).rows.map(toPart) : [];
        const currentRow = upload?.state === 'active' ? await this.one<ObjectRow>(c, SQL.LOCK_OBJECT, [bucket, keyBytes(key)]) : null;
        const { record, used } = build(upload, parts, currentRow ? toRecord(currentRow) : null);
        const keep = new Set(used);
        const unused = parts.filter((p) => !keep.has(p.partNumber)).map((p) => p.partNumber);
        await this.run(c, SQL.COMPLETE_UPLOAD, [...objectValues(bucket, record), Date.now(), uploadId, unused]);
        return record;
      });
      if (record) return record;
    }
  }

  async abortUpload(bucket: string, uploadId: string, key: string): Promise<UploadRecord | null> {
    return this.tx(BEGIN, async (c) => {
      const upload = await this.lockUpload(c, bucket, uploadId, key);
      if (upload?.state === 'active') await this.run(c, SQL.ABORT_UPLOADS, [[uploadId], Date.now()]);
      return upload;
    });
  }

  async expireUploads(createdBefore: number): Promise<number> {
    return this.tx(BEGIN, async (c) => {
      const ids = (await this.run<{ upload_id: string }>(c, SQL.LOCK_EXPIRED, [createdBefore])).rows.map((r) => r.upload_id);
      if (ids.length > 0) await this.run(c, SQL.ABORT_UPLOADS, [ids, Date.now()]);
      return ids.length;
    });
  }

  async createBucket(name: string, created: number, settings?: NewBucketSettings): Promise<boolean> {
    return this.buckets.create(name, created, settings);
  }

  async getBucket(name: string): Promise<BucketRecord | null> {
    return this.buckets.get(name);
  }

  setBucketStorageClass(name: string, storageClass: string): Promise<boolean> {
    return this.buckets.setStorageClass(name, storageClass);
  }

  getBucketLifecycle(name: string): Promise<string | null> {
    return this.buckets.getLifecycle(name);
  }

  setBucketLifecycle(name: string, lifecycle: string | null): Promise<boolean> {
    return this.buckets.setLifecycle(name, lifecycle);
  }

  bucketsWithLifecycle(): Promise<string[]> {
    return this.buckets.withLifecycle();
  }

  adoptBuckets(accountId: string): Promise<number> {
    return adoptLegacyBuckets(this.pool, accountId);
  }

  deleteObjectVersion(bucket: string, key: string, version: string): Promise<boolean> {
    return this.buckets.deleteObjectVersion(bucket, key, version);
  }

  setObjectStorageClass(bucket: string, key: string, version: string, storageClass: string): Promise<boolean> {
    return this.buckets.setObjectStorageClass(bucket, key, version, storageClass);
  }

  takeLease(name: string, holder: string, now: number, ttlMs: number): Promise<boolean> {
    return this.buckets.takeLease(name, holder, now, ttlMs);
  }

  async getBucketCors(name: string): Promise<string | null> {
    return (await this.one<{ cors: string | null }>(this.pool, 'SELECT cors FROM store_buckets WHERE name = $1', [name]))?.cors ?? null;
  }

  async setBucketCors(name: string, cors: string | null): Promise<boolean> {
    return ((await this.run(this.pool, 'UPDATE store_buckets SET cors = $2 WHERE name = $1', [name, cors])).rowCount ?? 0) > 0;
  }

  listBuckets(prefix?: string): Promise<BucketRecord[]> {
    return this.buckets.list(prefix);
  }

  async deleteBucket(name: string): Promise<DeleteBucketResult> {
    return this.tx(beginLocked({ bucket: name, bucketLock: 'exclusive' }), async (c): Promise<DeleteBucketResult> => {
      const r = (await this.one<{ busy: boolean; deleted: boolean }>(c, SQL.DELETE_BUCKET, [name, Date.now()]))!;
      return r.busy ? 'not-empty' : r.deleted ? 'deleted' : 'missing';
    });
  }

  async listUploads(bucket: string, opts: UploadScanOptions): Promise<UploadRecord[]> {
    const args: unknown[] = [bucket];
    const arg = (v: unknown): string => `$${args.push(v)}`;
    const where = ['u.bucket = $1', 'u.state = 0'];
    let marker = '';
    const prefix = keyBytes(opts.prefix);
    if (prefix.length > 0) {
      where.push(`u.key >= ${arg(prefix)}`);
      const upper = prefixUpperBound(prefix);
      if (upper) where.push(`u.key < ${arg(upper)}`);
    }
    if (opts.keyMarker !== undefined) {
      const km = arg(keyBytes(opts.keyMarker));
      where.push(`u.key >= ${km}`);
      if (opts.uploadIdMarker !== undefined) {
        // The marker upload positions the listing whatever its state; unknown (or of another key), it skips the key.
        marker = `LEFT JOIN store_uploads m ON m.upload_id = ${arg(opts.uploadIdMarker)} AND m.bucket = $1 AND m.key = ${km}`;
        where.push(`CASE WHEN m.upload_id IS NULL THEN u.key > ${km} ELSE (u.key, u.created, u.upload_id) > (m.key, m.created, m.upload_id) END`);
      } else {
        where.push(`u.key > ${km}`);
      }
    }
    const sql = `SELECT u.* FROM store_uploads u ${marker} WHERE ${where.join(' AND ')} ORDER BY u.key, u.created, u.upload_id LIMIT ${arg(opts.limit)}`;
    return (await this.run<UploadRow>(this.pool, sql, args)).rows.map(toUpload);
  }

  async takeGarbage(before: number, limit: number): Promise<string[]> {
    return (await this.run<{ blob_id: string }>(this.pool, SQL.TAKE_GARBAGE, [before, limit, Date.now()])).rows.map((r) => r.blob_id);
  }

  async dropGarbage(blobIds: string[]): Promise<void> {
    if (blobIds.length > 0) await this.run(this.pool, 'DELETE FROM store_garbage WHERE blob_id = ANY($1::text[])', [blobIds]);
  }

  async referencedBlobs(blobIds: string[]): Promise<Set<string>> {
    if (blobIds.length === 0) return new Set();
    return new Set((await this.run<{ id: string }>(this.pool, SQL.REFERENCED_BLOBS, [blobIds])).rows.map((r) => r.id));
  }

  async close(): Promise<void> {
    await this.pool.end();
  }
}
