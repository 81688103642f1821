/**
 * Validation and normalization of the type-specific part of a v4 record body (`content`, `data`,
 * `priority`), one spec per type in this folder (`registry.ts`). The zones service calls
 * {@link validateRecordValue}; the result is the stored form described in `../record.ts`. Zone-file export
 * and import use {@link toPresentation} and {@link parsePresentation}; the DNS wire encoder can use
 * {@link parseSvcParams} for SVCB/HTTPS.
 */
import type { RecordType } from '../record.js';
import { RECORD_TYPE_SPECS } from './registry.js';
import { CONTENT_INVALID, report } from './errors.js';
import { tokenize } from './tokens.js';
import { wireProblem } from './wire-check.js';
import type { RecordValue, RecordValueContext, RecordValueInput, StoredValue } from './types.js';

export type { RecordTypeSpec, RecordValue, RecordValueContext, RecordValueInput, StoredValue } from './types.js';
export { RECORD_TYPE_SPECS } from './registry.js';
export { parseSvcParams, formatSvcParams, type SvcParam, type SvcValue } from './svc-params.js';
export { srvNameParts } from './srv.js';
export { txtPlainText, txtStrings, txtCharacters, TXT_NAME_MAX_CHARACTERS } from './txt.js';

/**
 * Validates and normalizes `content`/`data`/`priority`, then checks that the value encodes on the wire as the
 * DNS server serves it (`wire-check.ts`); returns undefined after recording errors.
 */
export function validateRecordValue(input: RecordValueInput, ctx: RecordValueContext): RecordValue | undefined {
  const spec = Object.hasOwn(RECORD_TYPE_SPECS, input.type) ? RECORD_TYPE_SPECS[input.type] : undefined;
  // Callers refuse unknown types first (1107); this keeps a bad type from ever reaching a spec.
  if (!spec) return void report(ctx.errors, CONTENT_INVALID, { type: String(input.type), detail: 'the type is not supported' });
  const before = ctx.errors.errors.length;
  const value = spec.validate(input, ctx);
  if (!value || ctx.errors.errors.length !== before) return undefined;
  const problem = wireProblem(input.type, value);
  if (problem !== undefined) return void report(ctx.errors, CONTENT_INVALID, { type: input.type, detail: problem });
  return value;
}

/** The RDATA text of a stored record for a BIND zone file (`10 mail.example.com.` for MX). */
export function toPresentation(record: StoredValue & { type: RecordType }): string {
  return RECORD_TYPE_SPECS[record.type].toPresentation(record);
}

/**
 * The API input (content/data/priority) for zone-file RDATA text of a type; names are resolved against the
 * origin. Throws an Error whose message says what is malformed; the result still goes through
 * {@link validateRecordValue}.
 */
export function parsePresentation(type: RecordType, rdataText: string, origin: string): RecordValueInput {
  const tokens = tokenize(rdataText);
  return { type, ...RECORD_TYPE_SPECS[type].parsePresentation(tokens, origin) };
}
