/**
 * Reading and writing the settings columns. A zone write runs in one transaction that first bumps the zone's
 * serial (taking the write lock, see `zones/serial.ts`), re-reads the columns, applies the change and stores
 * it; it logs the new columns (zones/change-log.ts) and after commit announces them with the serial on the change
 * feed, so DNS servers apply the new settings. Account writes are read-modify-write in one transaction as well.
 */
import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema.js';
import type { ZoneChangeFeed, ZoneColumns } from '../change-feed.js';
import { logChange } from '../change-log.js';
import { bumpSerial } from '../serial.js';
import { parseJsonObject, type Json } from './shape.js';

/** The settings columns of a zone, parsed. */
export interface ZoneSettingsState {
  /** Parsed `zones.dns_settings` as stored (defaults not filled in). */
  dns: Json;
  /** Parsed `zones.zone_settings`. */
  zone: Json;
  nameServers: string[];
}

/** The new column values a zone change produces (an omitted one stays). */
export interface ZoneSettingsChange {
  dns?: Json;
  zone?: Json;
  /** A new `zones.type` (zone edit). */
  type?: string;
  /** A new `zones.modified_on` (zone edit). */
  modifiedOn?: string;
}

/** Parses the settings columns of a zone row. */
export function zoneSettingsState(row: { dns_settings: string; zone_settings: string; name_servers: string }): ZoneSettingsState {
  let nameServers: string[] = [];
  try {
    const v: unknown = JSON.parse(row.name_servers);
    if (Array.isArray(v)) nameServers = v.filter((x): x is string => typeof x === 'string');
  } catch { /* no name servers */ }
  return { dns: parseJsonObject(row.dns_settings), zone: parseJsonObject(row.zone_settings), nameServers };
}

/** Settings persistence for zones and accounts. */
export class SettingsStore {
  constructor(private readonly db: Kysely<Database>, private readonly changeFeed: ZoneChangeFeed) {}

  /** Applies `mutate` to the zone's current settings atomically; returns the new state. */
  async updateZone(zoneId: string, mutate: (state: ZoneSettingsState) => ZoneSettingsChange): Promise<ZoneSettingsState> {
    let columns: ZoneColumns | undefined;
    let serial = 0;
    const state = await this.db.transaction().execute(async (trx) => {
      serial = (await bumpSerial(trx, zoneId)).serial;
      const row = await trx.selectFrom('zones').select(['dns_settings', 'zone_settings', 'name_servers', 'dnssec']).where('id', '=', zoneId).executeTakeFirstOrThrow();
      const current = zoneSettingsState(row);
      const change = mutate(current);
      const set: { dns_settings?: string; zone_settings?: string } = {};
      if (change.dns) set.dns_settings = JSON.stringify(change.dns);
      if (change.zone) set.zone_settings = JSON.stringify(change.zone);
      const other = { ...(change.type ? { type: change.type } : {}), ...(change.modifiedOn ? { modified_on: change.modifiedOn } : {}) };
      if (Object.keys(set).length + Object.keys(other).length > 0) await trx.updateTable('zones').set({ ...set, ...other }).where('id', '=', zoneId).execute();
      columns = { name_servers: row.name_servers, dns_settings: row.dns_settings, zone_settings: row.zone_settings, ...set };
      await logChange(trx, zoneId, { serial, zone: columns });
      return { ...current, ...(change.dns ? { dns: change.dns } : {}), ...(change.zone ? { zone: change.zone } : {}) };
    });
    this.changeFeed.publish({ zoneId, kind: 'settings', serial, zone: columns });
    return state;
  }

  /** The parsed `accounts.settings` of an account (`{}` when unknown). */
  async readAccount(accountId: string): Promise<Json> {
    const row = await this.db.selectFrom('accounts').select('settings').where('id', '=', accountId).executeTakeFirst();
    return parseJsonObject(row?.settings);
  }

  /** Applies `mutate` to the account's stored settings atomically; returns the new settings. */
  async updateAccount(accountId: string, mutate: (settings: Json) => Json): Promise<Json> {
    return this.db.transaction().execute(async (trx) => {
      const row = await trx.selectFrom('accounts').select('settings').where('id', '=', accountId).executeTakeFirstOrThrow();
      const next = mutate(parseJsonObject(row.settings));
      await trx.updateTable('accounts').set({ settings: JSON.stringify(next) }).where('id', '=', accountId).execute();
      return next;
    });
  }
}
