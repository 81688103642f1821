/**
 * The list filter forms deprecated on 2025-02-21 (contract, Versioning; reference §2.3): `name=contains:<v>`,
 * `name=starts_with:<v>`, `name=ends_with:<v>`, the same for `content`, `type=contains:<v>`, and comma lists
 * `name=a,b,c` / `content=a,b,c` (extended to 2025-05-23). Before their date they are honoured (the caller
 * announces the deprecation); from it the value is read literally (`name=contains:foo` is an exact name that
 * matches nothing, `type=contains:A` an invalid type).
 */
import { oldBehaviourApplies } from '../../deprecation/schedule.js';
import type { DeprecatedUse, TextOp } from './types.js';

/** Schedule row of these forms (src/deprecation/schedule-data.ts). */
export const FILTER_FORMS_ROW = 'dns-records-list-filter-forms';
/** Part of the row for the comma-list form. */
export const MULTI_VALUE_PART = 'multi-value';

const PREFIXES: Record<string, TextOp> = { contains: 'contains', starts_with: 'startswith', ends_with: 'endswith' };

/** How one bare `name=`/`content=` value is read at an api date. */
export interface BareReading {
  op: TextOp;
  values: string[];
  deprecated?: DeprecatedUse;
}

/** Reads a bare `name`/`content` value: an old form when still honoured at `apiDate`, else exact and literal. */
export function readBareValue(raw: string, apiDate: string): BareReading {
  const m = /^(contains|starts_with|ends_with):([\s\S]*)$/.exec(raw);
  if (m && oldBehaviourApplies(FILTER_FORMS_ROW, apiDate)) {
    return { op: PREFIXES[m[1]!]!, values: [m[2]!], deprecated: { id: FILTER_FORMS_ROW } };
  }
  if (raw.includes(',') && oldBehaviourApplies(FILTER_FORMS_ROW, apiDate, MULTI_VALUE_PART)) {
    const values = raw.split(',').map((v) => v.trim()).filter((v) => v !== '');
    if (values.length > 0) return { op: 'exact', values, deprecated: { id: FILTER_FORMS_ROW, part: MULTI_VALUE_PART } };
  }
  return { op: 'exact', values: [raw] };
}

/** The `<v>` of `type=contains:<v>` when that form is honoured at `apiDate`, else undefined. */
export function typeContains(raw: string, apiDate: string): string | undefined {
  const m = /^contains:([\s\S]*)$/i.exec(raw);
  return m && oldBehaviourApplies(FILTER_FORMS_ROW, apiDate) ? m[1]! : undefined;
}
