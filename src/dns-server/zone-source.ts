/**
 * What the DNS server reads from the database: which zones are served, a zone's served fields, its records
 * page by page. The only place the DNS server reads zone contents (the change log is zones/change-log.ts).
 * Only served columns are read (not comments, tags, meta or timestamps).
 */
import type { Kysely, SelectQueryBuilder } from 'kysely';
import type { Database } from '../db/schema.js';
import { rowToServedRecord, SERVED_COLUMNS, type ServedRow } from '../zones/record-rows.js';
import { QueryTemplate } from '../db/query-template.js';
import type { SnapshotRecord, SnapshotZone } from '../dns/snapshot.js';
import { readServingSettings } from '../dns/snapshot-settings.js';
import type { ZoneColumns } from '../zones/change-feed.js';
import { parseZoneDnssec } from '../dns/dnssec/config.js';

/** Records read per page when a zone is loaded. */
export const PAGE_RECORDS = 2000;

/**
 * The zones the DNS server answers for: the single place that decides it. Every read of `zones` here (the
 * list loaded and polled, one zone's serial, one zone's fields) goes through it, so a zone it leaves out is
 * never loaded, and one that leaves the set is dropped at the next poll (or at once, on this node, through the
 * change feed's `status` event). Only `active` zones are served: a `pending` or `moved` zone answers nothing
 * (zones/zone-ownership.ts decides the status).
 */
function served<QB extends SelectQueryBuilder<Database, 'zones', object>>(query: QB): QB {
  return query.where('status', '=', 'active') as QB;
}

/** The served zones with their serials. */
export async function servedZones(db: Kysely<Database>): Promise<Array<{ id: string; serial: number }>> {
  const rows = await served(db.selectFrom('zones')).select(['id', 'serial']).execute();
  return rows.map((r) => ({ id: r.id, serial: Number(r.serial) }));
}

const SERIAL = new QueryTemplate<{ zoneId: string }, { serial: number }>(
  (db, p) => served(db.selectFrom('zones')).select('serial').where('id', '=', p('zoneId')),
);

/** A served zone's serial, or undefined when it is not served (gone). */
export async function servedZoneSerial(db: Kysely<Database>, zoneId: string): Promise<number | undefined> {
  const row = await SERIAL.executeTakeFirst(db, { zoneId });
  return row ? Number(row.serial) : undefined;
}

const ZONE = new QueryTemplate<{ zoneId: string }, { id: string; name: string; serial: number } & ZoneColumns>(
  (db, p) => served(db.selectFrom('zones')).select(['id', 'name', 'serial', 'name_servers', 'dns_settings', 'zone_settings', 'dnssec']).where('id', '=', p('zoneId')),
);

/** The snapshot fields of a zone from its stored columns. */
export function zoneFields(id: string, name: string, serial: number, columns: ZoneColumns): SnapshotZone {
  let nameServers: string[] = [];
  try { nameServers = (JSON.parse(columns.name_servers) as string[]).map((n) => String(n).toLowerCase().replace(/\.$/, '')); } catch { /* none */ }
  const settings = readServingSettings(columns.dns_settings, columns.zone_settings, nameServers);
  const dnssec = columns.dnssec ? parseZoneDnssec(columns.dnssec) : undefined;
  return { id, name: name.toLowerCase(), serial, nameServers, settings, ...(dnssec ? { dnssec } : {}) };
}

/** A served zone's fields, or undefined when it is not served (gone). */
export async function readZone(db: Kysely<Database>, zoneId: string): Promise<SnapshotZone | undefined> {
  const zone = await ZONE.executeTakeFirst(db, { zoneId });
  return zone ? zoneFields(zone.id, zone.name, Number(zone.serial), zone) : undefined;
}

const PAGE = new QueryTemplate<{ zoneId: string; after: string; limit: number }, ServedRow>((db, p) => db.selectFrom('dns_records')
  .select([...SERVED_COLUMNS]).where('zone_id', '=', p('zoneId')).where('id', '>', p('after')).orderBy('id').limit(p('limit')));

/** The zone's records with ids above `after`, in id order, at most {@link PAGE_RECORDS}; unreadable rows reported. */
export async function readRecordPage(db: Kysely<Database>, zoneId: string, after: string, onBadRow: (id: string, err: unknown) => void): Promise<{ records: SnapshotRecord[]; last: string | undefined }> {
  const rows = await PAGE.execute(db, { zoneId, after, limit: PAGE_RECORDS });
  const records: SnapshotRecord[] = [];
  for (const row of rows) {
    try { records.push(rowToServedRecord(row)); } catch (err) { onBadRow(row.id, err); }
  }
  return { records, last: rows.at(-1)?.id };
}
