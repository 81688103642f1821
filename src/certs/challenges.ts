/**
 * DNS-01 challenge values (RFC 8555 §8.4) answered by Stratus's own DNS: a row in `acme_challenges` (never a
 * record of the zone: the records API, exports and record counts never see it) plus a changeset of the zone
 * (a serial bump and a change-log entry with a synthetic TXT record), published on this node at once and read
 * from the change log by every other node sharing the database; a full zone load reads the rows too
 * (dns-server/zone-load.ts), so a reload in the middle of a validation keeps them.
 */
import { randomUUID } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { Database } from '../db/schema.js';
import type { SnapshotRecord } from '../dns/snapshot.js';
import type { ZoneChangeFeed } from '../zones/change-feed.js';
import { logChange } from '../zones/change-log.js';
import { bumpSerial } from '../zones/serial.js';

/** TTL of a challenge TXT record (s). */
const CHALLENGE_TTL = 60;

/** The served form of a challenge value. */
export function challengeRecord(id: string, name: string, value: string): SnapshotRecord {
  return { id, name, type: 'TXT', content: `"${value}"`, data: null, priority: null, ttl: CHALLENGE_TTL, proxied: false, settings: {} };
}

/** The challenge records of a zone as served (for a full zone load). */
export async function zoneChallengeRecords(db: Kysely<Database>, zoneId: string): Promise<SnapshotRecord[]> {
  const rows = await db.selectFrom('acme_challenges').select(['id', 'name', 'content']).where('zone_id', '=', zoneId).execute();
  return rows.map((r) => challengeRecord(r.id, r.name, r.content));
}

/** Puts challenge values into zones' DNS answers and takes them out. */
export class ChallengeRecords {
  constructor(private readonly db: Kysely<Database>, private readonly feed: ZoneChangeFeed) {}

  /** Serves `value` as a TXT record at `name` in the zone; returns the challenge's id (for {@link remove}). */
  async add(zoneId: string, name: string, value: string): Promise<{ id: string; serial: number }> {
    const id = `acme-${randomUUID()}`;
    const record = challengeRecord(id, name.toLowerCase(), value);
    const serial = await this.db.transaction().execute(async (trx) => {
      const s = (await bumpSerial(trx, zoneId)).serial;
      await trx.insertInto('acme_challenges').values({ id, zone_id: zoneId, name: record.name, content: value, created_ms: Date.now() }).execute();
      await logChange(trx, zoneId, { serial: s, records: [{ id, before: null, after: record }] });
      return s;
    });
    this.feed.publish({ zoneId, kind: 'records', serial, records: [{ id, before: null, after: record }] });
    return { id, serial };
  }

  /** Takes a challenge value out of the zone's answers (nothing when it is gone already). */
  async remove(zoneId: string, id: string): Promise<void> {
    const row = await this.db.selectFrom('acme_challenges').selectAll().where('id', '=', id).executeTakeFirst();
    if (!row) return;
    const record = challengeRecord(id, row.name, row.content);
    const zone = await this.db.selectFrom('zones').select('id').where('id', '=', zoneId).executeTakeFirst();
    if (!zone) { await this.db.deleteFrom('acme_challenges').where('id', '=', id).execute(); return; }
    const serial = await this.db.transaction().execute(async (trx) => {
      const s = (await bumpSerial(trx, zoneId)).serial;
      await trx.deleteFrom('acme_challenges').where('id', '=', id).execute();
      await logChange(trx, zoneId, { serial: s, records: [{ id, before: record, after: null }] });
      return s;
    });
    this.feed.publish({ zoneId, kind: 'records', serial, records: [{ id, before: record, after: null }] });
  }

  /** Removes challenge values older than `maxAgeMs` (left by a node that died mid-validation). */
  async sweep(maxAgeMs: number): Promise<void> {
    const rows = await this.db.selectFrom('acme_challenges').select(['id', 'zone_id']).where('created_ms', '<', Date.now() - maxAgeMs).execute();
    for (const r of rows) await this.remove(r.zone_id, r.id);
  }
}
