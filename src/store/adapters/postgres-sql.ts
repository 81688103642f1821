/**
 * The fixed statements of the PostgreSQL metadata store. Writes that touch several tables are single
 * statements with data-modifying CTEs (one round trip); they all see one snapshot, so each one runs only
 * after the statement that took the locks it relies on (see `beginLocked` in postgres-schema.ts).
 * Garbage entries are `INSERT … ON CONFLICT DO NOTHING`, the counterpart of SQLite's `INSERT OR IGNORE`.
 */
import { OBJECT_COLUMNS } from './metadata-rows.js';

/** `INSERT INTO store_garbage` of the `blob_id`s of the given CTEs (and `old`, when named), dated by `$since`. */
function garbageFrom(sources: string[], since: string): string {
  const union = sources.map((s) => `SELECT blob_id FROM ${s} WHERE blob_id IS NOT NULL`).join(' UNION ALL ');
  return `INSERT INTO store_garbage (blob_id, since) SELECT g.blob_id, ${since}::bigint FROM (${union}) g ON CONFLICT (blob_id) DO NOTHING`;
}

/** A key's row with, for a multipart object, its parts as JSON (one statement, so one snapshot). */
export const GET_OBJECT = `
SELECT o.*, CASE WHEN o.upload_id IS NOT NULL THEN (
  SELECT COALESCE(json_agg(json_build_object('part_number', p.part_number, 'size', p.size, 'etag', p.etag, 'blob_id', p.blob_id, 'iv', p.iv, 'checksums', p.checksums)
    ORDER BY p.part_number), '[]'::json)
  FROM store_parts p WHERE p.upload_id = o.upload_id) END AS parts
FROM store_objects o WHERE o.bucket = $1 AND o.key = $2`;

/** A key's row, locked until the transaction ends. */
export const LOCK_OBJECT = 'SELECT * FROM store_objects WHERE bucket = $1 AND key = $2 FOR UPDATE';

const OBJECT_PARAMS = OBJECT_COLUMNS.map((_, i) => `$${i + 1}`).join(', ');
const OBJECT_UPDATES = OBJECT_COLUMNS.slice(2)
  .map((c) => `${c} = EXCLUDED.${c}`)
  .join(', ');

/** The CTEs that store an object row (`$1`–`$14`), register its bucket dated by `uploaded` and discard the replaced row's body. */
const WRITE_OBJECT_CTES = `
old AS (SELECT blob_id, upload_id FROM store_objects WHERE bucket = $1 AND key = $2),
put AS (INSERT INTO store_objects (${OBJECT_COLUMNS.join(', ')}) VALUES (${OBJECT_PARAMS})
  ON CONFLICT (bucket, key) DO UPDATE SET ${OBJECT_UPDATES}),
reg AS (INSERT INTO store_buckets (name, created) VALUES ($1, $6) ON CONFLICT (name) DO NOTHING),
old_parts AS (DELETE FROM store_parts WHERE upload_id IN (SELECT upload_id FROM old) RETURNING blob_id)`;

/** Writes an object (`$1`–`$14`, garbage dated `$15`); the key must be locked. */
export const WRITE_OBJECT = `WITH ${WRITE_OBJECT_CTES}
${garbageFrom(['old', 'old_parts'], '$15')}`;

/**
 * Writes the completed object like {@link WRITE_OBJECT}, marks upload `$16` completed and discards its part
 * numbers `$17` (those the object does not use); the key and the upload row must be locked.
 */
export const COMPLETE_UPLOAD = `WITH ${WRITE_OBJECT_CTES},
unused AS (DELETE FROM store_parts WHERE upload_id = $16 AND part_number = ANY($17::int[]) RETURNING blob_id),
done AS (UPDATE store_uploads SET state = 1 WHERE upload_id = $16)
${garbageFrom(['old', 'old_parts', 'unused'], '$15')}`;

/** Deletes keys `$2` (bytea[]) of bucket `$1`; their bodies go to garbage dated `$3`. */
export const DELETE_OBJECTS = `
WITH gone AS (DELETE FROM store_objects WHERE bucket = $1 AND key = ANY($2::bytea[]) RETURNING blob_id, upload_id),
gone_parts AS (DELETE FROM store_parts WHERE upload_id IN (SELECT upload_id FROM gone) RETURNING blob_id)
${garbageFrom(['gone', 'gone_parts'], '$3')}`;

/** Inserts an upload (`$1`–`$11`) and registers its bucket dated by its creation. */
export const CREATE_UPLOAD = `
WITH up AS (INSERT INTO store_uploads (upload_id, bucket, key, created, state, http_metadata, custom_metadata, storage_class, ssec_key_md5,
    checksum_algorithm, checksum_type)
  VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11))
INSERT INTO store_buckets (name, created) VALUES ($2, $4) ON CONFLICT (name) DO NOTHING`;

/** An upload's row, locked until the transaction ends. */
export const LOCK_UPLOAD = 'SELECT * FROM store_uploads WHERE bucket = $1 AND upload_id = $2 FOR UPDATE';

/** Any upload's row by id. */
export const GET_UPLOAD = 'SELECT * FROM store_uploads WHERE bucket = $1 AND upload_id = $2';

/** Marks uploads `$1` (text[]) aborted; their parts go to garbage dated `$2`. The rows must be locked. */
export const ABORT_UPLOADS = `
WITH gone AS (DELETE FROM store_parts WHERE upload_id = ANY($1::text[]) RETURNING blob_id),
g AS (${garbageFrom(['gone'], '$2')})
UPDATE store_uploads SET state = 2 WHERE upload_id = ANY($1::text[])`;

/** Locks the active uploads created before `$1`, in id order (so two sweeps cannot deadlock). */
export const LOCK_EXPIRED = 'SELECT upload_id FROM store_uploads WHERE state = 0 AND created < $1 ORDER BY upload_id FOR UPDATE';

/**
 * Stores part `$2` of upload `$1` (checksums JSON `$8`); a replaced part's blob goes to garbage dated `$7`. The
 * upload row must be locked.
 */
export const PUT_PART = `
WITH old AS (SELECT blob_id FROM store_parts WHERE upload_id = $1 AND part_number = $2),
g AS (${garbageFrom(['old'], '$7')})
INSERT INTO store_parts (upload_id, part_number, size, etag, blob_id, iv, checksums) VALUES ($1, $2, $3, $4, $5, $6, $8)
ON CONFLICT (upload_id, part_number) DO UPDATE SET size = EXCLUDED.size, etag = EXCLUDED.etag, blob_id = EXCLUDED.blob_id, iv = EXCLUDED.iv,
  checksums = EXCLUDED.checksums`;

/** The parts of upload `$1` by number. */
export const LIST_PARTS = 'SELECT * FROM store_parts WHERE upload_id = $1 ORDER BY part_number';

/**
 * Deletes bucket `$1` unless it holds an object or an active upload, with its other upload rows (their
 * parts, if any, go to garbage dated `$2`). The bucket must be locked exclusively.
 */
export const DELETE_BUCKET = `
WITH busy AS (SELECT EXISTS (SELECT 1 FROM store_objects WHERE bucket = $1)
    OR EXISTS (SELECT 1 FROM store_uploads WHERE bucket = $1 AND state = 0) AS v),
b AS (DELETE FROM store_buckets WHERE name = $1 AND NOT (SELECT v FROM busy) RETURNING 1),
ups AS (DELETE FROM store_uploads WHERE bucket = $1 AND EXISTS (SELECT 1 FROM b) RETURNING upload_id),
ps AS (DELETE FROM store_parts WHERE upload_id IN (SELECT upload_id FROM ups) RETURNING blob_id),
g AS (${garbageFrom(['ps'], '$2')})
SELECT (SELECT v FROM busy) AS busy, EXISTS (SELECT 1 FROM b) AS deleted`;

/** Registers bucket `$1` created at `$2` with storage class `$3`, location `$4`, lifecycle `$5`, unless it exists. */
export const CREATE_BUCKET = `INSERT INTO store_buckets (name, created, storage_class, location, lifecycle) VALUES ($1, $2, $3, $4, $5)
ON CONFLICT (name) DO NOTHING`;

/** Deletes the object `$1`/`$2` iff its version is `$3`; its body goes to garbage dated `$4`. The key must be locked. */
export const DELETE_OBJECT_VERSION = `
WITH gone AS (DELETE FROM store_objects WHERE bucket = $1 AND key = $2 AND version = $3 RETURNING blob_id, upload_id),
gone_parts AS (DELETE FROM store_parts WHERE upload_id IN (SELECT upload_id FROM gone) RETURNING blob_id),
g AS (${garbageFrom(['gone', 'gone_parts'], '$4')})
SELECT count(*)::int AS n FROM gone`;

/** Takes lease `$1` for holder `$2` until `$4` when it is free, expired (before `$3`) or already the holder's. */
export const TAKE_LEASE = `
INSERT INTO store_leases (name, holder, until) VALUES ($1, $2, $4)
ON CONFLICT (name) DO UPDATE SET holder = EXCLUDED.holder, until = EXCLUDED.until
WHERE store_leases.holder = EXCLUDED.holder OR store_leases.until <= $3`;

/**
 * Garbage entries dated at or before `$1`, oldest first, at most `$2`; none while a `gc-hold/…` lease is
 * unexpired at `$3` (wall-clock ms): see sqlite-garbage.ts and docs/operations.md, "Backups".
 */
export const TAKE_GARBAGE = `SELECT blob_id FROM store_garbage WHERE since <= $1
  AND NOT EXISTS (SELECT 1 FROM store_leases WHERE name >= 'gc-hold/' AND name < 'gc-hold0' AND until > $3)
ORDER BY since, blob_id LIMIT $2`;

/** The ids among `$1` (text[]) that an object, a part or the garbage list names. */
export const REFERENCED_BLOBS = `
SELECT t.id FROM unnest($1::text[]) AS t(id)
WHERE EXISTS (SELECT 1 FROM store_objects WHERE blob_id = t.id)
   OR EXISTS (SELECT 1 FROM store_parts WHERE blob_id = t.id)
   OR EXISTS (SELECT 1 FROM store_garbage WHERE blob_id = t.id)`;
