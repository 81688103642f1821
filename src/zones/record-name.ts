/**
 * The owner name of a record body (`@`, relative or full; returned full and lowercase). Delegates to the DNS
 * name rules in `dns/names.ts` (the contract's label rules for A, AAAA and CNAME, the DNS rules for the other
 * types, a warning for underscores); this adapter gives the zones service one call shape.
 */
import type { ErrorCollector } from '../shared/errors.js';
import type { RecordType } from '../dns/record.js';
import { normalizeRecordName, type RecordWarning } from '../dns/names.js';

export type { RecordWarning } from '../dns/names.js';

/** The full normalized name, or undefined after recording errors. */
export function recordName(raw: unknown, zoneName: string, type: RecordType, errors: ErrorCollector, warnings: RecordWarning[]): string | undefined {
  return normalizeRecordName(raw, zoneName, type, errors, warnings);
}
