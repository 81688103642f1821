/**
 * The SQL of the list language, for SQLite and PostgreSQL alike. Text comparisons are case-insensitive: on
 * SQLite `column LIKE ? ESCAPE '\'` (its LIKE ignores ASCII case, as its lower() does; calling lower() per row
 * would triple the cost of a scan), on PostgreSQL `lower(column) LIKE lower(?)`; `exact` is a LIKE without
 * wildcards (the value's `%`, `_` and `\` escaped). Names are stored lowercase, so name comparisons skip lower()
 * on both, with the value lowercased here; exact names use `name IN (…)` so that the (zone_id, name) index
 * serves them. Tags are a JSON array of `name:value`
 * strings: tag conditions look at its elements (`json_each` on SQLite, `json_array_elements_text` on
 * PostgreSQL). `search` is free text: a record matches when its name, content (also the TXT stored form),
 * comment or any tag contains it, case-insensitively; it is ANDed with everything else, independent of `match`.
 */
import { sql, PostgresAdapter, type Expression, type ExpressionBuilder, type Kysely, type RawBuilder, type SqlBool } from 'kysely';
import type { Database } from '../../db/schema.js';
import { txtStoredForm } from './txt-forms.js';
import type { FilterCondition, TagCondition, TagFilter, TextOp } from './types.js';

type Eb = ExpressionBuilder<Database, 'dns_records'>;

/** The SQL dialect of a database handle. */
export type Dialect = 'sqlite' | 'postgres';

/** Which dialect a Kysely instance speaks. */
export function dialectOf(db: Kysely<Database>): Dialect {
  return db.getExecutor().adapter instanceof PostgresAdapter ? 'postgres' : 'sqlite';
}

/** Escapes LIKE wildcards (`%`, `_`) and the escape character itself. */
export function escapeLike(text: string): string {
  return text.replace(/[\\%_]/g, (ch) => `\\${ch}`);
}

/** The LIKE pattern of a comparison (`exact`: the escaped value itself). */
function pattern(op: TextOp, value: string): string {
  const v = escapeLike(value);
  return op === 'exact' ? v : op === 'contains' ? `%${v}%` : op === 'startswith' ? `${v}%` : `%${v}`;
}

/** `column <op> value`, case-insensitive (see the module comment). */
function compare(dialect: Dialect, column: RawBuilder<unknown>, op: TextOp, value: string): RawBuilder<SqlBool> {
  if (dialect === 'postgres') return sql<SqlBool>`lower(${column}) LIKE lower(${pattern(op, value)}) ESCAPE '\\'`;
  return sql<SqlBool>`${column} LIKE ${pattern(op, value)} ESCAPE '\\'`;
}

/** A name comparison: names are stored lowercase, so the lowercased value needs no lower() per row. */
function compareName(op: TextOp, value: string): RawBuilder<SqlBool> {
  return sql<SqlBool>`${col('name')} LIKE ${pattern(op, value.toLowerCase())} ESCAPE '\\'`;
}

const col = (name: string) => sql.ref(`dns_records.${name}`);

/** `a OR b OR …` of SQL fragments (a single one as is). */
function anyOf(eb: Eb, parts: Expression<SqlBool>[]): Expression<SqlBool> {
  return parts.length === 1 ? parts[0]! : eb.or(parts);
}

/** The content comparison of one value, with its TXT stored form. */
function contentSql(eb: Eb, dialect: Dialect, op: TextOp, value: string): Expression<SqlBool> {
  const parts: Expression<SqlBool>[] = [compare(dialect, col('content'), op, value)];
  const stored = txtStoredForm(op, value);
  if (stored !== undefined) parts.push(eb.and([eb('type', '=', 'TXT'), compare(dialect, col('content'), op, stored)]));
  return anyOf(eb, parts);
}

/** The SQL form of one condition. */
export function conditionSql(eb: Eb, dialect: Dialect, c: FilterCondition): Expression<SqlBool> {
  switch (c.field) {
    case 'name':
      if (c.op === 'exact') return eb('name', 'in', c.values);
      return anyOf(eb, c.values.map((v) => compareName(c.op, v)));
    case 'type':
      if (c.op === 'exact') return eb('type', 'in', c.values);
      return anyOf(eb, c.values.map((v) => compare(dialect, col('type'), 'contains', v)));
    case 'proxied':
      return eb('proxied', 'in', c.values.map((v) => (v ? 1 : 0)));
    case 'content':
      return anyOf(eb, c.values.map((v) => contentSql(eb, dialect, c.op, v)));
    case 'comment':
      if (c.op === 'present') return eb('comment', 'is not', null);
      if (c.op === 'absent') return eb('comment', 'is', null);
      return anyOf(eb, c.values.map((v) => eb.and([eb('comment', 'is not', null), compare(dialect, col('comment'), c.op as TextOp, v)])));
  }
}

/** `EXISTS` over the record's tag strings satisfying `where` (given the element column). */
function someTag(dialect: Dialect, where: (element: RawBuilder<unknown>) => RawBuilder<SqlBool>): RawBuilder<SqlBool> {
  if (dialect === 'postgres') {
    return sql<SqlBool>`EXISTS (SELECT 1 FROM json_array_elements_text(dns_records.tags::json) AS tag_el(value) WHERE ${where(sql.ref('tag_el.value'))})`;
  }
  return sql<SqlBool>`EXISTS (SELECT 1 FROM json_each(dns_records.tags) AS tag_el WHERE ${where(sql.ref('tag_el.value'))})`;
}

/** The SQL form of one tag condition. */
function tagSql(dialect: Dialect, t: TagCondition): RawBuilder<SqlBool> {
  // Tag names are stored lowercase: `name:` is a prefix of the element, the value is compared by `op`.
  const prefix = escapeLike(`${t.tag}:`);
  if (t.op === 'present' || t.op === 'absent') {
    const has = someTag(dialect, (el) => likeRaw(dialect, el, `${prefix}%`));
    return t.op === 'present' ? has : sql<SqlBool>`NOT ${has}`;
  }
  return someTag(dialect, (el) => likeRaw(dialect, el, prefix + pattern(t.op as TextOp, t.value ?? '')));
}

/** `column LIKE <ready pattern>`, case-insensitive. */
function likeRaw(dialect: Dialect, column: RawBuilder<unknown>, p: string): RawBuilder<SqlBool> {
  if (dialect === 'postgres') return sql<SqlBool>`lower(${column}) LIKE lower(${p}) ESCAPE '\\'`;
  return sql<SqlBool>`${column} LIKE ${p} ESCAPE '\\'`;
}

/** The tag filters, combined by their `tag_match`. */
export function tagFilterSql(eb: Eb, dialect: Dialect, tags: TagFilter): Expression<SqlBool> {
  const parts = tags.conditions.map((t) => tagSql(dialect, t));
  return tags.match === 'any' ? eb.or(parts) : eb.and(parts);
}

/** The free-text `search` condition. */
export function searchSql(eb: Eb, dialect: Dialect, text: string): Expression<SqlBool> {
  return eb.or([
    compareName('contains', text.replace(/\.$/, '')),
    contentSql(eb, dialect, 'contains', text),
    eb.and([eb('comment', 'is not', null), compare(dialect, col('comment'), 'contains', text)]),
    compare(dialect, col('tags'), 'contains', text),
  ]);
}
