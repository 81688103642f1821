/**
 * A and AAAA: strict IPv4 dotted quads and RFC 5952 canonical IPv6, refused when they lie in the service's
 * own ranges (`ctx.serviceRanges`, configuration) since traffic there would loop back into the service.
 */
import { findContainingRange, formatIPv4, formatIPv6, parseIPv4, parseIPv6 } from '../ip.js';
import { A_INVALID, AAAA_INVALID, ADDRESS_RESERVED, report } from './errors.js';
import { contentString } from './content.js';
import { expectCount } from './tokens.js';
import type { RecordTypeSpec, RecordValueContext } from './types.js';

/** Records ADDRESS_RESERVED when the address is in a service range; false then. */
function outsideServiceRanges(type: 'A' | 'AAAA', bytes: Uint8Array, text: string, ctx: RecordValueContext): boolean {
  const range = findContainingRange(bytes, ctx.serviceRanges);
  if (range === undefined) return true;
  report(ctx.errors, ADDRESS_RESERVED, { type, address: text, range });
  return false;
}

/** A: an IPv4 address. */
export const A_SPEC: RecordTypeSpec = {
  type: 'A',
  usesData: false,
  validate(input, ctx) {
    const s = contentString('A', input.content, ctx.errors);
    if (s === undefined) return undefined;
    const bytes = parseIPv4(s);
    if (!bytes) return void report(ctx.errors, A_INVALID);
    const text = formatIPv4(bytes);
    if (!outsideServiceRanges('A', bytes, text, ctx)) return undefined;
    return { content: text, data: null, priority: null };
  },
  toPresentation: (v) => v.content,
  parsePresentation(tokens) {
    expectCount('A', tokens, 1);
    return { content: tokens[0] };
  },
};

/** AAAA: an IPv6 address, stored in RFC 5952 form. */
export const AAAA_SPEC: RecordTypeSpec = {
  type: 'AAAA',
  usesData: false,
  validate(input, ctx) {
    const s = contentString('AAAA', input.content, ctx.errors);
    if (s === undefined) return undefined;
    const bytes = parseIPv6(s);
    if (!bytes) return void report(ctx.errors, AAAA_INVALID);
    const text = formatIPv6(bytes);
    if (!outsideServiceRanges('AAAA', bytes, text, ctx)) return undefined;
    return { content: text, data: null, priority: null };
  },
  toPresentation: (v) => v.content,
  parsePresentation(tokens) {
    expectCount('AAAA', tokens, 1);
    return { content: tokens[0] };
  },
};
