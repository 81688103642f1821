/**
 * The types whose content is one host name: CNAME, NS, PTR, and MX (with its preference in the top-level
 * `priority`). Stored lowercase without trailing dot; written absolute in zone files.
 */
import { checkHostname, fromZoneFileName, toAbsolute } from '../names.js';
import type { RecordType } from '../record.js';
import { CNAME_SELF, HOSTNAME_INVALID, MX_INVALID, report } from './errors.js';
import { contentString } from './content.js';
import { requiredPriority } from './fields.js';
import { expectCount, intToken } from './tokens.js';
import type { RecordTypeSpec } from './types.js';

/** A spec for a type whose content is a single host name. */
function hostSpec(type: 'CNAME' | 'NS' | 'PTR'): RecordTypeSpec {
  return {
    type,
    usesData: false,
    validate(input, ctx) {
      const s = contentString(type, input.content, ctx.errors);
      if (s === undefined) return undefined;
      const host = checkHostname(s);
      if (!host.ok) return void report(ctx.errors, HOSTNAME_INVALID, { type, detail: host.problem });
      if (type === 'CNAME' && host.name === ctx.recordName) return void report(ctx.errors, CNAME_SELF, { name: ctx.recordName });
      return { content: host.name, data: null, priority: null };
    },
    toPresentation: (v) => toAbsolute(v.content),
    parsePresentation(tokens, origin) {
      expectCount(type, tokens, 1);
      return { content: fromZoneFileName(tokens[0]!, origin) };
    },
  };
}

/** CNAME: an alias; the target must differ from the record's own name. */
export const CNAME_SPEC = hostSpec('CNAME');
/** NS: a name server host name. */
export const NS_SPEC = hostSpec('NS');
/** PTR: a domain name. */
export const PTR_SPEC = hostSpec('PTR');

const MX: RecordType = 'MX';

/** MX: a mail host (`.` is the null MX of RFC 7505) and a required priority 0..65535. */
export const MX_SPEC: RecordTypeSpec = {
  type: 'MX',
  usesData: false,
  validate(input, ctx) {
    const priority = requiredPriority(MX, input.priority, ctx.errors);
    const s = contentString(MX, input.content, ctx.errors);
    if (s === undefined) return undefined;
    const host = checkHostname(s, { allowRoot: true });
    if (!host.ok) return void report(ctx.errors, MX_INVALID, { detail: host.problem });
    if (priority === undefined) return undefined;
    return { content: host.name, data: null, priority };
  },
  toPresentation: (v) => `${v.priority ?? 0} ${toAbsolute(v.content)}`,
  parsePresentation(tokens, origin) {
    expectCount('MX', tokens, 2);
    return { priority: intToken('MX', tokens[0]), content: fromZoneFileName(tokens[1]!, origin) };
  },
};
