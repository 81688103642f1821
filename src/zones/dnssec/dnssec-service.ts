/**
 * A zone's DNSSEC state through the v4 API: turning signing on (a new key, status `pending`), off, options,
 * and the transitions that wait on the parent (docs/compatibility.md, "DNSSEC status"):
 *
 * - `pending` -> `active`: when the parent zone is also in Stratus, once it holds a DS matching the key;
 *   otherwise at the first read after enabling (Stratus cannot see a registrar; answers are signed as soon as
 *   the PATCH returns).
 * - turning off: `pending-disabled` while a parent in Stratus still holds the matching DS (answers stay
 *   signed and CDS/CDNSKEY announce the delete, RFC 8078), then `disabled`; straight to `disabled` otherwise.
 *   `disabled` drops the key, so enabling again makes a new one (a rollover by re-enabling).
 *
 * Every change runs like a settings change (settings/settings-store.ts): the serial is bumped first (the zone's
 * write lock), the new `zones.dnssec` is logged with the zone's served columns and announced after commit,
 * so every node's DNS server applies it.
 */
import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema.js';
import type { Clock } from '../../shared/clock.js';
import type { ZoneChangeFeed, ZoneColumns } from '../change-feed.js';
import type { SecretBox } from '../../shared/secret-box.js';
import { logChange } from '../change-log.js';
import { bumpSerial } from '../serial.js';
import { DNSSEC_OFF, keyContext, parseZoneDnssec, type ZoneDnssec } from '../../dns/dnssec/config.js';
import { ALGORITHM_ECDSAP256SHA256, CSK_FLAGS, dnskeyRdata, dsDigest, generateZoneKey } from '../../dns/dnssec/keys.js';
import type { DnssecPatch } from './dnssec-view.js';
import { secondaryDnssecRefused } from '../secondary-zone.js';

/** A zone as the service needs it. */
export interface DnssecZone {
  id: string;
  name: string;
}

/** Reads and changes zones' DNSSEC state. */
export class DnssecService {
  constructor(private readonly db: Kysely<Database>, private readonly changeFeed: ZoneChangeFeed, private readonly box: SecretBox, private readonly clock: Clock) {}

  /** The zone's state, after the transitions that wait on the parent. */
  async read(zone: DnssecZone): Promise<ZoneDnssec> {
    const current = await this.stored(zone.id);
    if (current.status === 'pending' || current.status === 'pending-disabled') {
      const parent = await this.parentHasDs(zone.name, current);
      if (current.status === 'pending' && parent !== false) return this.write(zone.id, (d) => (d.status === 'pending' ? { ...d, status: 'active', modifiedOn: this.now() } : d));
      if (current.status === 'pending-disabled' && parent !== true) return this.write(zone.id, (d) => (d.status === 'pending-disabled' ? this.off(d) : d));
    }
    return current;
  }

  /** Applies a PATCH. */
  async patch(zone: DnssecZone, p: DnssecPatch): Promise<ZoneDnssec> {
    const before = await this.stored(zone.id);
    const parentDs = p.status === 'disabled' && before.key ? await this.parentHasDs(zone.name, before) : undefined;
    return this.write(zone.id, (d) => {
      let next: ZoneDnssec = {
        ...d,
        useNsec3: p.useNsec3 ?? d.useNsec3,
        multiSigner: p.multiSigner ?? d.multiSigner,
        presigned: p.presigned ?? d.presigned,
      };
      if (p.status === 'active') {
        if (!next.key) next = { ...next, status: 'pending', key: this.newKey(zone) };
        else if (next.status === 'pending-disabled') next = { ...next, status: 'active' };
      } else if (p.status === 'disabled' && next.status !== 'disabled') {
        next = parentDs === true ? { ...next, status: 'pending-disabled' } : this.off(next);
      }
      return { ...next, modifiedOn: this.now() };
    });
  }

  /** DELETE: signing stops at once and the key is dropped. */
  async remove(zone: DnssecZone): Promise<ZoneDnssec> {
    return this.write(zone.id, (d) => ({ ...this.off(d), modifiedOn: this.now() }));
  }

  private off(d: ZoneDnssec): ZoneDnssec {
    return { ...d, status: 'disabled', key: null };
  }

  private now(): string {
    return this.clock.now().toISOString();
  }

  private newKey(zone: DnssecZone): ZoneDnssec['key'] {
    const k = generateZoneKey(CSK_FLAGS);
    return {
      tag: k.tag, flags: CSK_FLAGS, algorithm: ALGORITHM_ECDSAP256SHA256, publicKey: k.publicKey,
      sealedPrivateKey: this.box.seal(k.privateKeyDer, keyContext(zone.id, k.tag)), createdOn: this.now(),
    };
  }

  private async stored(zoneId: string): Promise<ZoneDnssec> {
    const row = await this.db.selectFrom('zones').select('dnssec').where('id', '=', zoneId).executeTakeFirst();
    return row ? parseZoneDnssec(row.dnssec) : DNSSEC_OFF;
  }

  /**
   * Whether the parent zone, when Stratus hosts it, holds a DS matching the zone's key: true or false, or
   * undefined when the parent is not in Stratus.
   */
  private async parentHasDs(name: string, d: ZoneDnssec): Promise<boolean | undefined> {
    const suffixes: string[] = [];
    for (let n = name.indexOf('.') < 0 ? '' : name.slice(name.indexOf('.') + 1); n !== ''; n = n.indexOf('.') < 0 ? '' : n.slice(n.indexOf('.') + 1)) suffixes.push(n);
    if (suffixes.length === 0) return undefined;
    const parents = await this.db.selectFrom('zones').select(['id', 'name']).where('name', 'in', suffixes).where('status', '=', 'active').execute();
    const parent = parents.sort((a, b) => b.name.length - a.name.length)[0];
    if (!parent) return undefined;
    if (!d.key) return false;
    const digest = dsDigest(name, dnskeyRdata(d.key.flags, d.key.algorithm, Buffer.from(d.key.publicKey, 'base64')));
    const rows = await this.db.selectFrom('dns_records').select('content').where('zone_id', '=', parent.id).where('type', '=', 'DS').where('name', '=', name).execute();
    return rows.some((r) => {
      const [tag, alg, type, ...hex] = r.content.trim().split(/\s+/);
      return Number(tag) === d.key!.tag && Number(alg) === d.key!.algorithm && Number(type) === 2 && hex.join('').toUpperCase() === digest;
    });
  }

  /** Changes the state in one transaction with a serial bump, logs and announces it (see the module comment). */
  private async write(zoneId: string, mutate: (d: ZoneDnssec) => ZoneDnssec): Promise<ZoneDnssec> {
    let columns: ZoneColumns | undefined;
    let serial = 0;
    const next = await this.db.transaction().execute(async (trx) => {
      const bumped = await bumpSerial(trx, zoneId);
      if (bumped.type === 'secondary') throw secondaryDnssecRefused();
      serial = bumped.serial;
      const row = await trx.selectFrom('zones').select(['dns_settings', 'zone_settings', 'name_servers', 'dnssec']).where('id', '=', zoneId).executeTakeFirstOrThrow();
      const state = mutate(parseZoneDnssec(row.dnssec));
      const json = JSON.stringify(state);
      await trx.updateTable('zones').set({ dnssec: json }).where('id', '=', zoneId).execute();
      columns = { ...row, dnssec: json };
      await logChange(trx, zoneId, { serial, zone: columns });
      return state;
    });
    this.changeFeed.publish({ zoneId, kind: 'settings', serial, zone: columns });
    return next;
  }
}
