/**
 * MetadataStore on SQLite (better-sqlite3, synchronous calls wrapped in promises). Conditional writes run in
 * `BEGIN IMMEDIATE` transactions, which take the database's write lock before reading the current row, so a
 * check and its write are atomic across every process and thread that opened the same file.
 */
import path from 'node:path';
import fs from 'node:fs';
import SQLite from 'better-sqlite3';
import type { Database, Statement } from 'better-sqlite3';
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
import { adoptLegacyBuckets, prepareDatabase, UploadState } from './sqlite-schema.js';
import { SqliteBuckets } from './sqlite-buckets.js';
import { GroupCommit } from './sqlite-group-commit.js';
import { listUploadRows } from './sqlite-uploads.js';
import { dropGarbageRows, referencedBlobRows, takeGarbageRows } from './sqlite-garbage.js';
import { lastKeyRow, scanObjectRows } from './sqlite-object-scan.js';
import { OBJECT_COLUMNS, objectValues, partChecksumsValue, toPart, toRecord, toUpload, type ObjectRow, type PartRow, type UploadRow } from './metadata-rows.js';
import { dataPath, BUCKETS_DATABASE } from '../../shared/data-dir.js';

const INSERT_OBJECT = `INSERT OR REPLACE INTO store_objects (${OBJECT_COLUMNS.join(', ')}) VALUES (${OBJECT_COLUMNS.map(() => '?').join(',')})`;

/** The embedded MetadataStore: `<dataDir>/buckets.sqlite`. */
export class SqliteMetadataStore implements MetadataStore {
  private readonly db: Database;
  private readonly stmts = new Map<string, Statement>();
  private readonly buckets: SqliteBuckets;
  private readonly swaps: GroupCommit<[string, ObjectRecord, (current: ObjectRecord | null) => boolean], SwapResult>;

  constructor(file: string) {
    fs.mkdirSync(path.dirname(file), { recursive: true });
    this.db = new SQLite(file);
    prepareDatabase(this.db);
    this.buckets = new SqliteBuckets(this.db);
    this.swaps = new GroupCommit(this.db, (bucket, record, check) => this.swapOne(bucket, record, check));
  }

  /** Opens the store file inside a data folder. */
  static inDataDir(dataDir: string): SqliteMetadataStore {
    return new SqliteMetadataStore(dataPath(dataDir, BUCKETS_DATABASE));
  }

  private q(sql: string): Statement {
    let s = this.stmts.get(sql);
    if (!s) {
      s = this.db.prepare(sql);
      this.stmts.set(sql, s);
    }
    return s;
  }

  private readObject(bucket: string, key: string): ObjectRecord | null {
    const row = this.q('SELECT * FROM store_objects WHERE bucket = ? AND key = ?').get(bucket, Buffer.from(key, 'utf8')) as ObjectRow | undefined;
    return row ? toRecord(row) : null;
  }

  /** Moves the storage of a replaced or deleted object to the garbage list. */
  private discardBody(bucket: string, record: ObjectRecord, now: number): void {
    void bucket;
    if (record.body.kind === 'blob') this.addGarbage(record.body.blobId, now);
    if (record.body.kind === 'parts') {
      const parts = this.q('SELECT blob_id FROM store_parts WHERE upload_id = ?').all(record.body.uploadId) as { blob_id: string }[];
      for (const p of parts) this.addGarbage(p.blob_id, now);
      this.q('DELETE FROM store_parts WHERE upload_id = ?').run(record.body.uploadId);
    }
  }

  /** Garbage times are wall-clock ms (operational, unlike object times which follow the injected clock). */
  private addGarbage(blobId: string, _now?: number): void {
    this.q('INSERT OR IGNORE INTO store_garbage (blob_id, since) VALUES (?, ?)').run(blobId, Date.now());
  }

  /** Registers the bucket if it is not yet (every write of data calls this in its transaction). */
  private registerBucket(bucket: string, created: number): boolean {
    return this.q('INSERT OR IGNORE INTO store_buckets (name, created) VALUES (?, ?)').run(bucket, created).changes > 0;
  }

  private writeObject(bucket: string, r: ObjectRecord): void {
    this.q(INSERT_OBJECT).run(...objectValues(bucket, r));
  }

  async getObject(bucket: string, key: string): Promise<ObjectRecord | null> {
    const rec = this.readObject(bucket, key);
    if (!rec || rec.body.kind !== 'parts') return rec;
    // Re-read row and parts in one read transaction (one WAL snapshot).
    return this.db
      .transaction((): ObjectRecord | null => {
        const again = this.readObject(bucket, key);
        if (again && again.body.kind === 'parts') again.body.parts = this.readParts(again.body.uploadId);
        return again;
      })
      .deferred();
  }

  private readParts(uploadId: string): PartRecord[] {
    return (this.q('SELECT * FROM store_parts WHERE upload_id = ? ORDER BY part_number').all(uploadId) as PartRow[]).map(toPart);
  }

  /**
   * The conditional swap (the hot path of every put), group-committed: puts in flight together share one
   * transaction and one commit, each checked against what the puts before it wrote.
   */
  private swapOne(bucket: string, record: ObjectRecord, check: (current: ObjectRecord | null) => boolean): SwapResult {
    const current = this.readObject(bucket, record.key);
    if (!check(current)) return { ok: false, current };
    if (current) this.discardBody(bucket, current, record.uploaded);
    this.writeObject(bucket, record);
    this.registerBucket(bucket, record.uploaded);
    return { ok: true, replaced: current };
  }

  putObject(bucket: string, record: ObjectRecord, check: (current: ObjectRecord | null) => boolean): Promise<SwapResult> {
    return this.swaps.run(bucket, record, check);
  }

  async deleteObjects(bucket: string, keys: string[], check?: DeleteCheck): Promise<Array<{ key: string; current: ObjectRecord | null }>> {
    const now = Date.now();
    const refused: Array<{ key: string; current: ObjectRecord | null }> = [];
    this.db
      .transaction(() => {
        for (const key of keys) {
          const current = this.readObject(bucket, key);
          if (check && !check(key, current)) {
            refused.push({ key, current });
            continue;
          }
          if (!current) continue;
          this.discardBody(bucket, current, now);
          this.q('DELETE FROM store_objects WHERE bucket = ? AND key = ?').run(bucket, Buffer.from(key, 'utf8'));
        }
      })
      .immediate();
    return refused;
  }

  async scanObjects(bucket: string, opts: ScanOptions): Promise<ObjectRecord[]> {
    return scanObjectRows((sql) => this.q(sql), bucket, opts);
  }

  async lastKeyWithPrefix(bucket: string, prefix: string): Promise<string | null> {
    return lastKeyRow((sql) => this.q(sql), bucket, prefix);
  }

  async createUpload(bucket: string, u: UploadRecord): Promise<void> {
    this.db
      .transaction(() => {
        this.q(
          `INSERT INTO store_uploads (upload_id, bucket, key, created, state, http_metadata, custom_metadata, storage_class, ssec_key_md5,
             checksum_algorithm, checksum_type)
           VALUES (?,?,?,?,?,?,?,?,?,?,?)`,
        ).run(
          u.uploadId, bucket, u.key, u.created, UploadState[u.state], JSON.stringify(u.httpMetadata), JSON.stringify(u.customMetadata), u.storageClass, u.ssecKeyMd5,
          u.checksumAlgorithm ?? null, u.checksumType ?? null,
        );
        this.registerBucket(bucket, u.created);
      })
      .immediate();
  }

  private readUpload(bucket: string, uploadId: string): UploadRecord | null {
    const row = this.q('SELECT * FROM store_uploads WHERE bucket = ? AND upload_id = ?').get(bucket, uploadId) as UploadRow | undefined;
    return row ? toUpload(row) : null;
  }

  /** Aborts the upload in the current transaction when it is active but older than the limit. */
  private expireIfDue(bucket: string, upload: UploadRecord, now: number, maxAgeMs: number): UploadRecord {
    if (upload.state !== 'active' || upload.created > now - maxAgeMs) return upload;
    this.abortActive(bucket, upload.uploadId, now);
    return { ...upload, state: 'aborted' };
  }

  private abortActive(bucket: string, uploadId: string, now: number): void {
    void bucket;
    const parts = this.q('SELECT blob_id FROM store_parts WHERE upload_id = ?').all(uploadId) as { blob_id: string }[];
    for (const p of parts) this.addGarbage(p.blob_id, now);
    this.q('DELETE FROM store_parts WHERE upload_id = ?').run(uploadId);
    this.q('UPDATE store_uploads SET state = ? WHERE upload_id = ?').run(UploadState.aborted, uploadId);
  }

  async getUpload(bucket: string, uploadId: string): Promise<UploadRecord | null> {
    return this.readUpload(bucket, uploadId);
  }

  async putPart(bucket: string, uploadId: string, key: string, part: PartRecord, now: number, maxAgeMs: number): Promise<'ok' | 'no-upload'> {
    return this.db
      .transaction((): 'ok' | 'no-upload' => {
        const found = this.readUpload(bucket, uploadId);
        const upload = found && found.key === key ? this.expireIfDue(bucket, found, now, maxAgeMs) : null;
        if (!upload || upload.state !== 'active') return 'no-upload';
        const old = this.q('SELECT blob_id FROM store_parts WHERE upload_id = ? AND part_number = ?').get(uploadId, part.partNumber) as
          | { blob_id: string }
          | undefined;
        if (old) this.addGarbage(old.blob_id, now);
        this.q('INSERT OR REPLACE INTO store_parts (upload_id, part_number, size, etag, blob_id, iv, checksums) VALUES (?,?,?,?,?,?,?)').run(
          uploadId,
          part.partNumber,
          part.size,
          part.etag,
          part.blobId,
          part.iv,
          partChecksumsValue(part),
        );
        return 'ok';
      })
      .immediate();
  }

  async listParts(bucket: string, uploadId: string): Promise<PartRecord[]> {
    void bucket;
    return this.readParts(uploadId);
  }

  async completeUpload(bucket: string, uploadId: string, key: string, now: number, maxAgeMs: number, build: CompletionBuilder): Promise<ObjectRecord> {
    // Expire first in its own transaction, so the abort persists even though `build` then throws.
    this.db
      .transaction(() => {
        const found = this.readUpload(bucket, uploadId);
        if (found && found.key === key) this.expireIfDue(bucket, found, now, maxAgeMs);
      })
      .immediate();
    return this.db
      .transaction((): ObjectRecord => {
        const found = this.readUpload(bucket, uploadId);
        const upload = found && found.key === key ? found : null;
        const parts = upload && upload.state === 'active' ? this.readParts(uploadId) : [];
        const current = this.readObject(bucket, key);
        const { record, used } = build(upload, parts, current);
        const keep = new Set(used);
        for (const p of parts) {
          if (keep.has(p.partNumber)) continue;
          this.addGarbage(p.blobId, now);
          this.q('DELETE FROM store_parts WHERE upload_id = ? AND part_number = ?').run(uploadId, p.partNumber);
        }
        if (current) this.discardBody(bucket, current, now);
        this.writeObject(bucket, record);
        this.registerBucket(bucket, record.uploaded);
        this.q('UPDATE store_uploads SET state = ? WHERE upload_id = ?').run(UploadState.completed, uploadId);
        return record;
      })
      .immediate();
  }

  async abortUpload(bucket: string, uploadId: string, key: string): Promise<UploadRecord | null> {
    return this.db
      .transaction((): UploadRecord | null => {
        const upload = this.readUpload(bucket, uploadId);
        if (!upload || upload.key !== key) return null;
        if (upload.state === 'active') this.abortActive(bucket, uploadId, Date.now());
        return upload;
      })
      .immediate();
  }

  async expireUploads(createdBefore: number): Promise<number> {
    return this.db
      .transaction((): number => {
        const rows = this.q('SELECT upload_id, bucket FROM store_uploads WHERE state = 0 AND created < ?').all(createdBefore) as {
          upload_id: string;
          bucket: string;
        }[];
        for (const r of rows) this.abortActive(r.bucket, r.upload_id, Date.now());
        return rows.length;
      })
      .immediate();
  }

  async createBucket(name: string, created: number, settings?: NewBucketSettings): Promise<boolean> {
    return this.buckets.create(name, created, settings);
  }

  async getBucket(name: string): Promise<BucketRecord | null> {
    return this.buckets.get(name);
  }

  async setBucketStorageClass(name: string, storageClass: string): Promise<boolean> {
    return this.buckets.setStorageClass(name, storageClass);
  }

  async getBucketLifecycle(name: string): Promise<string | null> {
    return this.buckets.getLifecycle(name);
  }

  async setBucketLifecycle(name: string, lifecycle: string | null): Promise<boolean> {
    return this.buckets.setLifecycle(name, lifecycle);
  }

  async bucketsWithLifecycle(): Promise<string[]> {
    return this.buckets.withLifecycle();
  }

  async adoptBuckets(accountId: string): Promise<number> {
    return adoptLegacyBuckets(this.db, accountId);
  }

  async setObjectStorageClass(bucket: string, key: string, version: string, storageClass: string): Promise<boolean> {
    return this.buckets.setObjectStorageClass(bucket, key, version, storageClass);
  }

  async takeLease(name: string, holder: string, now: number, ttlMs: number): Promise<boolean> {
    return this.buckets.takeLease(name, holder, now, ttlMs);
  }

  async deleteObjectVersion(bucket: string, key: string, version: string): Promise<boolean> {
    return this.db
      .transaction((): boolean => {
        const current = this.readObject(bucket, key);
        if (!current || current.version !== version) return false;
        this.discardBody(bucket, current, Date.now());
        this.q('DELETE FROM store_objects WHERE bucket = ? AND key = ?').run(bucket, Buffer.from(key, 'utf8'));
        return true;
      })
      .immediate();
  }

  async getBucketCors(name: string): Promise<string | null> {
    return (this.q('SELECT cors FROM store_buckets WHERE name = ?').get(name) as { cors: string | null } | undefined)?.cors ?? null;
  }

  async setBucketCors(name: string, cors: string | null): Promise<boolean> {
    return this.q('UPDATE store_buckets SET cors = ? WHERE name = ?').run(cors, name).changes > 0;
  }

  async listBuckets(prefix?: string): Promise<BucketRecord[]> {
    return this.buckets.list(prefix);
  }

  async deleteBucket(name: string): Promise<DeleteBucketResult> {
    return this.db
      .transaction((): DeleteBucketResult => {
        if (this.q('SELECT 1 FROM store_objects WHERE bucket = ? LIMIT 1').get(name)) return 'not-empty';
        if (this.q('SELECT 1 FROM store_uploads WHERE bucket = ? AND state = 0 LIMIT 1').get(name)) return 'not-empty';
        if (this.q('DELETE FROM store_buckets WHERE name = ?').run(name).changes === 0) return 'missing';
        // Finished uploads keep no parts once their objects are gone; any left are garbage all the same.
        this.q(
          `INSERT OR IGNORE INTO store_garbage (blob_id, since)
           SELECT blob_id, ? FROM store_parts WHERE upload_id IN (SELECT upload_id FROM store_uploads WHERE bucket = ?)`,
        ).run(Date.now(), name);
        this.q('DELETE FROM store_parts WHERE upload_id IN (SELECT upload_id FROM store_uploads WHERE bucket = ?)').run(name);
        this.q('DELETE FROM store_uploads WHERE bucket = ?').run(name);
        return 'deleted';
      })
      .immediate();
  }

  async listUploads(bucket: string, opts: UploadScanOptions): Promise<UploadRecord[]> {
    return listUploadRows(this.db, bucket, opts);
  }

  async takeGarbage(before: number, limit: number): Promise<string[]> {
    return takeGarbageRows((sql) => this.q(sql), before, limit);
  }

  async dropGarbage(blobIds: string[]): Promise<void> {
    dropGarbageRows(this.db, (sql) => this.q(sql), blobIds);
  }

  async referencedBlobs(blobIds: string[]): Promise<Set<string>> {
    return referencedBlobRows((sql) => this.q(sql), blobIds);
  }

  async close(): Promise<void> {
    this.db.close();
  }
}
