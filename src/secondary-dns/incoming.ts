/**
 * A secondary zone's incoming settings (`/zones/:zone_id/secondary_dns/incoming`, the SDK's
 * `dns.zoneTransfers.incoming`): its primaries (ids of the account's peers, each with an address), how often the
 * primary's SOA is checked (`auto_refresh_seconds`), and what the last pull found (`soa_serial`, `checked_time`).
 * Only zones created with `type: "secondary"` take them. `force_axfr` makes the next pull a full transfer, at
 * once. The pulls themselves are refresh-loop.ts's.
 */
import type { Kysely } from 'kysely';
import type { Database } from '../db/schema.js';
import { AppError } from '../shared/errors.js';
import { INCOMING_STATE, INVALID_SECONDARY_DNS } from './errors.js';
import { bumpSecondaryDnsSerial } from './account-objects.js';
import { requestPull, secondaryDnsChanged } from './change-signal.js';

/** Incoming settings as the API shows them. */
export interface IncomingView {
  id: string;
  name: string;
  peers: string[];
  auto_refresh_seconds: number;
  created_time: string;
  modified_time: string;
  checked_time?: string;
  soa_serial?: number;
  /** When the zone last took a transfer (AXFR, or IXFR with changes) from a primary. */
  last_transferred_time?: string;
  /** Stratus's addition: why the last check failed (or which records of the primary are not served). */
  error?: string;
}

/** A zone as the incoming routes need it. */
export interface IncomingZone { id: string; name: string; accountId: string; type: string }

/** Shortest and longest refresh period accepted (seconds). */
export const REFRESH_LIMITS = { min: 1, max: 2_592_000 } as const;

const noSettings = () => new AppError(INCOMING_STATE, 'Incoming zone transfers are not configured for this zone', 400);
const bad = (m: string) => new AppError(INVALID_SECONDARY_DNS, m, 400);

/** The stored row as the API shows it. */
export function incomingView(row: Database['secondary_dns_incoming']): IncomingView {
  return {
    id: row.zone_id, name: row.name, peers: JSON.parse(row.peers) as string[], auto_refresh_seconds: row.auto_refresh_seconds,
    created_time: row.created_time, modified_time: row.modified_time,
    ...(row.checked_time ? { checked_time: row.checked_time } : {}),
    ...(row.soa_serial !== null ? { soa_serial: Number(row.soa_serial) } : {}),
    ...(row.last_transferred_time ? { last_transferred_time: row.last_transferred_time } : {}),
    ...(row.error ? { error: row.error } : {}),
  };
}

/** The incoming settings of secondary zones. */
export class IncomingSettings {
  constructor(private readonly db: Kysely<Database>) {}

  private row(zoneId: string): Promise<Database['secondary_dns_incoming'] | undefined> {
    return this.db.selectFrom('secondary_dns_incoming').selectAll().where('zone_id', '=', zoneId).executeTakeFirst();
  }

  private async body(zone: IncomingZone, body: Record<string, unknown>): Promise<{ name: string; peers: string[]; refresh: number }> {
    if (zone.type !== 'secondary') throw new AppError(INCOMING_STATE, 'Incoming zone transfers are only for secondary zones: create the zone with "type": "secondary"', 400);
    const name = body.name;
    if (typeof name !== 'string' || name.trim() === '') throw bad('Invalid name: required (the zone name)');
    if (name.toLowerCase().trim().replace(/\.$/, '') !== zone.name.toLowerCase()) throw bad(`Invalid name: expected the zone's name ${zone.name}.`);
    const refresh = body.auto_refresh_seconds;
    if (typeof refresh !== 'number' || !Number.isInteger(refresh) || refresh < REFRESH_LIMITS.min || refresh > REFRESH_LIMITS.max) {
      throw bad(`Invalid auto_refresh_seconds: expected an integer from ${REFRESH_LIMITS.min} to ${REFRESH_LIMITS.max}`);
    }
    const peers = body.peers;
    if (!Array.isArray(peers) || peers.length === 0 || peers.some((p) => typeof p !== 'string')) throw bad('Invalid peers: expected a non-empty array of peer ids (the primaries)');
    const ids = [...new Set(peers as string[])];
    const found = await this.db.selectFrom('secondary_dns_peers').select(['id', 'ip']).where('account_id', '=', zone.accountId).where('id', 'in', ids).execute();
    const missing = ids.filter((id) => !found.some((f) => f.id === id));
    if (missing.length) throw bad(`Invalid peers: no peer ${missing.join(', ')} in this account`);
    const noIp = found.filter((f) => f.ip === null).map((f) => f.id);
    if (noIp.length) throw bad(`Invalid peers: a primary needs an address; peer ${noIp.join(', ')} has no ip`);
    return { name: name.trim(), peers: ids, refresh };
  }

  /** The zone's settings (1293 when none). */
  async get(zone: IncomingZone): Promise<IncomingView> {
    const row = await this.row(zone.id);
    if (!row) throw noSettings();
    return incomingView(row);
  }

  /** Creates the settings; the first pull starts at once. */
  async create(zone: IncomingZone, body: Record<string, unknown>): Promise<IncomingView> {
    const b = await this.body(zone, body);
    if (await this.row(zone.id)) throw new AppError(INCOMING_STATE, 'Incoming zone transfers are already configured for this zone', 400);
    const now = new Date().toISOString();
    const row: Database['secondary_dns_incoming'] = {
      zone_id: zone.id, account_id: zone.accountId, name: b.name, peers: JSON.stringify(b.peers), auto_refresh_seconds: b.refresh,
      created_time: now, modified_time: now, checked_time: null, soa_serial: null, last_transferred_time: null, error: null, force_axfr: 1, next_refresh_ms: 0,
      lease_holder: null, lease_expires_ms: 0,
    };
    await this.db.transaction().execute(async (trx) => {
      await trx.insertInto('secondary_dns_incoming').values(row).execute();
      await bumpSecondaryDnsSerial(trx);
    });
    this.changed(zone.id);
    return incomingView(row);
  }

  /** Replaces name, primaries and refresh period; the next pull starts at once. */
  async update(zone: IncomingZone, body: Record<string, unknown>): Promise<IncomingView> {
    const b = await this.body(zone, body);
    await this.db.transaction().execute(async (trx) => {
      const res = await trx.updateTable('secondary_dns_incoming')
        .set({ name: b.name, peers: JSON.stringify(b.peers), auto_refresh_seconds: b.refresh, modified_time: new Date().toISOString(), next_refresh_ms: 0 })
        .where('zone_id', '=', zone.id).executeTakeFirst();
      if (Number(res.numUpdatedRows) === 0) throw noSettings();
      await bumpSecondaryDnsSerial(trx);
    });
    this.changed(zone.id);
    return this.get(zone);
  }

  /** Deletes the settings: pulls stop; the zone keeps the copy it has. */
  async delete(zone: IncomingZone): Promise<void> {
    await this.db.transaction().execute(async (trx) => {
      const res = await trx.deleteFrom('secondary_dns_incoming').where('zone_id', '=', zone.id).executeTakeFirst();
      if (Number(res.numDeletedRows) === 0) throw noSettings();
      await bumpSecondaryDnsSerial(trx);
    });
    secondaryDnsChanged();
  }

  /** `force_axfr`: the next pull, at once, is a full transfer. */
  async forceAxfr(zone: IncomingZone): Promise<void> {
    const res = await this.db.updateTable('secondary_dns_incoming').set({ force_axfr: 1, next_refresh_ms: 0 }).where('zone_id', '=', zone.id).executeTakeFirst();
    if (Number(res.numUpdatedRows) === 0) throw noSettings();
    requestPull(zone.id);
  }

  private changed(zoneId: string): void {
    secondaryDnsChanged();
    requestPull(zoneId);
  }
}
