/**
 * NAPTR (RFC 3403): `data{order, preference, flags, service, regex, replacement}`; flags letters/digits,
 * replacement a host name or `.` (empty means `.`). Content `order preference "flags" "service" "regex"
 * replacement`.
 */
import { checkHostname, fromZoneFileName, toAbsolute } from '../names.js';
import { bytesToText, quoteText, unescapeBytes } from './charstring.js';
import { dataSpec, storedData } from './data-spec.js';
import { expectCount, intToken, stripQuotes } from './tokens.js';

/** A text field that fits one character-string. */
function charField(s: string): { value: string } | { rule: string } {
  if (new TextEncoder().encode(s).length > 255) return { rule: 'must be at most 255 bytes' };
  if (/[\x00-\x1f\x7f]/.test(s)) return { rule: 'must not contain control characters' };
  return { value: s };
}

/** The text of a possibly quoted token. */
function textToken(t: string): string {
  const bytes = unescapeBytes(stripQuotes(t));
  if (!bytes) throw new Error(`NAPTR string ${t} has an invalid escape`);
  return bytesToText(bytes);
}

/** NAPTR: naming authority pointer. */
export const NAPTR_SPEC = dataSpec('NAPTR', {
  build(r) {
    const order = r.int('order', 0, 65535);
    const preference = r.int('preference', 0, 65535);
    const flags = r.str('flags', (s) => (!/^[A-Za-z0-9]*$/.test(s) ? { rule: 'must contain only letters and digits' }
      : s.length > 255 ? { rule: 'must be at most 255 bytes' } : { value: s.toUpperCase() }));
    const service = r.str('service', charField);
    const regex = r.str('regex', charField);
    const replacement = r.str('replacement', (s) => {
      if (s.trim() === '') return { value: '.' };
      const h = checkHostname(s, { allowRoot: true });
      return h.ok ? { value: h.name } : { rule: `must be a host name or . (${h.problem})` };
    });
    if ([order, preference, flags, service, regex, replacement].includes(undefined)) return undefined;
    const data = { order: order!, preference: preference!, flags: flags!, service: service!, regex: regex!, replacement: replacement! };
    return { content: `${order} ${preference} ${quoteText(flags!)} ${quoteText(service!)} ${quoteText(regex!)} ${replacement}`, data, priority: null };
  },
  toPresentation: (v) => {
    const d = storedData(v);
    return `${d.order} ${d.preference} ${quoteText(String(d.flags))} ${quoteText(String(d.service))} ${quoteText(String(d.regex))} ${toAbsolute(String(d.replacement))}`;
  },
  parsePresentation(tokens, origin) {
    expectCount('NAPTR', tokens, 6);
    return {
      data: {
        order: intToken('NAPTR', tokens[0]), preference: intToken('NAPTR', tokens[1]), flags: textToken(tokens[2]!),
        service: textToken(tokens[3]!), regex: textToken(tokens[4]!), replacement: fromZoneFileName(tokens[5]!, origin),
      },
    };
  },
});
