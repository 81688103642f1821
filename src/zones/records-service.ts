/**
 * DNS records of a zone: create, read, list, overwrite (PUT), patch, delete.
 *
 * Invariants: every write is one transaction whose first statement bumps the zone's serial (and record
 * count); on SQLite that takes the write lock before the checks run, on PostgreSQL it locks the zone row, so
 * concurrent writers cannot both pass the CNAME/duplicate checks. The change feed is told after commit.
 * Body validation happens before the transaction and reports every problem at once.
 */
import type { Kysely, Transaction } from 'kysely';
import type { PlanLimits } from '../config/config.js';
import type { Database } from '../db/schema.js';
import type { DnsRecord } from '../dns/record.js';
import { AppError } from '../shared/errors.js';
import { isoTimestamp, type Clock } from '../shared/clock.js';
import { isId, newId } from '../shared/ids.js';
import type { ZoneChangeFeed } from './change-feed.js';
import { validateRecordBody, type RecordDraft } from './record-body.js';
import type { RecordWarning } from './record-name.js';
import { checkNameConflicts, checkProxiedCname } from './record-rules.js';
import { RECORD_META, recordToRow, rowToRecord } from './record-rows.js';
import { bumpSerial } from './serial.js';
import { listRecords, type RecordListQuery } from './record-list.js';

/** The zone a record operation acts on (already checked to belong to the caller). */
export interface ZoneRef {
  id: string;
  name: string;
}

/** Per-request facts record validation depends on. */
export interface RecordRequestContext {
  apiDate: string;
  /** Warnings to report in the envelope's `messages`. */
  warnings: RecordWarning[];
}

/** The error for an unknown record id. */
export function recordNotFound(): AppError {
  return new AppError(81044, 'Record does not exist.', 404);
}

/** Keys of a body that never reach validation (ignored at any api date). */
const IGNORED_KEYS = ['zone_id', 'zone_name', 'locked', 'id', 'meta', 'proxiable', 'created_on', 'modified_on', 'comment_modified_on', 'tags_modified_on'];

/** The records service. */
export class RecordsService {
  constructor(
    private readonly db: Kysely<Database>,
    private readonly clock: Clock,
    private readonly changeFeed: ZoneChangeFeed,
    private readonly plan: PlanLimits,
    private readonly serviceRanges: readonly string[],
  ) {}

  /** Validates a body (full or merged) against the zone. */
  private validate(zone: ZoneRef, body: Record<string, unknown>, ctx: RecordRequestContext): RecordDraft {
    const clean = { ...body };
    for (const key of IGNORED_KEYS) delete clean[key];
    return validateRecordBody(clean, { zoneName: zone.name, apiDate: ctx.apiDate, serviceRanges: this.serviceRanges, plan: this.plan }, ctx.warnings);
  }

  /** Creates a record. */
  async create(zone: ZoneRef, body: Record<string, unknown>, ctx: RecordRequestContext): Promise<DnsRecord> {
    const draft = this.validate(zone, body, ctx);
    const now = isoTimestamp(this.clock.now());
    const record: DnsRecord = {
      id: newId(), zoneId: zone.id, ...draft, meta: { ...RECORD_META },
      createdOn: now, modifiedOn: now,
      commentModifiedOn: draft.comment !== null ? now : null,
      tagsModifiedOn: draft.tags.length > 0 ? now : null,
    };
    await this.db.transaction().execute(async (trx) => {
      await bumpSerial(trx, zone.id, 1);
      const count = await trx.selectFrom('zones').select('record_count').where('id', '=', zone.id).executeTakeFirstOrThrow();
      if (count.record_count > this.plan.recordsPerZone) throw new AppError(81045, 'Record quota exceeded.');
      await this.checkRules(trx, zone, draft, null);
      await trx.insertInto('dns_records').values(recordToRow(record)).execute();
    });
    this.changeFeed.publish({ zoneId: zone.id, kind: 'records' });
    return record;
  }

  /** One record of the zone; 81044 when unknown. */
  async get(zone: ZoneRef, id: string): Promise<DnsRecord> {
    return this.load(this.db, zone, id);
  }

  /** One page of the zone's records (see record-list.ts). */
  list(zone: ZoneRef, query: RecordListQuery): Promise<{ records: DnsRecord[]; total: number }> {
    return listRecords(this.db, zone, query);
  }

  /** PUT: the body replaces the record; omitted fields take their defaults. */
  async overwrite(zone: ZoneRef, id: string, body: Record<string, unknown>, ctx: RecordRequestContext): Promise<DnsRecord> {
    await this.get(zone, id);
    const draft = this.validate(zone, body, ctx);
    return this.replace(zone, id, draft);
  }

  /** PATCH: only the fields given change; the result is validated as a whole. */
  async patch(zone: ZoneRef, id: string, body: Record<string, unknown>, ctx: RecordRequestContext): Promise<DnsRecord> {
    const current = await this.get(zone, id);
    const merged: Record<string, unknown> = {
      type: current.type, name: current.name, ttl: current.ttl, proxied: current.proxied,
      comment: current.comment, tags: current.tags, settings: current.settings,
      ...(current.data !== null ? { data: current.data } : { content: current.content }),
      ...(current.priority !== null ? { priority: current.priority } : {}),
    };
    const given = { ...body };
    for (const key of IGNORED_KEYS) delete given[key];
    // A new `data` replaces the old one (content is derived from it); a new `content` of a data type is ignored.
    if (given.type !== undefined && given.type !== current.type) { delete merged.data; delete merged.content; delete merged.priority; }
    else if (isObject(given.data) && isObject(merged.data)) given.data = { ...merged.data, ...given.data };
    const draft = this.validate(zone, { ...merged, ...given }, ctx);
    return this.replace(zone, id, draft);
  }

  /** Deletes a record; 81044 when unknown. */
  async delete(zone: ZoneRef, id: string): Promise<void> {
    if (!isId(id)) throw recordNotFound();
    await this.db.transaction().execute(async (trx) => {
      await bumpSerial(trx, zone.id, -1);
      const res = await trx.deleteFrom('dns_records').where('zone_id', '=', zone.id).where('id', '=', id).executeTakeFirst();
      if (Number(res.numDeletedRows) === 0) throw recordNotFound();
    });
    this.changeFeed.publish({ zoneId: zone.id, kind: 'records' });
  }

  /** Writes a new version of a record in one transaction (the checks see the record as removed). */
  private async replace(zone: ZoneRef, id: string, draft: RecordDraft): Promise<DnsRecord> {
    const now = isoTimestamp(this.clock.now());
    let saved: DnsRecord | undefined;
    await this.db.transaction().execute(async (trx) => {
      await bumpSerial(trx, zone.id, 0);
      const current = await this.load(trx, zone, id);
      await this.checkRules(trx, zone, draft, id);
      const commentChanged = draft.comment !== current.comment;
      const tagsChanged = JSON.stringify(draft.tags) !== JSON.stringify(current.tags);
      saved = {
        ...current, ...draft, modifiedOn: now,
        commentModifiedOn: draft.comment === null ? null : commentChanged ? now : current.commentModifiedOn ?? now,
        tagsModifiedOn: draft.tags.length === 0 ? null : tagsChanged ? now : current.tagsModifiedOn ?? now,
      };
      const { id: _id, zone_id: _zone, created_on: _created, ...row } = recordToRow(saved);
      await trx.updateTable('dns_records').set(row).where('id', '=', id).execute();
    });
    this.changeFeed.publish({ zoneId: zone.id, kind: 'records' });
    return saved!;
  }

  private async load(db: Kysely<Database> | Transaction<Database>, zone: ZoneRef, id: string): Promise<DnsRecord> {
    if (!isId(id)) throw recordNotFound();
    const row = await db.selectFrom('dns_records').selectAll().where('zone_id', '=', zone.id).where('id', '=', id).executeTakeFirst();
    if (!row) throw recordNotFound();
    return rowToRecord(row);
  }

  private async checkRules(trx: Transaction<Database>, zone: ZoneRef, draft: RecordDraft, selfId: string | null): Promise<void> {
    const atName = await trx.selectFrom('dns_records').select(['id', 'type', 'content', 'priority'])
      .where('zone_id', '=', zone.id).where('name', '=', draft.name).execute();
    checkNameConflicts(draft, atName.filter((r) => r.id !== selfId), zone.name);
    await checkProxiedCname(draft, zone.name, (name) => trx.selectFrom('dns_records').select(['type', 'content'])
      .where('zone_id', '=', zone.id).where('name', '=', name).where('id', '!=', selfId ?? '').execute());
  }
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}
