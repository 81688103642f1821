/**
 * DNS records of a zone: create, read, list, overwrite (PUT), patch, delete, and several writes as one
 * transaction ({@link RecordsService.transaction}, used by batches and zone-file imports).
 *
 * Invariants: every write runs in one transaction whose first statement bumps the zone's serial; on SQLite
 * that takes the write lock before the checks run, on PostgreSQL it locks the zone row, so concurrent writers
 * cannot both pass the CNAME/duplicate checks. The operations themselves live in records-transaction.ts, so
 * single writes, batches and imports share validation, rules, quota and timestamps. Each transaction writes
 * its changeset to the change log (change-log.ts) and, after commit, publishes it on the change feed.
 */
import type { Kysely } from 'kysely';
import type { PlanLimits } from '../config/config.js';
import type { Database } from '../db/schema.js';
import type { DnsRecord } from '../dns/record.js';
import type { Clock } from '../shared/clock.js';
import type { ZoneChangeFeed } from './change-feed.js';
import { bumpSerial } from './serial.js';
import { WriteQueue } from './write-queue.js';
import { logChange } from './change-log.js';
import { listRecords, type RecordListQuery } from './record-list.js';
import { zoneHasAddressRecord } from './list-query/address-records.js';
import { RecordsTransaction, type RecordRequestContext, type ZoneRef } from './records-transaction.js';
import { secondaryReadOnly } from './secondary-zone.js';
import './unique-keys.js';

export { recordNotFound, RecordsTransaction, type RecordRequestContext, type ZoneRef } from './records-transaction.js';

/** The records service. */
export class RecordsService {
  constructor(
    private readonly db: Kysely<Database>,
    private readonly clock: Clock,
    private readonly changeFeed: ZoneChangeFeed,
    private readonly plan: PlanLimits,
    private readonly serviceRanges: readonly string[],
    /** Called after commit when a transaction changed NS records of the zone (zone-ownership.ts decides the zones below it again). */
    private readonly onNsChange: (zone: ZoneRef) => Promise<void> = async () => {},
  ) {
    this.writes = new WriteQueue(db);
  }

  /** Write transactions, committed in groups when they arrive together (see write-queue.ts). */
  private readonly writes: WriteQueue;

  /**
   * Runs `fn` with record operations in one transaction: all of them are applied, or (when `fn` throws)
   * none. Concurrent calls share a commit (write-queue.ts) but stay independent: each is all or nothing. The serial goes up once; the change feed hears of it after commit.
   * A secondary zone refuses (1292) unless `secondaryCopy` (the transfer client writing its primary's copy).
   */
  async transaction<T>(zone: ZoneRef, fn: (tx: RecordsTransaction) => Promise<T>, opts: { secondaryCopy?: boolean } = {}): Promise<T> {
    let tx: RecordsTransaction | undefined;
    let serial = 0;
    const result = await this.writes.run(async (trx) => {
      const bumped = await bumpSerial(trx, zone.id, 0);
      // A secondary zone's records are its primary's copy: only the transfer client writes them.
      if (bumped.type === 'secondary' && opts.secondaryCopy !== true) throw secondaryReadOnly();
      // The copy of a zone deleted (or no longer found) meanwhile is dropped.
      if (opts.secondaryCopy === true && bumped.type !== 'secondary') throw new Error('the zone is gone: its copy is not written');
      serial = bumped.serial;
      tx = new RecordsTransaction(trx, zone, { clock: this.clock, plan: this.plan, serviceRanges: this.serviceRanges }, bumped.recordCount);
      const out = await fn(tx);
      await tx.finish();
      await logChange(trx, zone.id, { serial, records: tx.changes });
      return out;
    });
    if (tx) this.changeFeed.publish({ zoneId: zone.id, kind: 'records', serial, records: tx.changes });
    if (tx?.nsChanged) await this.onNsChange(zone);
    return result;
  }

  /** Creates a record. */
  create(zone: ZoneRef, body: Record<string, unknown>, ctx: RecordRequestContext): Promise<DnsRecord> {
    return this.transaction(zone, (tx) => tx.create(body, ctx));
  }

  /** One record of the zone; 81044 when unknown. */
  get(zone: ZoneRef, id: string): Promise<DnsRecord> {
    return new RecordsTransaction(this.db, zone, { clock: this.clock, plan: this.plan, serviceRanges: this.serviceRanges }, 0).get(id);
  }

  /** One page of the zone's records (see record-list.ts). */
  list(zone: ZoneRef, query: RecordListQuery): Promise<{ records: DnsRecord[]; total: number }> {
    return listRecords(this.db, zone, query);
  }

  /** True when the zone has an A, AAAA or CNAME record (list-query/address-records.ts). */
  hasAddressRecord(zone: ZoneRef): Promise<boolean> {
    return zoneHasAddressRecord(this.db, zone.id);
  }

  /** PUT: the body replaces the record; omitted fields take their defaults. */
  overwrite(zone: ZoneRef, id: string, body: Record<string, unknown>, ctx: RecordRequestContext): Promise<DnsRecord> {
    return this.transaction(zone, (tx) => tx.overwrite(id, body, ctx));
  }

  /** PATCH: only the fields given change; the result is validated as a whole. */
  patch(zone: ZoneRef, id: string, body: Record<string, unknown>, ctx: RecordRequestContext): Promise<DnsRecord> {
    return this.transaction(zone, (tx) => tx.patch(id, body, ctx));
  }

  /** Deletes a record; 81044 when unknown. */
  async delete(zone: ZoneRef, id: string): Promise<void> {
    await this.transaction(zone, (tx) => tx.delete(id));
  }
}
