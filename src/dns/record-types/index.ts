/**
 * Validation and normalization of the type-specific part of a v4 record body (`content`, `data`,
 * `priority`), one spec per type in this folder. The zones service calls {@link validateRecordValue}; the
 * result is the stored form described in `../record.ts`.
 *
 * OWNER: the record-types work. Until a type's spec exists, validation of that type fails with 1004.
 */
import type { ErrorCollector } from '../../shared/errors.js';
import type { RecordType } from '../record.js';

/** The type-specific fields of a request body, as received. */
export interface RecordValueInput {
  type: RecordType;
  content?: unknown;
  data?: unknown;
  priority?: unknown;
}

/** What validation needs to know besides the body. */
export interface RecordValueContext {
  /** The zone's name, lowercase, no trailing dot. */
  zoneName: string;
  /** The full, normalized owner name of the record. */
  recordName: string;
  /** The request's api date (YYYY-MM-DD); SRV `data.service/proto/name` are accepted before 2024-05-31. */
  apiDate: string;
  /** CIDR ranges A/AAAA content may not fall in. */
  serviceRanges: readonly string[];
  /** Where every problem is recorded (validation reports all problems at once). */
  errors: ErrorCollector;
}

/** The normalized type-specific part of a record. */
export interface RecordValue {
  content: string;
  data: Record<string, unknown> | null;
  priority: number | null;
}

/** Validates and normalizes `content`/`data`/`priority`; returns undefined after recording errors. */
export function validateRecordValue(input: RecordValueInput, ctx: RecordValueContext): RecordValue | undefined {
  ctx.errors.add(1004, `DNS Validation Error: type ${input.type} is not implemented yet`);
  return undefined;
}
