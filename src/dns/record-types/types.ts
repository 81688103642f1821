/**
 * The shapes shared by every record-type spec: what a request carries, what validation needs besides it,
 * the normalized result, and the spec interface the registry holds one of per type.
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
  /**
   * Set only when the value decides the owner name: an SRV body with the deprecated `data.service`,
   * `data.proto` (and `data.name`) before 2024-05-31 whose top-level name lacks `_service._proto`. The
   * caller then stores this name instead of `ctx.recordName`.
   */
  name?: string;
}

/** The stored parts a presentation form is built from. */
export type StoredValue = Pick<RecordValue, 'content' | 'data' | 'priority'>;

/** One type's description: validation, zone-file text out and in. */
export interface RecordTypeSpec {
  type: RecordType;
  /** True when the API takes `data` (content is derived); false when it takes `content`. */
  usesData: boolean;
  /** Validates and normalizes; undefined after recording errors in `ctx.errors`. */
  validate(input: RecordValueInput, ctx: RecordValueContext): RecordValue | undefined;
  /** The RDATA text of a BIND zone file line (host names absolute, with trailing dot). */
  toPresentation(value: StoredValue): string;
  /** The API input for RDATA tokens of a zone file (names resolved against `origin`); throws a message string's Error when malformed. */
  parsePresentation(tokens: string[], origin: string): Omit<RecordValueInput, 'type'>;
}
