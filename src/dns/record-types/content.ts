/** Helpers shared by the content types: reading `content` as a string. */
import type { RecordType } from '../record.js';
import type { ErrorCollector } from '../../shared/errors.js';
import { CONTENT_NOT_STRING, CONTENT_REQUIRED, report } from './errors.js';

/** The trimmed `content` string, or undefined after recording a problem. */
export function contentString(type: RecordType, content: unknown, errors: ErrorCollector): string | undefined {
  if (content === undefined || content === null) return void report(errors, CONTENT_REQUIRED, { type });
  if (typeof content !== 'string') return void report(errors, CONTENT_NOT_STRING, { type });
  const s = content.trim();
  if (s === '') return void report(errors, CONTENT_REQUIRED, { type });
  return s;
}
