/**
 * Record writes inside one database transaction: the single operations of the records service, batches
 * and zone-file imports all go through {@link RecordsTransaction}, so every path applies the same
 * validation, conflict rules, quota and timestamps.
 *
 * Invariants: the transaction is opened by `RecordsService.transaction`, whose first statement bumps the
 * zone's serial once (taking SQLite's write lock / PostgreSQL's zone row lock before any check runs); each
 * operation sees the effects of the ones before it; the zone's record count is adjusted once at the end
 * ({@link finish}); nothing is published here (the service tells the change feed after commit).
 */
import { sql, type Kysely } from 'kysely';
import type { PlanLimits } from '../config/config.js';
import type { Database } from '../db/schema.js';
import { QueryTemplate } from '../db/query-template.js';
import { MultiRowInsert } from '../db/multi-row-insert.js';
import { PRESIGNED_TYPES, type DnsRecord } from '../dns/record.js';
import { AppError } from '../shared/errors.js';
import { isoTimestamp, type Clock } from '../shared/clock.js';
import { isId, newOrderedId } from '../shared/ids.js';
import { validateRecordBody, type RecordDraft } from './record-body.js';
import type { RecordWarning } from './record-name.js';
import { checkNameConflicts, checkProxiedCname } from './record-rules.js';
import { RECORD_META, recordToRow, rowToRecord, servedRecord, type RecordRow } from './record-rows.js';
import type { RecordChange } from './change-feed.js';
import { faultOf } from '../shared/faults.js';
import { parseZoneDnssec, type ZoneDnssec } from '../dns/dnssec/config.js';
import { checkDnssecRecord } from './dnssec-record-rules.js';

export { DNSKEY_NEEDS_MULTI_SIGNER } from './dnssec-record-rules.js';

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

/** What a transaction needs besides the database handle. */
export interface RecordsTransactionDeps {
  clock: Clock;
  plan: PlanLimits;
  serviceRanges: readonly string[];
}

/** The error for an unknown record id. */
export function recordNotFound(): AppError {
  return new AppError(81044, 'Record does not exist.', 404);
}

/** Keys of a body that never reach validation (ignored at any api date). */
const IGNORED_KEYS = ['zone_id', 'zone_name', 'locked', 'id', 'meta', 'proxiable', 'created_on', 'modified_on', 'comment_modified_on', 'tags_modified_on'];

/** Record operations sharing one open transaction. */
export class RecordsTransaction {
  private countDelta = 0;
  /** True once any record was written. */
  changed = false;
  /** Every record written, before and after, in order (the changeset the change feed and log carry). */
  readonly changes: RecordChange[] = [];
  /** True once an NS record was written or removed (delegations of names below the zone may have changed). */
  nsChanged = false;
  /** The zone's `dnssec_multi_signer`, read once when a DNSKEY record is written. */
  private dnssec: ZoneDnssec | undefined;

  constructor(
    /** The open transaction (plain reads may pass the database itself). */
    private readonly trx: Kysely<Database>,
    private readonly zone: ZoneRef,
    private readonly deps: RecordsTransactionDeps,
    private readonly startCount: number,
  ) {}

  /** Validates a body (full or merged) against the zone. */
  validate(body: Record<string, unknown>, ctx: RecordRequestContext, soaAllowed = false): RecordDraft {
    const clean = { ...body };
    for (const key of IGNORED_KEYS) delete clean[key];
    return validateRecordBody(clean, { zoneName: this.zone.name, apiDate: ctx.apiDate, serviceRanges: this.deps.serviceRanges, plan: this.deps.plan, soaAllowed }, ctx.warnings);
  }

  /** Creates a record from a body. */
  async create(body: Record<string, unknown>, ctx: RecordRequestContext): Promise<DnsRecord> {
    return (await this.createDraft(this.validate(body, ctx), false))!;
  }

  /** Creates a validated record; with `skipIdentical`, returns null (and writes nothing) when an identical record exists. */
  async createDraft(draft: RecordDraft, skipIdentical: boolean): Promise<DnsRecord | null> {
    const atName = await this.recordsAt(draft.name);
    if (skipIdentical && atName.some((r) => sameValue(r, draft))) return null;
    if (this.startCount + this.countDelta + 1 > this.deps.plan.recordsPerZone) throw new AppError(81045, 'Record quota exceeded.');
    await this.checkRules(draft, atName, null);
    const now = isoTimestamp(this.deps.clock.now());
    const record: DnsRecord = {
      id: newOrderedId(), zoneId: this.zone.id, ...draft, meta: { ...RECORD_META },
      createdOn: now, modifiedOn: now,
      commentModifiedOn: draft.comment !== null ? now : null,
      tagsModifiedOn: draft.tags.length > 0 ? now : null,
    };
    await INSERT_RECORD.execute(this.trx, recordToRow(record));
    this.countDelta++;
    this.changed = true;
    this.changes.push({ id: record.id, before: null, after: servedRecord(record) });
    if (record.type === 'NS') this.nsChanged = true;
    return record;
  }

  /**
   * Creates many validated records with the same rules as {@link createDraft}, in a few statements (imports):
   * the records already at the drafts' names are read in chunks, the rules run against them plus the drafts
   * accepted so far, and rows are inserted in multi-row statements. With `skipIdentical`, a draft identical to
   * a stored or earlier record yields null. A failing draft throws `wrap(index, error)`.
   */
  async createBulk(drafts: readonly RecordDraft[], skipIdentical: boolean, wrap: (index: number, err: unknown) => unknown = (_i, e) => e): Promise<(DnsRecord | null)[]> {
    const known = new Map<string, ExistingRow[]>();
    const names = [...new Set(drafts.map((d) => d.name))];
    for (let i = 0; i < names.length; i += LOOKUP_CHUNK) {
      const rows = await this.trx.selectFrom('dns_records').select(['id', 'name', 'type', 'content', 'priority'])
        .where('zone_id', '=', this.zone.id).where('name', 'in', names.slice(i, i + LOOKUP_CHUNK)).execute();
      for (const n of names.slice(i, i + LOOKUP_CHUNK)) known.set(n, []);
      for (const r of rows) known.get(r.name)!.push(r);
    }
    const at = async (name: string): Promise<ExistingRow[]> => {
      let list = known.get(name);
      if (!list) { list = await this.recordsAt(name); known.set(name, list); }
      return list;
    };
    const out: (DnsRecord | null)[] = [];
    const rows: ReturnType<typeof recordToRow>[] = [];
    const now = isoTimestamp(this.deps.clock.now());
    for (const [i, draft] of drafts.entries()) {
      try {
        const atName = await at(draft.name);
        if (skipIdentical && atName.some((r) => sameValue(r, draft))) { out.push(null); continue; }
        if (this.startCount + this.countDelta + 1 > this.deps.plan.recordsPerZone) throw new AppError(81045, 'Record quota exceeded.');
        await this.checkDnssecTypes(draft, atName, null);
        checkNameConflicts(draft, atName, this.zone.name);
        await checkProxiedCname(draft, this.zone.name, at);
        const record: DnsRecord = {
          id: newOrderedId(), zoneId: this.zone.id, ...draft, meta: { ...RECORD_META }, createdOn: now, modifiedOn: now,
          commentModifiedOn: draft.comment !== null ? now : null, tagsModifiedOn: draft.tags.length > 0 ? now : null,
        };
        atName.push({ id: record.id, name: record.name, type: record.type, content: record.content, priority: record.priority });
        rows.push(recordToRow(record));
        out.push(record);
        this.changes.push({ id: record.id, before: null, after: servedRecord(record) });
        this.countDelta++;
      } catch (err) {
        throw faultOf(err) ? err : wrap(i, err); // a store fault is no problem of draft i
      }
    }
    await INSERT_RECORDS.execute(this.trx, rows);
    if (rows.length > 0) this.changed = true;
    if (rows.some((r) => r.type === 'NS')) this.nsChanged = true;
    return out;
  }

  /** One record of the zone; 81044 when unknown. */
  async get(id: string): Promise<DnsRecord> {
    if (!isId(id)) throw recordNotFound();
    const row = await RECORD_BY_ID.executeTakeFirst(this.trx, { zoneId: this.zone.id, id });
    if (!row) throw recordNotFound();
    return rowToRecord(row);
  }

  /** PUT: the body replaces the record; omitted fields take their defaults. */
  async overwrite(id: string, body: Record<string, unknown>, ctx: RecordRequestContext): Promise<DnsRecord> {
    const current = await this.get(id);
    return this.replace(current, this.validate(body, ctx));
  }

  /** PATCH: only the fields given change; the result is validated as a whole. */
  async patch(id: string, body: Record<string, unknown>, ctx: RecordRequestContext): Promise<DnsRecord> {
    const current = await this.get(id);
    return this.replace(current, this.validate(mergePatch(current, body), ctx));
  }

  /** Deletes a record; returns it as it was; 81044 when unknown. */
  async delete(id: string): Promise<DnsRecord> {
    const current = await this.get(id);
    await this.trx.deleteFrom('dns_records').where('zone_id', '=', this.zone.id).where('id', '=', id).execute();
    this.countDelta--;
    this.changed = true;
    this.changes.push({ id, before: servedRecord(current), after: null });
    if (current.type === 'NS') this.nsChanged = true;
    return current;
  }

  /** Every record of the zone (a secondary zone's copy compares them with its primary's, secondary-copy.ts). */
  async allRecords(): Promise<DnsRecord[]> {
    const rows = await this.trx.selectFrom('dns_records').selectAll().where('zone_id', '=', this.zone.id).execute();
    return rows.map(rowToRecord);
  }

  /** Deletes every record of these types (the signed-zone records a new signed zone replaces); returns how many. */
  async deleteTypes(types: readonly string[]): Promise<number> {
    const rows = await this.trx.selectFrom('dns_records').select('id').where('zone_id', '=', this.zone.id).where('type', 'in', [...types]).execute();
    for (const { id } of rows) await this.delete(id);
    return rows.length;
  }

  /** Writes the zone's record count; call once, last. */
  async finish(): Promise<void> {
    if (this.countDelta === 0) return;
    await ADD_RECORD_COUNT.execute(this.trx, { zoneId: this.zone.id, delta: this.countDelta });
  }

  /** Writes a new version of a record (the checks see the record as removed). */
  private async replace(current: DnsRecord, draft: RecordDraft): Promise<DnsRecord> {
    const now = isoTimestamp(this.deps.clock.now());
    await this.checkRules(draft, await this.recordsAt(draft.name), current.id);
    const commentChanged = draft.comment !== current.comment;
    const tagsChanged = JSON.stringify(draft.tags) !== JSON.stringify(current.tags);
    const saved: DnsRecord = {
      ...current, ...draft, modifiedOn: now,
      commentModifiedOn: draft.comment === null ? null : commentChanged ? now : current.commentModifiedOn ?? now,
      tagsModifiedOn: draft.tags.length === 0 ? null : tagsChanged ? now : current.tagsModifiedOn ?? now,
    };
    const { id: _id, zone_id: _zone, created_on: _created, ...row } = recordToRow(saved);
    await this.trx.updateTable('dns_records').set(row).where('id', '=', current.id).execute();
    this.changed = true;
    this.changes.push({ id: current.id, before: servedRecord(current), after: servedRecord(saved) });
    if (current.type === 'NS' || saved.type === 'NS') this.nsChanged = true;
    return saved;
  }

  /** DNSKEY and the pre-signed types need the zone's DNSSEC settings to allow them (dnssec-record-rules.ts). */
  private async checkDnssecTypes(draft: RecordDraft, atName: readonly { id: string; type: string }[], selfId: string | null): Promise<void> {
    if (draft.type === 'DNSKEY' || PRESIGNED_TYPES.has(draft.type)) checkDnssecRecord(draft, await this.dnssecSettings(), this.zone.name, atName, selfId);
  }

  /** The zone's DNSSEC settings, read once per transaction (DNSKEY and pre-signed records depend on them). */
  async dnssecSettings(): Promise<ZoneDnssec> {
    if (this.dnssec === undefined) {
      const row = await this.trx.selectFrom('zones').select('dnssec').where('id', '=', this.zone.id).executeTakeFirst();
      this.dnssec = parseZoneDnssec(row?.dnssec);
    }
    return this.dnssec;
  }

  private recordsAt(name: string): Promise<{ id: string; type: string; content: string; priority: number | null }[]> {
    return RECORDS_AT.execute(this.trx, { zoneId: this.zone.id, name });
  }

  private async checkRules(draft: RecordDraft, atName: { id: string; type: string; content: string; priority: number | null }[], selfId: string | null): Promise<void> {
    await this.checkDnssecTypes(draft, atName, selfId);
    checkNameConflicts(draft, atName.filter((r) => r.id !== selfId), this.zone.name);
    await checkProxiedCname(draft, this.zone.name, async (name) => (await this.recordsAt(name)).filter((r) => r.id !== selfId));
  }
}

/** The hot statements of record writes, compiled once (db/query-template.ts). */
const RECORDS_AT = new QueryTemplate<{ zoneId: string; name: string }, ExistingRow & { id: string }>((db, p) => db.selectFrom('dns_records')
  .select(['id', 'type', 'content', 'priority']).where('zone_id', '=', p('zoneId')).where('name', '=', p('name')));
const RECORD_BY_ID = new QueryTemplate<{ zoneId: string; id: string }, RecordRow>((db, p) => db.selectFrom('dns_records')
  .selectAll().where('zone_id', '=', p('zoneId')).where('id', '=', p('id')));
const INSERT_RECORD = new QueryTemplate<RecordRow, never>((db, p) => db.insertInto('dns_records').values({
  id: p('id'), zone_id: p('zone_id'), name: p('name'), type: p('type'), content: p('content'), data: p('data'), priority: p('priority'),
  ttl: p('ttl'), proxied: p('proxied'), comment: p('comment'), tags: p('tags'), settings: p('settings'), meta: p('meta'),
  created_on: p('created_on'), modified_on: p('modified_on'), comment_modified_on: p('comment_modified_on'), tags_modified_on: p('tags_modified_on'),
}));
const INSERT_RECORDS = new MultiRowInsert<RecordRow>('dns_records', [
  'id', 'zone_id', 'name', 'type', 'content', 'data', 'priority', 'ttl', 'proxied', 'comment', 'tags', 'settings', 'meta',
  'created_on', 'modified_on', 'comment_modified_on', 'tags_modified_on',
]);
const ADD_RECORD_COUNT = new QueryTemplate<{ zoneId: string; delta: number }, never>((db, p) => db.updateTable('zones')
  .set({ record_count: sql<number>`record_count + ${p('delta')}` }).where('id', '=', p('zoneId')));

/** A stored record as the rules see it. */
type ExistingRow = { id: string; name?: string; type: string; content: string; priority: number | null };

/** Names looked up per statement. */
const LOOKUP_CHUNK = 500;

/** True when a stored record has the draft's type and value (what 81058 calls identical). */
function sameValue(r: ExistingRow, draft: RecordDraft): boolean {
  return r.type === draft.type && r.content.toLowerCase() === draft.content.toLowerCase() && (r.priority ?? null) === (draft.priority ?? null);
}

/** The full body a PATCH stands for: the stored record with the given fields on top. */
export function mergePatch(current: DnsRecord, body: Record<string, unknown>): Record<string, unknown> {
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
  return { ...merged, ...given };
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}
