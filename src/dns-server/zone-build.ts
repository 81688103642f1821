/**
 * Reads one zone (its `zones` row and `dns_records` rows) and builds its immutable snapshot. The only place
 * the DNS server reads zone contents from the database; the zone cache decides when to call it.
 */
import type { Kysely } from 'kysely';
import type { Database } from '../db/schema.js';
import type { Logger } from '../shared/logger.js';
import { rowToRecord } from '../zones/record-rows.js';
import { buildSnapshot, type EdgeAddresses, type ZoneSnapshot } from '../dns/snapshot.js';
import { readServingSettings } from '../dns/snapshot-settings.js';

/** The zone's current snapshot, or undefined when the zone no longer exists. */
export async function loadZoneSnapshot(db: Kysely<Database>, zoneId: string, edge: EdgeAddresses, logger: Logger): Promise<ZoneSnapshot | undefined> {
  const zone = await db.selectFrom('zones').selectAll().where('id', '=', zoneId).executeTakeFirst();
  if (!zone) return undefined;
  const rows = await db.selectFrom('dns_records').selectAll().where('zone_id', '=', zoneId).execute();
  let nameServers: string[] = [];
  try { nameServers = (JSON.parse(zone.name_servers) as string[]).map((n) => String(n).toLowerCase().replace(/\.$/, '')); } catch { /* none */ }
  const settings = readServingSettings(zone.dns_settings, zone.zone_settings, nameServers);
  const records = [];
  for (const row of rows) {
    try { records.push(rowToRecord(row)); } catch (err) { logger.warn({ err, id: row.id }, 'unreadable record row'); }
  }
  const snapshot = buildSnapshot(
    { id: zone.id, name: zone.name.toLowerCase(), serial: Number(zone.serial), nameServers, settings },
    records,
    edge,
  );
  for (const s of snapshot.skipped) logger.warn({ zoneId, recordId: s.id, reason: s.reason }, 'record not served');
  return snapshot;
}
