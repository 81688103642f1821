/**
 * Schema and locks of the PostgreSQL metadata store, shared by every Stratus node pointed at one database.
 *
 * Byte order: object and upload keys are `bytea` holding their UTF-8 bytes, so `ORDER BY key` and range
 * scans compare bytes (as the SQLite adapter's BLOB keys do) and any key, even one holding U+0000, fits.
 * Bucket names and ids are `text COLLATE "C"`: in a UTF-8 database the C collation compares bytes, which is
 * code-point order. Numbers (sizes, epoch ms) are `bigint`, read back as JS numbers (all stay below 2^53).
 *
 * Locks: every write of an object row holds a transaction-scoped advisory lock on its (bucket, key) from
 * before it reads the row until it commits, so writers of a key that does not exist yet are serialised too;
 * writers that register a bucket hold a shared advisory lock on the bucket, which `deleteBucket` takes
 * exclusively. Advisory locks use the two-`int4` key space (which never overlaps the single-`bigint` one),
 * with a class of their own per kind, so they cannot collide with locks taken by other code on the database.
 */
import pg from 'pg';

/** Advisory lock classes (first `int4` of the two-key form). */
const LockClass = { schema: 0x53540001, bucket: 0x53540002, key: 0x53540003 } as const;

/** Upload states as stored. */
export const UploadState = { active: 0, completed: 1, aborted: 2 } as const;

/** The last object the schema script creates: when it exists, the schema is in place. */
const LAST_OBJECT = 'store_garbage_since';

/** Statements creating the tables; idempotent. Run under the schema lock so nodes starting at once take turns. */
const SCHEMA = `
CREATE TABLE IF NOT EXISTS store_objects (
  bucket text COLLATE "C" NOT NULL,
  key bytea NOT NULL,
  version text NOT NULL,
  size bigint NOT NULL,
  etag text NOT NULL,
  uploaded bigint NOT NULL,
  checksums text NOT NULL,
  http_metadata text NOT NULL,
  custom_metadata text NOT NULL,
  storage_class text NOT NULL,
  ssec text,
  inline_data bytea,
  blob_id text,
  upload_id text,
  PRIMARY KEY (bucket, key)
);
CREATE INDEX IF NOT EXISTS store_objects_blob ON store_objects (blob_id) WHERE blob_id IS NOT NULL;
CREATE TABLE IF NOT EXISTS store_uploads (
  upload_id text COLLATE "C" PRIMARY KEY,
  bucket text COLLATE "C" NOT NULL,
  key bytea NOT NULL,
  created bigint NOT NULL,
  state smallint NOT NULL,
  http_metadata text NOT NULL,
  custom_metadata text NOT NULL,
  storage_class text NOT NULL,
  ssec_key_md5 text
);
CREATE INDEX IF NOT EXISTS store_uploads_bucket ON store_uploads (bucket);
CREATE INDEX IF NOT EXISTS store_uploads_active ON store_uploads (created) WHERE state = 0;
CREATE INDEX IF NOT EXISTS store_uploads_listing ON store_uploads (bucket, key, created, upload_id) WHERE state = 0;
CREATE TABLE IF NOT EXISTS store_parts (
  upload_id text COLLATE "C" NOT NULL,
  part_number integer NOT NULL,
  size bigint NOT NULL,
  etag text NOT NULL,
  blob_id text NOT NULL,
  iv text,
  PRIMARY KEY (upload_id, part_number)
);
CREATE INDEX IF NOT EXISTS store_parts_blob ON store_parts (blob_id);
CREATE TABLE IF NOT EXISTS store_buckets (
  name text COLLATE "C" PRIMARY KEY,
  created bigint NOT NULL
);
CREATE TABLE IF NOT EXISTS store_garbage (
  blob_id text PRIMARY KEY,
  since bigint NOT NULL
);
CREATE INDEX IF NOT EXISTS ${LAST_OBJECT} ON store_garbage (since);
`;

/**
 * Later schema steps, in order, each idempotent; `done` is a boolean SQL expression true once the step ran.
 * Shipped steps are never edited: a change is a new step.
 */
const STEPS: { done: string; sql: string }[] = [
  // 2: a bucket's CORS configuration (JSON), kept with the bucket.
  {
    done: `EXISTS (SELECT 1 FROM information_schema.columns WHERE table_schema = current_schema() AND table_name = 'store_buckets' AND column_name = 'cors')`,
    sql: 'ALTER TABLE store_buckets ADD COLUMN IF NOT EXISTS cors text;',
  },
  // 3: buckets belong to accounts (their store name is `<account id>/<name>`; adoptLegacyBuckets moves the
  // older ones): a bucket's default storage class, location hint and lifecycle rules; one-time markers;
  // leases that let one node at a time run a periodic job.
  {
    done: `to_regclass('store_leases') IS NOT NULL`,
    sql: `ALTER TABLE store_buckets ADD COLUMN IF NOT EXISTS storage_class text, ADD COLUMN IF NOT EXISTS location text,
      ADD COLUMN IF NOT EXISTS lifecycle text;
      CREATE TABLE IF NOT EXISTS store_meta (name text PRIMARY KEY, value text NOT NULL);
      CREATE TABLE IF NOT EXISTS store_leases (name text COLLATE "C" PRIMARY KEY, holder text NOT NULL, until bigint NOT NULL);`,
  },
  // 4: S3 flexible checksums of multipart uploads: a part's verified checksums (JSON, hex by algorithm), and the
  // algorithm and type (COMPOSITE, FULL_OBJECT) an upload was created with.
  {
    done: `EXISTS (SELECT 1 FROM information_schema.columns WHERE table_schema = current_schema() AND table_name = 'store_uploads' AND column_name = 'checksum_type')`,
    sql: `ALTER TABLE store_parts ADD COLUMN IF NOT EXISTS checksums text;
      ALTER TABLE store_uploads ADD COLUMN IF NOT EXISTS checksum_algorithm text, ADD COLUMN IF NOT EXISTS checksum_type text;`,
  },
];

/** The `store_meta` entry recording that the buckets written before accounts were moved into an account. */
const BUCKETS_ADOPTED = 'buckets_adopted_by';

/**
 * Moves every bucket whose name is not account-scoped (`<32 hex>/…`) into `accountId` (registry row, objects,
 * uploads), once per database: one transaction under the schema lock, which also writes the `store_meta`
 * marker, so nodes starting at once take turns and only the first moves anything. Returns the buckets moved.
 */
export async function adoptLegacyBuckets(pool: pg.Pool, accountId: string): Promise<number> {
  if (!/^[0-9a-f]{32}$/.test(accountId)) throw new Error(`not an account id: ${accountId}`);
  const done = await pool.query('SELECT 1 FROM store_meta WHERE name = $1', [BUCKETS_ADOPTED]);
  if (done.rowCount) return 0;
  const client = await pool.connect();
  let broken: Error | undefined;
  try {
    await client.query(`BEGIN; SELECT pg_advisory_xact_lock(${LockClass.schema}, 0)`);
    const marked = await client.query('INSERT INTO store_meta (name, value) VALUES ($1, $2) ON CONFLICT (name) DO NOTHING', [BUCKETS_ADOPTED, accountId]);
    let moved = 0;
    if (marked.rowCount) {
      const legacy = `!~ '^[0-9a-f]{32}/'`;
      moved = (await client.query(`UPDATE store_buckets SET name = $1 || name WHERE name ${legacy}`, [`${accountId}/`])).rowCount ?? 0;
      await client.query(`UPDATE store_objects SET bucket = $1 || bucket WHERE bucket ${legacy}`, [`${accountId}/`]);
      await client.query(`UPDATE store_uploads SET bucket = $1 || bucket WHERE bucket ${legacy}`, [`${accountId}/`]);
    }
    await client.query('COMMIT');
    return moved;
  } catch (err) {
    await client.query('ROLLBACK').catch((e: Error) => (broken = e));
    throw err;
  } finally {
    client.release(broken);
  }
}

/**
 * Checks the database encoding and creates the tables unless they exist, then runs the later steps not yet
 * run. Several nodes may run this at once: the DDL runs in one transaction under an exclusive advisory lock,
 * and only when something is missing (`CREATE INDEX IF NOT EXISTS` would otherwise lock the tables against
 * writers on every start).
 */
export async function preparePostgres(pool: pg.Pool): Promise<void> {
  const { rows } = await pool.query<{ encoding: string; ready: boolean; steps: boolean }>(
    `SELECT current_setting('server_encoding') AS encoding, to_regclass($1) IS NOT NULL AS ready,
       ${STEPS.map((s) => s.done).join(' AND ')} AS steps`,
    [LAST_OBJECT],
  );
  const { encoding, ready, steps } = rows[0]!;
  // Text in another encoding would not compare (or even store) as UTF-8 bytes.
  if (encoding !== 'UTF8' && encoding !== 'SQL_ASCII') throw new Error(`the bucket metadata database must use UTF8 encoding, not ${encoding}`);
  if (ready && steps) return;
  const client = await pool.connect();
  let broken: Error | undefined;
  try {
    await client.query(`BEGIN; SELECT pg_advisory_xact_lock(${LockClass.schema}, 0); ${SCHEMA} ${STEPS.map((s) => s.sql).join(' ')} COMMIT;`);
  } catch (err) {
    await client.query('ROLLBACK').catch((e: Error) => (broken = e));
    throw err;
  } finally {
    client.release(broken);
  }
}

/** FNV-1a over the bytes, as a signed 32-bit integer (the second key of an advisory lock). */
function hash32(parts: Uint8Array[]): number {
  let h = 0x811c9dc5;
  for (const bytes of parts) {
    for (const b of bytes) h = Math.imul(h ^ b, 0x01000193);
  }
  return h | 0;
}

const SEPARATOR = Uint8Array.of(0xff); // never occurs in UTF-8

/**
 * Opens a write transaction. READ COMMITTED explicitly, whatever the database's default: the locking rules
 * rely on each statement taking a fresh snapshot (under REPEATABLE READ the first one would fix it before the
 * locks are granted).
 */
export const BEGIN = 'BEGIN ISOLATION LEVEL READ COMMITTED';

/**
 * {@link BEGIN} plus the advisory locks of a write, as one simple-protocol string (one round trip). Only integers
 * computed here are spliced in. Object keys are locked in ascending lock order, so writers of several keys
 * cannot deadlock; a hash collision only makes two keys share a lock. The statement that reads the rows must
 * come after this one: under READ COMMITTED its snapshot is then taken once the locks are held.
 */
export function beginLocked(opts: { bucket: string; bucketLock?: 'shared' | 'exclusive'; keys?: string[] }): string {
  const name = Buffer.from(opts.bucket, 'utf8');
  const out = [BEGIN];
  if (opts.bucketLock) {
    const fn = opts.bucketLock === 'shared' ? 'pg_advisory_xact_lock_shared' : 'pg_advisory_xact_lock';
    out.push(`SELECT ${fn}(${LockClass.bucket}, ${hash32([name])})`);
  }
  const ids = [...new Set((opts.keys ?? []).map((k) => hash32([name, SEPARATOR, Buffer.from(k, 'utf8')])))].sort((a, b) => a - b);
  for (const id of ids) out.push(`SELECT pg_advisory_xact_lock(${LockClass.key}, ${id})`);
  return out.join('; ');
}
