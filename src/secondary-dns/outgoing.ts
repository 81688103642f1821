/**
 * A zone's outgoing transfer settings (`/zones/:zone_id/secondary_dns/outgoing`, the SDK's
 * `dns.zoneTransfers.outgoing`): the peers (ids of the account's peers) NOTIFYed on every change and allowed
 * to transfer the zone (with their TSIG key when they have one), besides the account's ACLs. Created
 * disabled, as production: `enable` turns transfers and NOTIFY on, `disable` refuses every transfer of the
 * zone. Zones without outgoing settings keep the instance's `--transfer-allow` and `--notify`.
 */
import type { Kysely, Transaction } from 'kysely';
import type { Database } from '../db/schema.js';
import { AppError } from '../shared/errors.js';
import { INVALID_SECONDARY_DNS, OUTGOING_STATE } from './errors.js';
import { bumpSecondaryDnsSerial } from './account-objects.js';
import { secondaryDnsChanged } from './change-signal.js';

/** Outgoing settings as the API shows them. */
export interface OutgoingView {
  id: string;
  name: string;
  peers: string[];
  created_time: string;
  checked_time: string;
  last_transferred_time?: string;
  soa_serial: number;
}

/** A zone as the outgoing routes need it. */
export interface OutgoingZone { id: string; name: string; accountId: string }

const noSettings = () => new AppError(OUTGOING_STATE, 'Outgoing zone transfers are not configured for this zone', 400);

/** The outgoing settings of zones. */
export class OutgoingSettings {
  constructor(private readonly db: Kysely<Database>) {}

  private async view(row: Database['secondary_dns_outgoing']): Promise<OutgoingView> {
    const zone = await this.db.selectFrom('zones').select('serial').where('id', '=', row.zone_id).executeTakeFirst();
    return {
      id: row.id, name: row.name, peers: JSON.parse(row.peers) as string[], created_time: row.created_time, checked_time: new Date().toISOString(),
      ...(row.last_transferred_time ? { last_transferred_time: row.last_transferred_time } : {}),
      soa_serial: Number(zone?.serial ?? 0),
    };
  }

  private async row(zoneId: string): Promise<Database['secondary_dns_outgoing'] | undefined> {
    return this.db.selectFrom('secondary_dns_outgoing').selectAll().where('zone_id', '=', zoneId).executeTakeFirst();
  }

  private async body(zone: OutgoingZone, body: Record<string, unknown>): Promise<{ name: string; peers: string[] }> {
    const name = body.name;
    if (typeof name !== 'string' || name.trim() === '') throw new AppError(INVALID_SECONDARY_DNS, 'Invalid name: required (the zone name)', 400);
    if (name.toLowerCase().replace(/\.$/, '') !== zone.name.toLowerCase()) throw new AppError(INVALID_SECONDARY_DNS, `Invalid name: expected the zone's name ${zone.name}.`, 400);
    const peers = body.peers;
    if (!Array.isArray(peers) || peers.some((p) => typeof p !== 'string')) throw new AppError(INVALID_SECONDARY_DNS, 'Invalid peers: expected an array of peer ids', 400);
    const ids = [...new Set(peers as string[])];
    if (ids.length) {
      const found = await this.db.selectFrom('secondary_dns_peers').select('id').where('account_id', '=', zone.accountId).where('id', 'in', ids).execute();
      const missing = ids.filter((id) => !found.some((f) => f.id === id));
      if (missing.length) throw new AppError(INVALID_SECONDARY_DNS, `Invalid peers: no peer ${missing.join(', ')} in this account`, 400);
    }
    return { name: name.trim(), peers: ids };
  }

  /** The zone's settings (1291 when none). */
  async get(zone: OutgoingZone): Promise<OutgoingView> {
    const row = await this.row(zone.id);
    if (!row) throw noSettings();
    return this.view(row);
  }

  /** Creates the zone's settings, disabled (1291 when they exist). */
  async create(zone: OutgoingZone, body: Record<string, unknown>): Promise<OutgoingView> {
    const b = await this.body(zone, body);
    if (await this.row(zone.id)) throw new AppError(OUTGOING_STATE, 'Outgoing zone transfers are already configured for this zone', 400);
    const now = new Date().toISOString();
    const row = { zone_id: zone.id, account_id: zone.accountId, id: zone.id, name: b.name, peers: JSON.stringify(b.peers), enabled: 0, created_time: now, checked_time: now, last_transferred_time: null };
    await this.write((trx) => trx.insertInto('secondary_dns_outgoing').values(row).execute());
    return this.view(row);
  }

  /** Replaces name and peers. */
  async update(zone: OutgoingZone, body: Record<string, unknown>): Promise<OutgoingView> {
    const b = await this.body(zone, body);
    await this.write(async (trx) => {
      const res = await trx.updateTable('secondary_dns_outgoing').set({ name: b.name, peers: JSON.stringify(b.peers) }).where('zone_id', '=', zone.id).executeTakeFirst();
      if (Number(res.numUpdatedRows) === 0) throw noSettings();
    });
    return this.get(zone);
  }

  /** Deletes the settings (the zone goes back to the instance's defaults). */
  async delete(zone: OutgoingZone): Promise<void> {
    await this.write(async (trx) => {
      const res = await trx.deleteFrom('secondary_dns_outgoing').where('zone_id', '=', zone.id).executeTakeFirst();
      if (Number(res.numDeletedRows) === 0) throw noSettings();
    });
  }

  /** Turns transfers on or off; returns production's status text. */
  async setEnabled(zone: OutgoingZone, enabled: boolean): Promise<string> {
    await this.write(async (trx) => {
      const res = await trx.updateTable('secondary_dns_outgoing').set({ enabled: enabled ? 1 : 0 }).where('zone_id', '=', zone.id).executeTakeFirst();
      if (Number(res.numUpdatedRows) === 0) throw noSettings();
    });
    return enabled ? 'Enabled' : 'Disabled';
  }

  /** `Enabled` or `Disabled` (1291 without settings). */
  async status(zone: OutgoingZone): Promise<string> {
    const row = await this.row(zone.id);
    if (!row) throw noSettings();
    return row.enabled === 1 ? 'Enabled' : 'Disabled';
  }

  private async write(fn: (trx: Transaction<Database>) => Promise<unknown>): Promise<void> {
    await this.db.transaction().execute(async (trx) => {
      await fn(trx);
      await bumpSecondaryDnsSerial(trx);
    });
    secondaryDnsChanged();
  }
}
