/** Helpers for the record-type unit tests: run validation with a fresh context and read the outcome. */
import { ErrorCollector } from '../../shared/errors.js';
import type { RecordType } from '../record.js';
import { validateRecordValue } from './index.js';
import type { RecordValue, RecordValueContext } from './types.js';

/** The outcome of one validation. */
export interface Outcome {
  value: RecordValue | undefined;
  codes: number[];
  messages: string[];
}

/** Validates a body of the given type in zone example.com. */
export function check(
  type: RecordType, body: { content?: unknown; data?: unknown; priority?: unknown },
  ctx: Partial<Omit<RecordValueContext, 'errors'>> = {},
): Outcome {
  const errors = new ErrorCollector();
  const value = validateRecordValue({ type, ...body }, {
    zoneName: 'example.com', recordName: 'example.com', apiDate: '2025-06-01', serviceRanges: [], ...ctx, errors,
  });
  return { value, codes: errors.errors.map((e) => e.code), messages: errors.errors.map((e) => e.message) };
}
