/**
 * The list filters of `GET /zones/:zone_id/dns_records`, parsed from the query into conditions that
 * record-list.ts turns into SQL. The filter language itself (name/content/comment/tag comparisons, `search`,
 * `tag_match`, the deprecated forms read by api date) lives in `list-query/`; this module adds `match`,
 * `order`, `direction`, `page`, `per_page` and collects every problem into one 400 (1106).
 *
 * Names are accepted like record bodies: `@`, relative or full, any case, with or without a trailing dot.
 * Text comparisons are case-insensitive. Every occurrence of a parameter is one condition, combined by `match`.
 */
import { AppError } from '../shared/errors.js';
import { parseFilters, type QueryValues } from './list-query/parse.js';
import type { DeprecatedUse, FilterCondition, TagFilter } from './list-query/types.js';

export type { FilterCondition, TagFilter, DeprecatedUse } from './list-query/types.js';
export type { QueryValues } from './list-query/parse.js';
export { fullFilterName } from './list-query/names.js';

/** Sortable fields. */
export const ORDER_FIELDS = ['type', 'name', 'content', 'ttl', 'proxied'] as const;

/** A parsed list query. */
export interface RecordListQuery {
  conditions: FilterCondition[];
  /** `all`: every condition holds; `any`: at least one does. */
  match: 'all' | 'any';
  order: (typeof ORDER_FIELDS)[number];
  direction: 'asc' | 'desc';
  page: number;
  perPage: number;
  /** Tag filters and their `tag_match`; one more condition combined by `match`. */
  tags?: TagFilter;
  /** Free text (`search`), ANDed with the rest whatever `match` says. */
  search?: string;
  /** Deprecated forms honoured at the api date (the route announces them). */
  deprecated?: DeprecatedUse[];
}

/** Default and largest `per_page`. */
export const PER_PAGE = { default: 100, max: 5_000_000 } as const;

/**
 * Parses the list query of a zone's records at an api date (deprecated filter forms are honoured before
 * their dates; the default reads everything literally, as today).
 */
export function parseRecordFilters(q: QueryValues, zoneName: string, apiDate = '9999-12-31'): RecordListQuery {
  const problems: AppError[] = [];
  const bad = (param: string, value: string, expected: string) => problems.push(new AppError(1106, `Invalid ${param} ${JSON.stringify(value)}: ${expected}`));
  const one = (key: string): string | undefined => { const v = q[key]; return v === undefined ? undefined : v[v.length - 1]; };

  const filters = parseFilters(q, zoneName, apiDate, bad);
  const conditions: FilterCondition[] = filters.conditions;
  const choiceValue = (key: string) => { const v = one(key); return v === undefined ? undefined : v.toLowerCase(); };

  const choice = <T extends string>(key: string, choices: readonly T[], fallback: T): T => {
    const v = choiceValue(key);
    if (v === undefined || v === '') return fallback;
    if ((choices as readonly string[]).includes(v)) return v as T;
    bad(key, v, `use one of ${choices.join(', ')}`);
    return fallback;
  };
  const int = (key: string, fallback: number, max: number): number => {
    const v = one(key);
    if (v === undefined || v === '') return fallback;
    const n = Number(v);
    if (!/^\d+$/.test(v) || !Number.isSafeInteger(n) || n < 1 || n > max) { bad(key, v, `expected a whole number from 1 to ${max}`); return fallback; }
    return n;
  };
  const query: RecordListQuery = {
    conditions,
    match: choice('match', ['all', 'any'] as const, 'all'),
    order: choice('order', ORDER_FIELDS, 'type'),
    direction: choice('direction', ['asc', 'desc'] as const, 'asc'),
    page: int('page', 1, Number.MAX_SAFE_INTEGER),
    perPage: int('per_page', PER_PAGE.default, PER_PAGE.max),
  };
  if (filters.tags) query.tags = filters.tags;
  if (filters.search !== undefined) query.search = filters.search;
  if (filters.deprecated.length > 0) query.deprecated = filters.deprecated;
  if (problems.length > 0) throw new AppError(problems[0]!.code, problems[0]!.message, 400, { others: problems.slice(1) });
  return query;
}
