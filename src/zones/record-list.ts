/**
 * Listing a zone's records in SQL: the conditions of a {@link RecordListQuery} become a WHERE clause, the
 * order an ORDER BY that the indexes (zone_id, name) and (zone_id, type, name) serve, and the page a
 * LIMIT/OFFSET. Without conditions the total comes from the zone's record count instead of COUNT(*); with them
 * from the page itself when it is the last one, else from COUNT(*). The shapes DNS clients send (no
 * condition, or exact names and types) run as {@link QueryTemplate}s, compiled once per shape.
 */
import { sql, type Expression, type Kysely, type SqlBool } from 'kysely';
import type { Database } from '../db/schema.js';
import type { DnsRecord } from '../dns/record.js';
import type { RecordListQuery } from './record-filters.js';
import { conditionSql, dialectOf, searchSql, tagFilterSql } from './list-query/sql.js';
import { rowToRecord, type RecordRow } from './record-rows.js';
import { QueryTemplate } from '../db/query-template.js';

export type { RecordListQuery } from './record-filters.js';

/** The filtered query of a list (without paging), shared by the count and the page. */
function filteredQuery(db: Kysely<Database>, zoneId: string, q: RecordListQuery) {
  let base = db.selectFrom('dns_records').where('zone_id', '=', zoneId);
  const dialect = dialectOf(db);
  if (q.conditions.length > 0 || q.tags) {
    base = base.where((eb) => {
      const parts: Expression<SqlBool>[] = q.conditions.map((c) => conditionSql(eb, dialect, c));
      if (q.tags) parts.push(tagFilterSql(eb, dialect, q.tags));
      return q.match === 'any' ? eb.or(parts) : eb.and(parts);
    });
  }
  if (q.search !== undefined) base = base.where((eb) => searchSql(eb, dialect, q.search!));
  return base;
}

/** The SELECT of one page of a list (exported so that tests can check its query plan). */
export function pageQuery(db: Kysely<Database>, zoneId: string, q: RecordListQuery, limit = q.perPage, offset = (q.page - 1) * q.perPage) {
  // With a name condition, `type || ''` keeps the planner from walking (zone_id, type, name) in order over the
  // whole zone: the (zone_id, name) index finds the few matches and they are sorted afterwards.
  const byName = q.conditions.some((c) => c.field === 'name' && c.op === 'exact');
  const typeKey = byName ? sql<string>`type || ''` : sql<string>`type`;
  let select = filteredQuery(db, zoneId, q).selectAll();
  if (q.order === 'type') select = select.orderBy(typeKey, q.direction).orderBy('name', q.direction);
  else if (q.order === 'name') select = select.orderBy('name', q.direction).orderBy(typeKey, q.direction);
  else select = select.orderBy(q.order, q.direction).orderBy(typeKey, q.direction).orderBy('name', q.direction);
  return select.limit(limit).offset(offset);
}

type PageParams = Record<string, unknown>;

/** Page queries compiled per shape (a handful exist in practice; the map starts over past {@link MAX_PAGE_TEMPLATES}). */
const pageTemplates = new Map<string, QueryTemplate<PageParams, RecordRow>>();
const MAX_PAGE_TEMPLATES = 64;

/** The shape of a query whose values all bind as plain parameters (no condition, or exact names and types), else undefined. */
function templateShape(q: RecordListQuery): string | undefined {
  if (q.tags || q.search !== undefined) return undefined;
  if (!q.conditions.every((c) => c.op === 'exact' && (c.field === 'name' || c.field === 'type'))) return undefined;
  return JSON.stringify([q.order, q.direction, q.match, q.conditions.map((c) => [c.field, c.values.length])]);
}

/** The rows of one page: through a compiled template when the shape allows, else built for this query. */
function pageRows(db: Kysely<Database>, zoneId: string, q: RecordListQuery): Promise<RecordRow[]> {
  const shape = templateShape(q);
  if (shape === undefined) return pageQuery(db, zoneId, q).execute();
  const valueName = (i: number, j: number) => `v${i}_${j}`;
  let template = pageTemplates.get(shape);
  if (!template) {
    template = new QueryTemplate<PageParams, RecordRow>((tdb, p) => pageQuery(tdb, p('zoneId') as string, {
      ...q,
      conditions: q.conditions.map((c, i) => ({ ...c, values: c.values.map((_v, j) => p(valueName(i, j))) }) as RecordListQuery['conditions'][number]),
    }, p('limit') as number, p('offset') as number));
    if (pageTemplates.size >= MAX_PAGE_TEMPLATES) pageTemplates.clear();
    pageTemplates.set(shape, template);
  }
  const params: PageParams = { zoneId, limit: q.perPage, offset: (q.page - 1) * q.perPage };
  q.conditions.forEach((c, i) => c.values.forEach((v, j) => (params[valueName(i, j)] = v)));
  return template.execute(db, params);
}

const RECORD_COUNT = new QueryTemplate<{ zoneId: string }, { record_count: number }>((db, p) => db.selectFrom('zones')
  .select('record_count').where('id', '=', p('zoneId')));

/** One page of the zone's records and the number of records matching the conditions. */
export async function listRecords(db: Kysely<Database>, zone: { id: string }, q: RecordListQuery): Promise<{ records: DnsRecord[]; total: number }> {
  const offset = (q.page - 1) * q.perPage;
  if (q.conditions.length === 0 && !q.tags && q.search === undefined) {
    const row = await RECORD_COUNT.executeTakeFirst(db, { zoneId: zone.id });
    const total = row?.record_count ?? 0;
    if (offset >= total) return { records: [], total };
    const rows = await pageRows(db, zone.id, q);
    return { records: rows.map(rowToRecord), total };
  }
  // Filtered: the page first; a short, non-empty page (or an empty first page) gives the total without a
  // second scan of the zone for COUNT(*).
  const rows = await pageRows(db, zone.id, q);
  let total: number;
  if ((rows.length > 0 && rows.length < q.perPage) || (rows.length === 0 && offset === 0)) total = offset + rows.length;
  else total = Number((await filteredQuery(db, zone.id, q).select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow()).n);
  return { records: rows.map(rowToRecord), total };
}
