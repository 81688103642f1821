/**
 * The conditions of the records list language (reference §3): what `parse.ts` produces from a query and
 * `sql.ts` turns into SQL. Text comparisons are case-insensitive; a condition's `values` match if any one
 * matches (several values come only from the deprecated comma form `name=a,b,c`).
 */

/** Comparisons of text filters. */
export type TextOp = 'exact' | 'contains' | 'startswith' | 'endswith';

/** The text comparisons, in the order the reference lists them. */
export const TEXT_OPS: readonly TextOp[] = ['exact', 'contains', 'startswith', 'endswith'];

/** One condition on a record field (everything but tags and `search`). */
export type FilterCondition =
  | { field: 'name'; op: TextOp; values: string[] }
  | { field: 'type'; op: 'exact' | 'contains'; values: string[] }
  | { field: 'content'; op: TextOp; values: string[] }
  | { field: 'comment'; op: TextOp | 'present' | 'absent'; values: string[] }
  | { field: 'proxied'; op: 'exact'; values: boolean[] };

/** One tag condition: `tag` is the lowercase tag name; `value` the compared value (text ops only). */
export interface TagCondition {
  op: TextOp | 'present' | 'absent';
  tag: string;
  value?: string;
}

/** The tag filters of a query and how they combine (`tag_match`). */
export interface TagFilter {
  match: 'all' | 'any';
  conditions: TagCondition[];
}

/** A deprecated form the query used and that was honoured (schedule row id and part). */
export interface DeprecatedUse {
  id: string;
  part?: string;
}
