/**
 * URI (RFC 7553): top-level `priority` (required, 0..65535) and `data{weight 0..65535, target}`, the target
 * an absolute URI. Content `weight "target"` (the priority, like SRV's, is not part of it).
 */
import { bytesToText, quoteText, unescapeBytes } from './charstring.js';
import { dataSpec, storedData } from './data-spec.js';
import { requiredPriority } from './fields.js';
import { expectCount, intToken, stripQuotes } from './tokens.js';

/** URI: a URI with priority and weight. */
export const URI_SPEC = dataSpec('URI', {
  build(r, input, ctx) {
    const priority = requiredPriority('URI', input.priority, ctx.errors);
    const weight = r.int('weight', 0, 65535);
    const target = r.str('target', (s) => (/^[A-Za-z][A-Za-z0-9+.-]*:[^\s"]+$/.test(s.trim())
      ? { value: s.trim() }
      : { rule: 'must be an absolute URI without spaces or quotes, like https://example.com/' }));
    if (priority === undefined || weight === undefined || target === undefined) return undefined;
    return { content: `${weight} ${quoteText(target)}`, data: { weight, target }, priority };
  },
  contentOmitsPriority: true,
  toPresentation: (v) => { const d = storedData(v); return `${v.priority ?? 0} ${d.weight} ${quoteText(String(d.target))}`; },
  parsePresentation(tokens) {
    expectCount('URI', tokens, 3);
    const bytes = unescapeBytes(stripQuotes(tokens[2]!));
    if (!bytes) throw new Error('URI target has an invalid escape');
    return { priority: intToken('URI', tokens[0]), data: { weight: intToken('URI', tokens[1]), target: bytesToText(bytes) } };
  },
});
