/**
 * Schema of the embedded metadata store: one SQLite file `<dataDir>/buckets.sqlite` shared by every bucket
 * (a `bucket` column) and every process that opens the folder (WAL journal, busy timeout).
 * Keys are stored as BLOBs of their UTF-8 bytes, so `ORDER BY key` is UTF-8 byte order (reference §6.2).
 * Upload keys and bucket names are TEXT: the database is UTF-8 and TEXT compares with memcmp, so their order
 * is UTF-8 byte order too.
 */
import type { Database } from 'better-sqlite3';
import { enableWal } from '../../shared/sqlite-wal.js';

/**
 * Statements creating the tables; idempotent, safe to run from several processes at once. `store_buckets` is
 * the bucket registry (S3's ListBuckets); `store_meta` holds one-time migration markers.
 */
const SCHEMA = `
CREATE TABLE IF NOT EXISTS store_objects (
  bucket TEXT NOT NULL,
  key BLOB NOT NULL,
  version TEXT NOT NULL,
  size INTEGER NOT NULL,
  etag TEXT NOT NULL,
  uploaded INTEGER NOT NULL,
  checksums TEXT NOT NULL,
  http_metadata TEXT NOT NULL,
  custom_metadata TEXT NOT NULL,
  storage_class TEXT NOT NULL,
  ssec TEXT,
  inline_data BLOB,
  blob_id TEXT,
  upload_id TEXT,
  PRIMARY KEY (bucket, key)
);
CREATE INDEX IF NOT EXISTS store_objects_blob ON store_objects(blob_id) WHERE blob_id IS NOT NULL;
CREATE TABLE IF NOT EXISTS store_uploads (
  upload_id TEXT PRIMARY KEY,
  bucket TEXT NOT NULL,
  key TEXT NOT NULL,
  created INTEGER NOT NULL,
  state INTEGER NOT NULL,
  http_metadata TEXT NOT NULL,
  custom_metadata TEXT NOT NULL,
  storage_class TEXT NOT NULL,
  ssec_key_md5 TEXT
);
CREATE INDEX IF NOT EXISTS store_uploads_active ON store_uploads(created) WHERE state = 0;
CREATE INDEX IF NOT EXISTS store_uploads_listing ON store_uploads(bucket, key, created, upload_id) WHERE state = 0;
CREATE TABLE IF NOT EXISTS store_parts (
  upload_id TEXT NOT NULL,
  part_number INTEGER NOT NULL,
  size INTEGER NOT NULL,
  etag TEXT NOT NULL,
  blob_id TEXT NOT NULL,
  iv TEXT,
  PRIMARY KEY (upload_id, part_number)
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS store_parts_blob ON store_parts(blob_id);
CREATE TABLE IF NOT EXISTS store_garbage (
  blob_id TEXT PRIMARY KEY,
  since INTEGER NOT NULL
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS store_buckets (
  name TEXT PRIMARY KEY,
  created INTEGER NOT NULL
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS store_meta (
  name TEXT PRIMARY KEY,
  value TEXT NOT NULL
) WITHOUT ROWID;
`;

/** The `store_meta` entry recording that the bucket registry was filled from the data written before it existed. */
const REGISTRY_FILLED = 'buckets_registry_filled';

/**
 * Registers every bucket that holds objects or active uploads, dated by its oldest one. Runs once per
 * database (the `store_meta` marker), inside the schema transaction, so processes opening an old folder at
 * the same time take turns and only the first one fills.
 */
function fillBucketRegistry(db: Database): void {
  if (db.prepare('SELECT 1 FROM store_meta WHERE name = ?').get(REGISTRY_FILLED)) return;
  db.prepare(
    `INSERT OR IGNORE INTO store_buckets (name, created)
     SELECT bucket, MIN(t) FROM (SELECT bucket, uploaded AS t FROM store_objects UNION ALL SELECT bucket, created FROM store_uploads WHERE state = 0)
     GROUP BY bucket`,
  ).run();
  db.prepare('INSERT INTO store_meta (name, value) VALUES (?, ?)').run(REGISTRY_FILLED, String(Date.now()));
}

/**
 * Schema step 2: `store_buckets.cors`, a bucket's CORS configuration (JSON), for databases created before it.
 * Added here rather than in {@link SCHEMA}, which shipped without it; runs in the schema transaction.
 */
function addBucketCors(db: Database): void {
  const columns = db.prepare('PRAGMA table_info(store_buckets)').all() as { name: string }[];
  if (!columns.some((c) => c.name === 'cors')) db.exec('ALTER TABLE store_buckets ADD COLUMN cors TEXT');
}

/**
 * Schema step 3: buckets belong to accounts. `store_buckets` gains a bucket's default storage class, its
 * location hint and its lifecycle rules (JSON); `store_leases` lets one process at a time run a periodic job
 * (the lifecycle sweep). Bucket names stay the key of every table: an account's bucket is named
 * `<account id>/<name>` inside the store (docs/store.md, "Accounts"); {@link adoptLegacyBuckets} moves the
 * buckets written before this step into the admin's account.
 */
function addBucketSettings(db: Database): void {
  const columns = new Set((db.prepare('PRAGMA table_info(store_buckets)').all() as { name: string }[]).map((c) => c.name));
  for (const column of ['storage_class', 'location', 'lifecycle']) {
    if (!columns.has(column)) db.exec(`ALTER TABLE store_buckets ADD COLUMN ${column} TEXT`);
  }
  db.exec('CREATE TABLE IF NOT EXISTS store_leases (name TEXT PRIMARY KEY, holder TEXT NOT NULL, until INTEGER NOT NULL) WITHOUT ROWID');
}

/**
 * Schema step 4: S3 flexible checksums of multipart uploads. `store_parts.checksums` holds a part's verified
 * checksums (JSON, hex by algorithm); `store_uploads.checksum_algorithm` and `checksum_type` the algorithm and
 * type (`COMPOSITE`, `FULL_OBJECT`) the upload was created with, from which the object's checksum is made.
 */
function addMultipartChecksums(db: Database): void {
  const parts = new Set((db.prepare('PRAGMA table_info(store_parts)').all() as { name: string }[]).map((c) => c.name));
  if (!parts.has('checksums')) db.exec('ALTER TABLE store_parts ADD COLUMN checksums TEXT');
  const uploads = new Set((db.prepare('PRAGMA table_info(store_uploads)').all() as { name: string }[]).map((c) => c.name));
  for (const column of ['checksum_algorithm', 'checksum_type']) {
    if (!uploads.has(column)) db.exec(`ALTER TABLE store_uploads ADD COLUMN ${column} TEXT`);
  }
}

/** The `store_meta` entry recording that the buckets written before accounts were moved into an account. */
const BUCKETS_ADOPTED = 'buckets_adopted_by';

/** GLOB pattern of an account-scoped bucket name: 32 lowercase hex digits, a slash, anything. */
const ACCOUNT_SCOPED_GLOB = `${'[0-9a-f]'.repeat(32)}/*`;

/**
 * Moves every bucket whose name is not account-scoped into `accountId` (registry row, objects, uploads), in
 * one IMMEDIATE transaction, once per database (marker in `store_meta`): processes starting at once take turns
 * and only the first one moves anything. A crash before the commit leaves the old names, whole.
 */
export function adoptLegacyBuckets(db: Database, accountId: string): number {
  if (!/^[0-9a-f]{32}$/.test(accountId)) throw new Error(`not an account id: ${accountId}`);
  return db.transaction((): number => {
    if (db.prepare('SELECT 1 FROM store_meta WHERE name = ?').get(BUCKETS_ADOPTED)) return 0;
    const prefix = `${accountId}/`;
    const moved = db.prepare('UPDATE OR IGNORE store_buckets SET name = ? || name WHERE name NOT GLOB ?').run(prefix, ACCOUNT_SCOPED_GLOB).changes;
    db.prepare('UPDATE store_objects SET bucket = ? || bucket WHERE bucket NOT GLOB ?').run(prefix, ACCOUNT_SCOPED_GLOB);
    db.prepare('UPDATE store_uploads SET bucket = ? || bucket WHERE bucket NOT GLOB ?').run(prefix, ACCOUNT_SCOPED_GLOB);
    db.prepare('INSERT INTO store_meta (name, value) VALUES (?, ?)').run(BUCKETS_ADOPTED, accountId);
    return moved;
  }).immediate();
}

/** Sets the pragmas and creates the tables, then runs the later schema steps. */
export function prepareDatabase(db: Database): void {
  db.pragma('busy_timeout = 30000');
  enableWal(db);
  // In WAL mode NORMAL survives a killed process (only power loss can drop the last commits).
  db.pragma('synchronous = NORMAL');
  db.transaction(() => {
    db.exec(SCHEMA);
    fillBucketRegistry(db);
    addBucketCors(db);
    addBucketSettings(db);
    addMultipartChecksums(db);
  }).immediate();
}

/** Upload states as stored. */
export const UploadState = { active: 0, completed: 1, aborted: 2 } as const;
