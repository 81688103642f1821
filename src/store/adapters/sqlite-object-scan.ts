/**
 * The SQLite metadata store's key-ordered object reads: a page of a bucket's objects (prefix, start after / from,
 * limit) and the last key under a prefix. Keys are BLOBs of their UTF-8 bytes, so SQLite orders them as S3 does.
 */
import type { Statement } from 'better-sqlite3';
import type { ObjectRecord, ScanOptions } from '../ports.js';
import { toRecord, type ObjectRow } from './metadata-rows.js';
import { prefixUpperBound } from '../keys.js';

/** A page of `bucket`'s objects in key order, as `opts` selects; `q` prepares (and caches) a statement. */
export function scanObjectRows(q: (sql: string) => Statement, bucket: string, opts: ScanOptions): ObjectRecord[] {
  const where = ['bucket = ?'];
  const args: unknown[] = [bucket];
  const prefix = Buffer.from(opts.prefix, 'utf8');
  if (prefix.length > 0) {
    where.push('key >= ?');
    args.push(prefix);
    const upper = prefixUpperBound(prefix);
    if (upper) {
      where.push('key < ?');
      args.push(upper);
    }
  }
  if (opts.after !== undefined) {
    where.push('key > ?');
    args.push(Buffer.from(opts.after, 'utf8'));
  }
  if (opts.from !== undefined) {
    where.push('key >= ?');
    args.push(Buffer.from(opts.from, 'utf8'));
  }
  args.push(opts.limit);
  const rows = q(`SELECT * FROM store_objects WHERE ${where.join(' AND ')} ORDER BY key LIMIT ?`).all(...args) as ObjectRow[];
  return rows.map(toRecord);
}

/** The greatest key under `prefix` in `bucket`, or null when none. */
export function lastKeyRow(q: (sql: string) => Statement, bucket: string, prefix: string): string | null {
  const lower = Buffer.from(prefix, 'utf8');
  const upper = prefixUpperBound(lower);
  const row = (
    upper
      ? q('SELECT key FROM store_objects WHERE bucket = ? AND key >= ? AND key < ? ORDER BY key DESC LIMIT 1').get(bucket, lower, upper)
      : q('SELECT key FROM store_objects WHERE bucket = ? AND key >= ? ORDER BY key DESC LIMIT 1').get(bucket, lower)
  ) as { key: Buffer } | undefined;
  return row ? row.key.toString('utf8') : null;
}
