/**
 * Parses the filter part of a records list query (reference §3) into {@link ParsedFilters}:
 *
 * - `name`, `content`, `comment` (bare = `.exact`), `name.exact|contains|startswith|endswith`, the same for
 *   `content.*`, `comment.*` plus `comment.present` / `comment.absent` (value ignored);
 * - `type` (a record type, any case), `proxied` (`true`|`false`);
 * - `tag` (`NAME` = present, `NAME:VALUE` = exact), `tag.present|absent=NAME`,
 *   `tag.exact|contains|startswith|endswith=NAME:VALUE`, combined by `tag_match` (or `tag-match`) `any|all`;
 * - `search`: free text (see sql.ts).
 *
 * Every occurrence of a parameter is one condition (`name=a&name=b` is two), so under `match=any` repeated
 * bare parameters mean OR and under `match=all` AND. The deprecated forms of deprecated-forms.ts are read by
 * api date. Problems are reported through `bad` (the caller collects them into one 400).
 */
import { isRecordType } from '../../dns/record.js';
import { readBareValue, typeContains } from './deprecated-forms.js';
import { nameComparison } from './names.js';
import { TEXT_OPS, type DeprecatedUse, type FilterCondition, type TagCondition, type TagFilter, type TextOp } from './types.js';

/** Query values by key, as `c.req.queries()` gives them. */
export type QueryValues = Record<string, string[] | undefined>;

/** Reports a bad parameter: its name, the value, what was expected. */
export type BadParam = (param: string, value: string, expected: string) => void;

/** The filters of a list query. */
export interface ParsedFilters {
  conditions: FilterCondition[];
  tags?: TagFilter;
  search?: string;
  deprecated: DeprecatedUse[];
}

const FIELDS = ['name', 'type', 'content', 'proxied', 'comment', 'tag'] as const;
const COMMENT_OPS = [...TEXT_OPS, 'present', 'absent'] as const;
const TAG_OPS = ['present', 'absent', ...TEXT_OPS] as const;
const TAG_NAME = /^[A-Za-z0-9_-]{1,32}$/;

/** Parses the filters of `q` for a zone at an api date. */
export function parseFilters(q: QueryValues, zoneName: string, apiDate: string, bad: BadParam): ParsedFilters {
  const conditions: FilterCondition[] = [];
  const tagConditions: TagCondition[] = [];
  const deprecated: DeprecatedUse[] = [];
  const note = (d: DeprecatedUse | undefined) => {
    if (d && !deprecated.some((x) => x.id === d.id && x.part === d.part)) deprecated.push(d);
  };

  for (const field of FIELDS) {
    for (const [key, values] of Object.entries(q)) {
      if (values === undefined || (key !== field && !key.startsWith(`${field}.`))) continue;
      const op = key === field ? undefined : key.slice(field.length + 1);
      for (const raw of values) {
        switch (field) {
          case 'name':
          case 'content': {
            if (op !== undefined && !(TEXT_OPS as readonly string[]).includes(op)) { bad(key, raw, `use ${field}.exact, .contains, .startswith or .endswith`); break; }
            const reading = op === undefined ? readBareValue(raw, apiDate) : { op: op as TextOp, values: [raw] };
            note(reading.deprecated);
            if (field === 'content') { conditions.push({ field, op: reading.op, values: reading.values }); break; }
            const names = reading.values.map((v) => nameComparison(reading.op, v, zoneName));
            // Normalization may change the comparison (a trailing dot anchors the end): group by the result.
            for (const o of TEXT_OPS) {
              const vs = names.filter((n) => n.op === o).map((n) => n.value);
              if (vs.length > 0) conditions.push({ field: 'name', op: o, values: vs });
            }
            break;
          }
          case 'comment':
            if (op !== undefined && !(COMMENT_OPS as readonly string[]).includes(op)) { bad(key, raw, 'use comment.exact, .contains, .startswith, .endswith, .present or .absent'); break; }
            conditions.push({ field, op: (op ?? 'exact') as (typeof COMMENT_OPS)[number], values: [raw] });
            break;
          case 'type': {
            if (op !== undefined) { bad(key, raw, 'type takes no suffix: use type=<record type>'); break; }
            const part = typeContains(raw, apiDate);
            if (part !== undefined) {
              note({ id: 'dns-records-list-filter-forms' });
              conditions.push({ field, op: 'contains', values: [part.toUpperCase()] });
              break;
            }
            const t = raw.trim().toUpperCase();
            if (t !== 'SOA' && !isRecordType(t)) { bad('type', raw, 'expected a record type such as A, AAAA, CNAME, TXT'); break; }
            conditions.push({ field, op: 'exact', values: [t] });
            break;
          }
          case 'proxied': {
            const v = raw.trim().toLowerCase();
            if (op !== undefined || (v !== 'true' && v !== 'false')) { bad(key, raw, 'expected true or false'); break; }
            conditions.push({ field, op: 'exact', values: [v === 'true'] });
            break;
          }
          case 'tag': {
            const tag = parseTag(op, raw);
            if (typeof tag === 'string') bad(key, raw, tag);
            else tagConditions.push(tag);
            break;
          }
        }
      }
    }
  }

  const out: ParsedFilters = { conditions, deprecated };
  const tagMatch = lastOf(q, 'tag_match') ?? lastOf(q, 'tag-match');
  let match: 'all' | 'any' = 'all';
  if (tagMatch !== undefined && tagMatch !== '') {
    const v = tagMatch.toLowerCase();
    if (v === 'all' || v === 'any') match = v;
    else bad(q.tag_match ? 'tag_match' : 'tag-match', tagMatch, 'use one of any, all');
  }
  if (tagConditions.length > 0) out.tags = { match, conditions: tagConditions };
  const search = lastOf(q, 'search')?.trim();
  if (search) out.search = search;
  return out;
}

/** The last value of a parameter. */
function lastOf(q: QueryValues, key: string): string | undefined {
  const v = q[key];
  return v === undefined ? undefined : v[v.length - 1];
}

/** A tag condition, or what was expected when the value does not fit. */
function parseTag(op: string | undefined, raw: string): TagCondition | string {
  if (op !== undefined && !(TAG_OPS as readonly string[]).includes(op)) return 'use tag.present, .absent, .exact, .contains, .startswith or .endswith';
  const colon = raw.indexOf(':');
  if (op === 'present' || op === 'absent' || (op === undefined && colon < 0)) {
    const tag = raw.trim();
    if (!TAG_NAME.test(tag)) return 'expected a tag name of 1 to 32 letters, digits, "_" or "-"';
    return { op: op ?? 'present', tag: tag.toLowerCase() };
  }
  const tag = colon < 0 ? '' : raw.slice(0, colon).trim();
  if (!TAG_NAME.test(tag)) return 'expected NAME:VALUE with a tag name of 1 to 32 letters, digits, "_" or "-"';
  return { op: (op ?? 'exact') as TextOp, tag: tag.toLowerCase(), value: raw.slice(colon + 1) };
}
