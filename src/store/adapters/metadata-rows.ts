/**
 * Rows of the SQL metadata stores (SQLite and PostgreSQL share the table shapes) and their conversion to and
 * from the port's records. Metadata maps are JSON text: the stored text is exactly what was written, key order
 * included. Object keys are stored as their UTF-8 bytes in both; upload keys are TEXT in SQLite, bytea in
 * PostgreSQL.
 */
import type { ObjectRecord, PartRecord, UploadRecord } from '../ports.js';

/** A `store_objects` row as read (`parts` only where a query aggregates them). */
export interface ObjectRow {
  key: Buffer;
  version: string;
  size: number;
  etag: string;
  uploaded: number;
  checksums: string;
  http_metadata: string;
  custom_metadata: string;
  storage_class: string;
  ssec: string | null;
  inline_data: Buffer | null;
  blob_id: string | null;
  upload_id: string | null;
  parts?: PartRow[] | null;
}

/** A `store_uploads` row as read. */
export interface UploadRow {
  upload_id: string;
  key: Buffer | string;
  created: number;
  state: number;
  http_metadata: string;
  custom_metadata: string;
  storage_class: string;
  ssec_key_md5: string | null;
  checksum_algorithm?: string | null;
  checksum_type?: string | null;
}

/** A `store_parts` row as read. */
export interface PartRow {
  part_number: number;
  size: number;
  etag: string;
  blob_id: string;
  iv: string | null;
  /** JSON of hex checksums by algorithm, or null (schema step 4). */
  checksums?: string | null;
}

const STATES = ['active', 'completed', 'aborted'] as const;

/** The record of an object row; a multipart body carries its parts when the row came with them. */
export function toRecord(row: ObjectRow): ObjectRecord {
  let body: ObjectRecord['body'];
  if (row.upload_id !== null) {
    body = { kind: 'parts', uploadId: row.upload_id };
    if (row.parts) body.parts = row.parts.map(toPart);
  } else if (row.blob_id !== null) {
    body = { kind: 'blob', blobId: row.blob_id };
  } else {
    body = { kind: 'inline', data: row.inline_data ?? new Uint8Array(0) };
  }
  return {
    key: row.key.toString('utf8'),
    version: row.version,
    size: row.size,
    etag: row.etag,
    uploaded: row.uploaded,
    checksums: JSON.parse(row.checksums) as Record<string, string>,
    httpMetadata: JSON.parse(row.http_metadata) as Record<string, string | number>,
    customMetadata: JSON.parse(row.custom_metadata) as Record<string, string>,
    storageClass: row.storage_class,
    ssec: row.ssec ? (JSON.parse(row.ssec) as ObjectRecord['ssec']) : null,
    body,
  };
}

/** The record of an upload row. */
export function toUpload(row: UploadRow): UploadRecord {
  return {
    uploadId: row.upload_id,
    key: typeof row.key === 'string' ? row.key : row.key.toString('utf8'),
    created: row.created,
    state: STATES[row.state] ?? 'aborted',
    httpMetadata: JSON.parse(row.http_metadata) as Record<string, string | number>,
    customMetadata: JSON.parse(row.custom_metadata) as Record<string, string>,
    storageClass: row.storage_class,
    ssecKeyMd5: row.ssec_key_md5,
    ...(row.checksum_algorithm ? { checksumAlgorithm: row.checksum_algorithm, checksumType: row.checksum_type ?? null } : {}),
  };
}

/** The record of a part row. */
export function toPart(row: PartRow): PartRecord {
  const part: PartRecord = { partNumber: row.part_number, size: row.size, etag: row.etag, blobId: row.blob_id, iv: row.iv };
  if (row.checksums) part.checksums = JSON.parse(row.checksums) as Record<string, string>;
  return part;
}

/** The `checksums` column of a part row: JSON, or null when the part has none. */
export function partChecksumsValue(part: PartRecord): string | null {
  return part.checksums && Object.keys(part.checksums).length > 0 ? JSON.stringify(part.checksums) : null;
}

/** UTF-8 bytes of a key, as stored. */
export function keyBytes(key: string): Buffer {
  return Buffer.from(key, 'utf8');
}

/** The 14 values of an object row, in the order of {@link OBJECT_COLUMNS}. */
export function objectValues(bucket: string, r: ObjectRecord): unknown[] {
  return [
    bucket,
    keyBytes(r.key),
    r.version,
    r.size,
    r.etag,
    r.uploaded,
    JSON.stringify(r.checksums),
    JSON.stringify(r.httpMetadata),
    JSON.stringify(r.customMetadata),
    r.storageClass,
    r.ssec ? JSON.stringify(r.ssec) : null,
    r.body.kind === 'inline' ? Buffer.from(r.body.data.buffer, r.body.data.byteOffset, r.body.data.byteLength) : null,
    r.body.kind === 'blob' ? r.body.blobId : null,
    r.body.kind === 'parts' ? r.body.uploadId : null,
  ];
}

/** Columns of `store_objects` in the order of {@link objectValues}. */
export const OBJECT_COLUMNS = [
  'bucket',
  'key',
  'version',
  'size',
  'etag',
  'uploaded',
  'checksums',
  'http_metadata',
  'custom_metadata',
  'storage_class',
  'ssec',
  'inline_data',
  'blob_id',
  'upload_id',
] as const;

/** The values of an upload row (key as bytea, for PostgreSQL), in the order of the `store_uploads` columns. */
export function uploadValues(bucket: string, u: UploadRecord, state: number): unknown[] {
  return [
    u.uploadId, bucket, keyBytes(u.key), u.created, state, JSON.stringify(u.httpMetadata), JSON.stringify(u.customMetadata), u.storageClass, u.ssecKeyMd5,
    u.checksumAlgorithm ?? null, u.checksumType ?? null,
  ];
}
