/** Helpers shared by the content types: reading `content` as a string. */
import type { RecordType } from '../record.js';
import type { ErrorCollector } from '../../shared/errors.js';
import { CONTENT_NOT_STRING, CONTENT_REQUIRED, report } from './errors.js';

/** The `content` string (trimmed unless `keepSpaces`), or undefined after recording a problem. */
export function contentString(type: RecordType, content: unknown, errors: ErrorCollector, keepSpaces = false): string | undefined {
  if (content === undefined || content === null) return void report(errors, CONTENT_REQUIRED, { type });
  if (typeof content !== 'string') return void report(errors, CONTENT_NOT_STRING, { type });
  const s = keepSpaces ? content : content.trim();
  if (s.trim() === '') return void report(errors, CONTENT_REQUIRED, { type });
  return s;
}
