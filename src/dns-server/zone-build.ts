/**
 * Reads one zone (its `zones` row and `dns_records` rows) and builds its immutable snapshot. The only place
 * the DNS server reads zone contents from the database; the zone cache decides when to call it. Only the
 * columns that are served are read (not comments, tags, meta or timestamps), so a rebuild of a big zone parses
 * as little as it can.
 */
import type { Kysely } from 'kysely';
import type { Database } from '../db/schema.js';
import type { Logger } from '../shared/logger.js';
import { rowToServedRecord, SERVED_COLUMNS, type ServedRow } from '../zones/record-rows.js';
import { QueryTemplate } from '../db/query-template.js';
import { buildSnapshot, type EdgeAddresses, type SnapshotRecord, type ZoneSnapshot } from '../dns/snapshot.js';
import { readServingSettings } from '../dns/snapshot-settings.js';

/** The zone row, when the zone is active: only active zones are served (a pending or moved zone answers nothing). */
const ZONE = new QueryTemplate<{ zoneId: string }, { id: string; name: string; serial: number; name_servers: string; dns_settings: string; zone_settings: string }>(
  (db, p) => db.selectFrom('zones').select(['id', 'name', 'serial', 'name_servers', 'dns_settings', 'zone_settings']).where('id', '=', p('zoneId')).where('status', '=', 'active'),
);

const SERVED_RECORDS = new QueryTemplate<{ zoneId: string }, ServedRow>((db, p) => db.selectFrom('dns_records')
  .select([...SERVED_COLUMNS]).where('zone_id', '=', p('zoneId')));

/** The zone's current snapshot, or undefined when the zone no longer exists or is not active. */
export async function loadZoneSnapshot(db: Kysely<Database>, zoneId: string, edge: EdgeAddresses, logger: Logger): Promise<ZoneSnapshot | undefined> {
  const zone = await ZONE.executeTakeFirst(db, { zoneId });
  if (!zone) return undefined;
  const rows = await SERVED_RECORDS.execute(db, { zoneId });
  let nameServers: string[] = [];
  try { nameServers = (JSON.parse(zone.name_servers) as string[]).map((n) => String(n).toLowerCase().replace(/\.$/, '')); } catch { /* none */ }
  const settings = readServingSettings(zone.dns_settings, zone.zone_settings, nameServers);
  const records: SnapshotRecord[] = [];
  for (const row of rows) {
    try { records.push(rowToServedRecord(row)); } catch (err) { logger.warn({ err, id: row.id }, 'unreadable record row'); }
  }
  const snapshot = buildSnapshot(
    { id: zone.id, name: zone.name.toLowerCase(), serial: Number(zone.serial), nameServers, settings },
    records,
    edge,
  );
  for (const s of snapshot.skipped) logger.warn({ zoneId, recordId: s.id, reason: s.reason }, 'record not served');
  return snapshot;
}
