/**
 * CAA (RFC 8659): `data{flags 0..255, tag, value}`; tag 1..15 letters/digits, stored lowercase. Content
 * `flags tag "value"`.
 */
import { bytesToText, quoteText, unescapeBytes } from './charstring.js';
import { dataSpec, storedData } from './data-spec.js';
import { expectCount, intToken, stripQuotes } from './tokens.js';

/** CAA: certification authority authorization. */
export const CAA_SPEC = dataSpec('CAA', {
  build(r) {
    const flags = r.int('flags', 0, 255);
    const tag = r.str('tag', (s) => (/^[A-Za-z0-9]{1,15}$/.test(s.trim())
      ? { value: s.trim().toLowerCase() }
      : { rule: 'must be 1 to 15 letters or digits (issue, issuewild, iodef, ...)' }));
    const value = r.str('value', (s) => (/[\x00-\x1f\x7f]/.test(s) ? { rule: 'must not contain control characters' } : { value: s }));
    if (flags === undefined || tag === undefined || value === undefined) return undefined;
    return { content: `${flags} ${tag} ${quoteText(value)}`, data: { flags, tag, value }, priority: null };
  },
  toPresentation: (v) => { const d = storedData(v); return `${d.flags} ${d.tag} ${quoteText(String(d.value))}`; },
  parsePresentation(tokens) {
    expectCount('CAA', tokens, 3);
    const bytes = unescapeBytes(stripQuotes(tokens[2]!));
    if (!bytes) throw new Error('CAA value has an invalid escape');
    return { data: { flags: intToken('CAA', tokens[0]), tag: tokens[1], value: bytesToText(bytes) } };
  },
});
