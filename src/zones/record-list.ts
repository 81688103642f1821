/**
 * Listing a zone's records in SQL: the conditions of a {@link RecordListQuery} become a WHERE clause, the
 * order an ORDER BY that the indexes (zone_id, name) and (zone_id, type, name) serve, and the page a
 * LIMIT/OFFSET. Without conditions the total comes from the zone's record count instead of COUNT(*).
 */
import { type Expression, type ExpressionBuilder, type Kysely, type SqlBool } from 'kysely';
import type { Database } from '../db/schema.js';
import type { DnsRecord } from '../dns/record.js';
import type { FilterCondition, RecordListQuery } from './record-filters.js';
import { rowToRecord } from './record-rows.js';

export type { RecordListQuery } from './record-filters.js';

type Eb = ExpressionBuilder<Database, 'dns_records'>;

/** The SQL form of one condition. */
function conditionSql(eb: Eb, c: FilterCondition): Expression<SqlBool> {
  switch (c.field) {
    case 'name':
      return eb('name', 'in', c.values);
    case 'type':
      return eb('type', 'in', c.values);
    case 'proxied':
      return eb('proxied', 'in', c.values.map((v) => (v ? 1 : 0)));
    case 'content': {
      // TXT content is stored quoted; an unquoted filter value (certbot's token) also matches its quoted form.
      const wanted = c.values.flatMap((v) => {
        const lower = v.toLowerCase();
        return /^".*"$/.test(lower) ? [lower] : [lower, `"${lower}"`];
      });
      return eb(eb.fn('lower', ['content']), 'in', wanted);
    }
  }
}

/** One page of the zone's records and the number of records matching the conditions. */
export async function listRecords(db: Kysely<Database>, zone: { id: string }, q: RecordListQuery): Promise<{ records: DnsRecord[]; total: number }> {
  const filtered = (eb: Eb) => {
    const parts = q.conditions.map((c) => conditionSql(eb, c));
    return q.match === 'any' ? eb.or(parts) : eb.and(parts);
  };
  let base = db.selectFrom('dns_records').where('zone_id', '=', zone.id);
  if (q.conditions.length > 0) base = base.where(filtered);

  let total: number;
  if (q.conditions.length === 0) {
    const row = await db.selectFrom('zones').select('record_count').where('id', '=', zone.id).executeTakeFirst();
    total = row?.record_count ?? 0;
  } else {
    const row = await base.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
    total = Number(row.n);
  }
  const offset = (q.page - 1) * q.perPage;
  if (offset >= total) return { records: [], total };

  const secondary = q.order === 'name' ? 'type' : 'name';
  let select = base.selectAll().orderBy(q.order, q.direction);
  if (q.order !== 'type' && q.order !== 'name') select = select.orderBy('type', q.direction);
  select = select.orderBy(secondary, q.direction);
  const rows = await select.limit(q.perPage).offset(offset).execute();
  return { records: rows.map(rowToRecord), total };
}

