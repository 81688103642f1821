/** Conversion between stored `dns_records` rows and {@link DnsRecord} values. */
import type { Selectable } from 'kysely';
import type { DnsRecordsTable } from '../db/schema.js';
import type { DnsRecord, RecordType } from '../dns/record.js';
import type { SnapshotRecord } from '../dns/snapshot.js';

/** A stored record row. */
export type RecordRow = Selectable<DnsRecordsTable>;

/** The columns of a row that the DNS server serves. */
export const SERVED_COLUMNS = ['id', 'name', 'type', 'content', 'data', 'priority', 'ttl', 'proxied', 'settings'] as const;

/** A row of just the {@link SERVED_COLUMNS}. */
export type ServedRow = Pick<RecordRow, (typeof SERVED_COLUMNS)[number]>;

/** The served fields of a stored row (what DNS snapshots are built from); throws on unreadable JSON. */
export function rowToServedRecord(row: ServedRow): SnapshotRecord {
  return {
    id: row.id,
    name: row.name,
    type: row.type as RecordType,
    content: row.content,
    data: row.data === null ? null : (JSON.parse(row.data) as Record<string, unknown>),
    priority: row.priority,
    ttl: row.ttl,
    proxied: row.proxied === 1,
    settings: JSON.parse(row.settings) as DnsRecord['settings'],
  };
}

/** The served fields of a record (what the change feed and the change log carry). */
export function servedRecord(r: DnsRecord): SnapshotRecord {
  return { id: r.id, name: r.name, type: r.type, content: r.content, data: r.data, priority: r.priority, ttl: r.ttl, proxied: r.proxied, settings: r.settings };
}

/** The record a row holds. */
export function rowToRecord(row: RecordRow): DnsRecord {
  return {
    ...rowToServedRecord(row),
    zoneId: row.zone_id,
    comment: row.comment,
    tags: JSON.parse(row.tags) as string[],
    meta: JSON.parse(row.meta) as Record<string, unknown>,
    createdOn: row.created_on,
    modifiedOn: row.modified_on,
    commentModifiedOn: row.comment_modified_on,
    tagsModifiedOn: row.tags_modified_on,
  };
}

/** The row that stores a record. */
export function recordToRow(r: DnsRecord): RecordRow {
  return {
    id: r.id,
    zone_id: r.zoneId,
    name: r.name,
    type: r.type,
    content: r.content,
    data: r.data === null ? null : JSON.stringify(r.data),
    priority: r.priority,
    ttl: r.ttl,
    proxied: r.proxied ? 1 : 0,
    comment: r.comment,
    tags: JSON.stringify(r.tags),
    settings: JSON.stringify(r.settings),
    meta: JSON.stringify(r.meta),
    created_on: r.createdOn,
    modified_on: r.modifiedOn,
    comment_modified_on: r.commentModifiedOn,
    tags_modified_on: r.tagsModifiedOn,
  };
}

/** `meta` of every record created through the API (the contract's four fields). */
export const RECORD_META = { auto_added: false, managed_by_apps: false, managed_by_tunnel: false, source: 'primary' } as const;
