/**
 * The list filters of `GET /zones/:zone_id/dns_records`, parsed from the query into conditions that
 * record-list.ts turns into SQL. This issue covers the filters every known client sends: `name`,
 * `name.exact`, `type`, `content`, `content.exact`, `proxied`, plus `match` (`all`|`any`), `order`,
 * `direction`, `page`, `per_page`. A fuller filter language extends {@link FilterCondition} and
 * {@link parseRecordFilters}.
 *
 * Names are accepted like record bodies: `@`, relative or full, any case, with or without a trailing dot.
 * Text comparisons are case-insensitive. A repeated parameter gives several values: any of them matches.
 */
import { AppError } from '../shared/errors.js';
import { isRecordType } from '../dns/record.js';

/** One condition on a record field; `values` match if any one matches. */
export type FilterCondition =
  | { field: 'name'; op: 'exact'; values: string[] }
  | { field: 'type'; op: 'exact'; values: string[] }
  | { field: 'content'; op: 'exact'; values: string[] }
  | { field: 'proxied'; op: 'exact'; values: boolean[] };

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
}

/** Query values by key, as `c.req.queries()` gives them. */
export type QueryValues = Record<string, string[] | undefined>;

/** Default and largest `per_page`. */
export const PER_PAGE = { default: 100, max: 5_000_000 } as const;

/** Expands a name filter value to the full lowercase name it stands for. */
export function fullFilterName(raw: string, zoneName: string): string {
  const name = raw.trim().toLowerCase().replace(/\.$/, '');
  if (name === '@' || name === '') return zoneName;
  if (name === zoneName || name.endsWith(`.${zoneName}`)) return name;
  return `${name}.${zoneName}`;
}

/** Parses the list query of a zone's records. */
export function parseRecordFilters(q: QueryValues, zoneName: string): RecordListQuery {
  const problems: AppError[] = [];
  const bad = (param: string, value: string, expected: string) => problems.push(new AppError(1106, `Invalid ${param} ${JSON.stringify(value)}: ${expected}`));
  const all = (...keys: string[]) => keys.flatMap((k) => q[k] ?? []);
  const one = (key: string): string | undefined => { const v = q[key]; return v === undefined ? undefined : v[v.length - 1]; };

  const conditions: FilterCondition[] = [];
  const names = all('name', 'name.exact');
  if (names.length > 0) conditions.push({ field: 'name', op: 'exact', values: names.map((n) => fullFilterName(n, zoneName)) });
  const types = all('type');
  for (const t of types) if (t !== 'SOA' && !isRecordType(t)) bad('type', t, 'expected a record type such as A, AAAA, CNAME, TXT');
  if (types.length > 0) conditions.push({ field: 'type', op: 'exact', values: types });
  const contents = all('content', 'content.exact');
  if (contents.length > 0) conditions.push({ field: 'content', op: 'exact', values: contents });
  const proxied = all('proxied');
  for (const p of proxied) if (p !== 'true' && p !== 'false') bad('proxied', p, 'expected true or false');
  if (proxied.length > 0) conditions.push({ field: 'proxied', op: 'exact', values: proxied.map((p) => p === 'true') });

  const choice = <T extends string>(key: string, choices: readonly T[], fallback: T): T => {
    const v = one(key);
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
  if (problems.length > 0) throw new AppError(problems[0]!.code, problems[0]!.message, 400, { others: problems.slice(1) });
  return query;
}
