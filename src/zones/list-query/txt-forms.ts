/**
 * TXT content is stored quoted (`"token"`, strings over 255 bytes split: `"…" "…"`); clients that created a
 * record with unquoted content (certbot, python-cloudflare) list it with the same unquoted text
 * (`content=<token>`). A content filter value is therefore also compared, on TXT records, with the stored form
 * it stands for: for `exact`, the whole stored form the value would get as TXT content (so the comparison is
 * against what `txtPlainText` of the stored content gives back); for the other comparisons the escaped text
 * inside the quotes, anchored at the opening quote (`startswith`) or the closing one (`endswith`). Text that
 * spans a 255-byte string boundary is found by `exact` only.
 */
import { ErrorCollector } from '../../shared/errors.js';
import { validateRecordValue } from '../../dns/record-types/index.js';
import { quoteText } from '../../dns/record-types/charstring.js';
import type { TextOp } from './types.js';

/** The stored-TXT form of a content filter value for a comparison, or undefined when there is none. */
export function txtStoredForm(op: TextOp, value: string): string | undefined {
  if (op === 'exact') {
    const errors = new ErrorCollector();
    const v = validateRecordValue({ type: 'TXT', content: value }, { zoneName: 'txt.invalid', recordName: 'txt.invalid', apiDate: '9999-12-31', serviceRanges: [], errors });
    return v && v.content !== value ? v.content : undefined;
  }
  if (value.startsWith('"')) return undefined;
  const inner = quoteText(value).slice(1, -1);
  if (op === 'startswith') return `"${inner}`;
  if (op === 'endswith') return `${inner}"`;
  return inner !== value ? inner : undefined;
}
