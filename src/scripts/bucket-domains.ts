/**
 * Public hostnames of buckets (`r2_domains`), which the edge serves objects on (GET/HEAD only):
 * - the development hostname (`managed`): `pub-<id>.<--public-domain>`, where `<id>` is 32 hex digits derived
 *   from the account and bucket name (stable across enable/disable; the same bucket name in another account has
 *   another id), served once enabled;
 * - custom domains (`custom`): a hostname of one of the account's active zones (the most specific active zone
 *   holding the name), unique across the instance. A row goes with its zone: deleting the zone deletes it, and while
 *   its zone is not active (or not the row's account's) it is not served and no longer holds the hostname (the
 *   next attach of that hostname replaces it).
 *
 * Every write bumps the edge serial in its transaction and is announced after commit (`EdgeChanges`), so every
 * node's edge forgets what it remembered of the hostname.
 */
import { createHash } from 'node:crypto';
import type { Kysely, Transaction } from 'kysely';
import type { Database, R2DomainsTable } from '../db/schema.js';
import type { Clock } from '../shared/clock.js';
import { bumpEdgeSerial, type EdgeChanges } from '../db/edge-serial.js';

/** A stored public hostname. */
export type BucketDomain = R2DomainsTable;

/** The development hostname's id of a bucket of an account. */
export function managedDomainId(accountId: string, bucket: string): string {
  return createHash('sha256').update(`${accountId}/${bucket}`).digest('hex').slice(0, 32);
}

/** The live row of a hostname (see {@link BucketDomains.held}). */
async function liveHolder(db: Kysely<Database> | Transaction<Database>, hostname: string): Promise<BucketDomain | undefined> {
  const row = await db.selectFrom('r2_domains').selectAll().where('hostname', '=', hostname).executeTakeFirst();
  if (!row || row.kind === 'managed') return row;
  const zone = row.zone_id === null ? undefined : await db.selectFrom('zones').select('id').where('id', '=', row.zone_id)
    .where('account_id', '=', row.account_id).where('status', '=', 'active').executeTakeFirst();
  return zone ? row : undefined;
}

/** Reads and writes a bucket's public hostnames. */
export class BucketDomains {
  constructor(private readonly db: Kysely<Database>, private readonly clock: Clock, private readonly changes: EdgeChanges, readonly publicDomain: string) {}

  /** The development hostname of a bucket. */
  managedHostname(accountId: string, bucket: string): string {
    return `pub-${managedDomainId(accountId, bucket)}.${this.publicDomain}`;
  }

  /** The bucket's domains of one kind. */
  list(accountId: string, bucket: string, kind: 'managed' | 'custom'): Promise<BucketDomain[]> {
    return this.db.selectFrom('r2_domains').selectAll().where('account_id', '=', accountId).where('bucket', '=', bucket)
      .where('kind', '=', kind).orderBy('hostname').execute();
  }

  /** One hostname's row, whoever owns it. */
  find(hostname: string): Promise<BucketDomain | undefined> {
    return this.db.selectFrom('r2_domains').selectAll().where('hostname', '=', hostname).executeTakeFirst();
  }

  /** The most specific active zone holding a hostname (whoever owns it), or undefined. */
  async activeZoneOf(hostname: string): Promise<{ id: string; name: string; account_id: string } | undefined> {
    const labels = hostname.split('.');
    const suffixes = labels.map((_, i) => labels.slice(i).join('.'));
    const zones = await this.db.selectFrom('zones').select(['id', 'name', 'account_id']).where('name', 'in', suffixes).where('status', '=', 'active').execute();
    return zones.sort((a, b) => b.name.length - a.name.length)[0];
  }

  /** True when the zone exists and is active. */
  async zoneActive(zoneId: string): Promise<boolean> {
    return (await this.db.selectFrom('zones').select('id').where('id', '=', zoneId).where('status', '=', 'active').executeTakeFirst()) !== undefined;
  }

  /** The row holding a hostname: the development hostname, or a custom domain whose zone is active and its account's. */
  held(hostname: string): Promise<BucketDomain | undefined> {
    return liveHolder(this.db, hostname);
  }

  /** Ids of the proxied CNAME records a custom domain was created with (name and content as made). */
  async recordsOf(zoneId: string, hostname: string, content: string): Promise<string[]> {
    const rows = await this.db.selectFrom('dns_records').select('id').where('zone_id', '=', zoneId).where('name', '=', hostname)
      .where('type', '=', 'CNAME').where('content', '=', content).execute();
    return rows.map((r) => r.id);
  }

  /** Turns the development hostname on or off. */
  async setManaged(accountId: string, bucket: string, bucketCreated: string, enabled: boolean): Promise<void> {
    const hostname = this.managedHostname(accountId, bucket);
    await this.db.transaction().execute(async (trx) => {
      await trx.deleteFrom('r2_domains').where('hostname', '=', hostname).execute();
      await trx.insertInto('r2_domains').values({
        hostname, account_id: accountId, bucket, bucket_created: bucketCreated, kind: 'managed', zone_id: null, enabled: enabled ? 1 : 0, min_tls: null, created_on: this.clock.now().toISOString(),
      }).execute();
      await bumpEdgeSerial(trx);
    });
    this.changes.publish();
  }

  /**
   * Adds a custom domain; false when the hostname is a live public hostname already. A custom domain row whose zone
   * is gone, not active or not its account's holds nothing: it is replaced.
   */
  async addCustom(row: Omit<BucketDomain, 'kind' | 'created_on'>): Promise<boolean> {
    const added = await this.db.transaction().execute(async (trx) => {
      if (await liveHolder(trx, row.hostname)) return false;
      await trx.deleteFrom('r2_domains').where('hostname', '=', row.hostname).execute();
      await trx.insertInto('r2_domains').values({ ...row, kind: 'custom', created_on: this.clock.now().toISOString() }).execute();
      await bumpEdgeSerial(trx);
      return true;
    });
    if (added) this.changes.publish();
    return added;
  }

  /** Changes a custom domain of the bucket; false when it has none of that name. */
  async updateCustom(accountId: string, bucket: string, hostname: string, change: { enabled?: boolean; minTls?: string }): Promise<boolean> {
    const set: Partial<BucketDomain> = {};
    if (change.enabled !== undefined) set.enabled = change.enabled ? 1 : 0;
    if (change.minTls !== undefined) set.min_tls = change.minTls;
    const done = await this.db.transaction().execute(async (trx) => {
      const res = await trx.updateTable('r2_domains').set({ ...set, hostname }).where('hostname', '=', hostname).where('account_id', '=', accountId)
        .where('bucket', '=', bucket).where('kind', '=', 'custom').executeTakeFirst();
      if (Number(res.numUpdatedRows) === 0) return false;
      await bumpEdgeSerial(trx);
      return true;
    });
    if (done) this.changes.publish();
    return done;
  }

  /** Removes a custom domain of the bucket; the removed row, or undefined when it has none of that name. */
  async removeCustom(accountId: string, bucket: string, hostname: string): Promise<BucketDomain | undefined> {
    const removed = await this.db.transaction().execute(async (trx) => {
      const row = await trx.selectFrom('r2_domains').selectAll().where('hostname', '=', hostname).where('account_id', '=', accountId)
        .where('bucket', '=', bucket).where('kind', '=', 'custom').executeTakeFirst();
      if (!row) return undefined;
      await trx.deleteFrom('r2_domains').where('hostname', '=', hostname).execute();
      await bumpEdgeSerial(trx);
      return row;
    });
    if (removed) this.changes.publish();
    return removed;
  }
}
