/**
 * Parsing RFC 1035 master files (https://www.rfc-editor.org/rfc/rfc1035#section-5) into resource-record
 * lines, type-agnostic (the RDATA stays tokens for the per-type parsers of `dns/record-types`).
 *
 * - Directives: `$ORIGIN` (relative to the current origin unless absolute), `$TTL`, `$GENERATE` (see
 *   generate.ts); `$INCLUDE` is refused ("$INCLUDE directive not allowed"), any other `$` word is an error.
 * - Owner: `@` is the origin, a relative name gets the origin appended, a line starting with white space
 *   reuses the previous owner.
 * - After the owner, an optional TTL (seconds or BIND units such as `1h30m`) and an optional class (only `IN`
 *   is accepted), in either order, then the type, then the RDATA.
 * - TTL of a line without one: the last `$TTL`, else null (the importer then uses Auto). This differs from
 *   RFC 1035's "previous TTL" on purpose: a file exported by Stratus states every TTL.
 * - The line comment carries the record attributes (attributes.ts).
 * Every problem is an AppError naming the line.
 */
import { fromZoneFileName } from '../../dns/names.js';
import { PRESIGNED_TYPES, RECORD_TYPES } from '../../dns/record.js';
import { parseAttributes, type LineAttributes } from './attributes.js';
import { lineError, ZONEFILE_CODES } from './errors.js';
import { MAX_GENERATED, parseRange, rangeValues, substitute } from './generate.js';
import { lexZoneFile, type ZoneEntry } from './lexer.js';

/** One resource record line of a zone file. */
export interface ParsedRecord extends LineAttributes {
  /** The line (1-based) it came from. */
  line: number;
  /** Absolute owner name without trailing dot, as written (not yet normalized). */
  name: string;
  /** TTL in seconds; null when neither the line nor `$TTL` gave one. */
  ttl: number | null;
  /** Upper-case type mnemonic (one of the API's types or SOA). */
  type: string;
  /** RDATA tokens (quoted strings keep their quotes). */
  rdata: string[];
  /** The origin in force on that line (for relative names in the RDATA), no trailing dot. */
  origin: string;
}

const KNOWN_TYPES: ReadonlySet<string> = new Set([...RECORD_TYPES, 'SOA']);
/** The types any zone takes (the pre-signed ones, SOA included, only a pre-signed zone). */
const GENERAL_TYPES = RECORD_TYPES.filter((t) => !PRESIGNED_TYPES.has(t));
const CLASSES = new Set(['IN', 'CH', 'CS', 'HS', 'ANY']);
const UNIT: Record<string, number> = { s: 1, m: 60, h: 3600, d: 86400, w: 604800 };

/** A TTL token in seconds (`3600`, `1h`, `1h30m`), or undefined when the token is not a TTL. */
export function parseTtl(token: string): number | undefined {
  if (/^\d+$/.test(token)) return Number(token);
  if (!/^(\d+[smhdw])+$/i.test(token)) return undefined;
  let total = 0;
  for (const m of token.toLowerCase().matchAll(/(\d+)([smhdw])/g)) total += Number(m[1]) * UNIT[m[2]!]!;
  return total;
}

/** Parses a zone file whose initial origin is `origin` (the zone name). */
export function parseZoneFile(text: string, origin: string): ParsedRecord[] {
  const state = { origin: origin.replace(/\.$/, '').toLowerCase(), ttl: null as number | null, owner: null as string | null, generated: 0 };
  const out: ParsedRecord[] = [];
  for (const entry of lexZoneFile(text)) {
    const first = entry.tokens[0]!;
    if (!entry.startsBlank && first.startsWith('$')) directive(entry, state, out);
    else out.push(recordLine(entry, state));
  }
  return out;
}

type State = { origin: string; ttl: number | null; owner: string | null; generated: number };

function directive(entry: ZoneEntry, state: State, out: ParsedRecord[]): void {
  const [word, ...args] = entry.tokens;
  const name = word!.toUpperCase();
  if (name === '$INCLUDE') throw lineError(entry.line, '$INCLUDE directive not allowed', ZONEFILE_CODES.include);
  if (name === '$ORIGIN') {
    if (args.length !== 1) throw lineError(entry.line, '$ORIGIN takes one domain name');
    state.origin = fromZoneFileName(args[0]!, state.origin).toLowerCase();
    return;
  }
  if (name === '$TTL') {
    const ttl = args.length === 1 ? parseTtl(args[0]!) : undefined;
    if (ttl === undefined) throw lineError(entry.line, '$TTL takes one TTL, e.g. "$TTL 3600" or "$TTL 1h"');
    state.ttl = ttl;
    return;
  }
  if (name === '$GENERATE') return generate(entry, args, state, out);
  throw lineError(entry.line, `unknown directive ${word}: use $ORIGIN, $TTL or $GENERATE`);
}

function generate(entry: ZoneEntry, args: string[], state: State, out: ParsedRecord[]): void {
  if (args.length < 4) throw lineError(entry.line, '$GENERATE needs a range, an owner, a type and RDATA');
  let range;
  try {
    range = parseRange(args[0]!);
  } catch (err) {
    throw lineError(entry.line, (err as Error).message);
  }
  const { ttl, type, rdataAt } = ttlClassType(entry, args, 2, state);
  const lhs = args[1]!;
  const rhs = args.slice(rdataAt);
  if (rhs.length === 0) throw lineError(entry.line, `$GENERATE ${type} has no RDATA`);
  const attrs = attributes(entry);
  for (const value of rangeValues(range)) {
    if (++state.generated > MAX_GENERATED) throw lineError(entry.line, `$GENERATE makes more than ${MAX_GENERATED} records in this file`);
    try {
      const owner = fromZoneFileName(substitute(lhs, value), state.origin);
      out.push({ line: entry.line, name: owner, ttl, type, rdata: rhs.map((t) => substitute(t, value)), origin: state.origin, ...attrs });
    } catch (err) {
      throw lineError(entry.line, (err as Error).message);
    }
  }
}

function recordLine(entry: ZoneEntry, state: State): ParsedRecord {
  let at = 0;
  if (!entry.startsBlank) {
    state.owner = fromZoneFileName(entry.tokens[0]!, state.origin);
    at = 1;
  } else if (state.owner === null) {
    throw lineError(entry.line, 'the line starts with white space but no owner name came before it');
  }
  const { ttl, type, rdataAt } = ttlClassType(entry, entry.tokens, at, state);
  return { line: entry.line, name: state.owner!, ttl, type, rdata: entry.tokens.slice(rdataAt), origin: state.origin, ...attributes(entry) };
}

/** Reads `[ttl] [class] type` (TTL and class in either order) starting at token `at`. */
function ttlClassType(entry: ZoneEntry, tokens: string[], at: number, state: State): { ttl: number | null; type: string; rdataAt: number } {
  let ttl: number | null = null;
  let sawClass = false;
  let i = at;
  for (; i < tokens.length && i < at + 2; i++) {
    const tok = tokens[i]!;
    const asTtl: number | undefined = ttl === null ? parseTtl(tok) : undefined;
    if (asTtl !== undefined) { ttl = asTtl; continue; }
    if (!sawClass && CLASSES.has(tok.toUpperCase())) {
      if (tok.toUpperCase() !== 'IN') throw lineError(entry.line, `class ${tok} is not supported: only IN`);
      sawClass = true;
      continue;
    }
    break;
  }
  const typeToken = tokens[i];
  if (typeToken === undefined) throw lineError(entry.line, 'the record has no type');
  const type = typeToken.toUpperCase();
  if (!KNOWN_TYPES.has(type)) {
    throw lineError(entry.line, `unsupported record type ${JSON.stringify(typeToken)}: use one of ${GENERAL_TYPES.join(', ')}`);
  }
  if (ttl !== null && ttl > 0x7fffffff) throw lineError(entry.line, `TTL ${ttl} is too large`);
  return { ttl: ttl ?? state.ttl, type, rdataAt: i + 1 };
}

function attributes(entry: ZoneEntry): LineAttributes {
  try {
    return parseAttributes(entry.comment);
  } catch (err) {
    throw lineError(entry.line, (err as Error).message);
  }
}
