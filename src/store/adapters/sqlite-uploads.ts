/** The upload listing of the SQLite metadata store (S3's ListMultipartUploads order and markers). */
import type { Database } from 'better-sqlite3';
import type { UploadRecord, UploadScanOptions } from '../ports.js';
import { prefixUpperBoundText } from '../keys.js';
import { toUpload, type UploadRow } from './metadata-rows.js';

/** Active uploads of `bucket` by key, creation, id, after the markers (one read transaction). */
export function listUploadRows(db: Database, bucket: string, opts: UploadScanOptions): UploadRecord[] {
  return db
    .transaction((): UploadRecord[] => {
      const where = ['bucket = ?', 'state = 0'];
      const args: unknown[] = [bucket];
      if (opts.prefix.length > 0) {
        where.push('key >= ?');
        args.push(opts.prefix);
        const upper = prefixUpperBoundText(opts.prefix);
        if (upper !== null) {
          where.push('key < ?');
          args.push(upper);
        }
      }
      if (opts.keyMarker !== undefined) {
        const marker =
          opts.uploadIdMarker === undefined
            ? undefined
            : (db.prepare('SELECT created FROM store_uploads WHERE upload_id = ? AND bucket = ? AND key = ?').get(opts.uploadIdMarker, bucket, opts.keyMarker) as
                | { created: number }
                | undefined);
        if (marker) {
          where.push('(key, created, upload_id) > (?, ?, ?)');
          args.push(opts.keyMarker, marker.created, opts.uploadIdMarker);
        } else {
          where.push('key > ?');
          args.push(opts.keyMarker);
        }
      }
      args.push(opts.limit);
      const sql = `SELECT * FROM store_uploads WHERE ${where.join(' AND ')} ORDER BY key, created, upload_id LIMIT ?`;
      return (db.prepare(sql).all(...args) as UploadRow[]).map(toUpload);
    })
    .deferred();
}
