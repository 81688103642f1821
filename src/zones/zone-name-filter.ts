/**
 * The `name` filter of the zones list with production's operators: `name=OP:VALUE`, OP one of `equal` (the
 * default, also for a bare value), `not_equal`, `starts_with`, `ends_with`, `contains` and their
 * `_case_sensitive` forms. Zone names are stored in lower case, so a case-sensitive operator with an upper-case
 * letter in its value matches nothing, and without one is the same as the case-insensitive operator. A prefix
 * that is no operator is part of the value (zone names hold no colon: it then matches nothing).
 */
import { sql, type ExpressionBuilder, type Expression, type SqlBool } from 'kysely';
import type { Database } from '../db/schema.js';
import { normalizeZoneName } from './zone-name.js';

const OPERATORS = ['equal', 'not_equal', 'starts_with', 'ends_with', 'contains'] as const;
type Operator = typeof OPERATORS[number];

/** A parsed `name` filter. */
export interface ZoneNameFilter { op: Operator; value: string; caseSensitive: boolean }

/** Parses `name=[OP:]VALUE`. */
export function parseZoneNameFilter(raw: string): ZoneNameFilter {
  const colon = raw.indexOf(':');
  if (colon > 0) {
    const word = raw.slice(0, colon);
    const caseSensitive = word.endsWith('_case_sensitive');
    const op = (caseSensitive ? word.slice(0, -'_case_sensitive'.length) : word) as Operator;
    const sensitiveAllowed = op === 'starts_with' || op === 'ends_with' || op === 'contains';
    if (OPERATORS.includes(op) && (!caseSensitive || sensitiveAllowed)) return { op, value: raw.slice(colon + 1), caseSensitive };
  }
  return { op: 'equal', value: raw, caseSensitive: false };
}

/** `value` with LIKE's wildcards and the escape character escaped. */
const likeEscaped = (value: string) => value.replace(/[\\%_]/g, (c) => `\\${c}`);

/** The WHERE condition of a name filter on `zones.name`. */
export function zoneNameCondition(eb: ExpressionBuilder<Database, 'zones'>, f: ZoneNameFilter): Expression<SqlBool> {
  const column = eb.ref('zones.name');
  if (f.caseSensitive && f.value !== f.value.toLowerCase()) return sql<SqlBool>`1 = 0`;
  if (f.op === 'equal' || f.op === 'not_equal') {
    const name = normalizeZoneName(f.value) ?? f.value.toLowerCase();
    return eb(column, f.op === 'equal' ? '=' : '<>', name);
  }
  const v = likeEscaped(f.value.toLowerCase());
  const pattern = f.op === 'starts_with' ? `${v}%` : f.op === 'ends_with' ? `%${v}` : `%${v}%`;
  return sql<SqlBool>`${column} like ${pattern} escape '\\'`;
}
