/**
 * A zone file of any size as several import requests under the API's per-request cap (MAX_ZONE_FILE_BYTES):
 * the file is checked locally first (the server's own parser and per-type RDATA parsers, so a bad line is
 * reported with its number before anything is sent), then cut at record boundaries. Each piece after the
 * first starts with the `$ORIGIN` and `$TTL` in force where it begins, and a piece that begins with a line
 * reusing the previous owner (leading white space) gets that owner written out. Every piece maps its line
 * numbers back to the file's.
 */
import { AppError } from '../shared/errors.js';
import { lexZoneFile, type ZoneEntry } from '../zones/zonefile/lexer.js';
import { parseZoneFile, parseTtl } from '../zones/zonefile/parser.js';
import { lineToBody } from '../zones/zonefile/import.js';
import { lineError } from '../zones/zonefile/errors.js';

/** One import request's zone file. */
export interface ZoneFilePiece {
  text: string;
  /** Records in it (as the import counts them: SOA and apex NS lines are not). */
  records: number;
  /** The file's line of this piece's line `n` (1-based), or undefined for a line the split added. */
  fileLine(n: number): number | undefined;
}

/** A problem of the file at `line`. */
export class ZoneFileLineError extends Error {
  override name = 'ZoneFileLineError';
  constructor(readonly line: number, message: string, readonly code?: number) {
    super(message);
  }
}

/** `Zone file line N: msg` -> ZoneFileLineError(N, msg); other errors unchanged. */
function asLineError(err: unknown): unknown {
  if (!(err instanceof AppError)) return err;
  const m = /^Zone file line (\d+): (.*)$/s.exec(err.message);
  return m ? new ZoneFileLineError(Number(m[1]), m[2]!, err.code) : err;
}

/** Checks the whole file as the server would parse it; throws ZoneFileLineError for the first bad line. */
export function checkZoneFile(text: string, zone: string): number {
  try {
    const parsed = parseZoneFile(text, zone).filter((r) => r.type !== 'SOA' && !(r.type === 'NS' && r.name.toLowerCase() === zone));
    for (const r of parsed) {
      const n = r.name.toLowerCase();
      if (n !== zone && !n.endsWith(`.${zone}`)) throw lineError(r.line, `owner name ${r.name} is outside the zone ${zone}`);
      lineToBody(r, false);
    }
    return parsed.length;
  } catch (err) {
    throw asLineError(err);
  }
}

interface Segment { first: number; lines: string[]; bytes: number; entry: ZoneEntry; origin: string; ttl: string | null; owner: string | null }

/** The owner an entry's first token names, absolute with its trailing dot, as text (escapes kept). */
function absoluteOwner(token: string, origin: string): string {
  if (token === '@') return `${origin}.`;
  return token.endsWith('.') ? token : `${token}.${origin}.`;
}

/** Splits `text` (already checked) into pieces of at most `cap` bytes, for the zone `zone`. */
export function splitZoneFile(text: string, zone: string, cap: number): ZoneFilePiece[] {
  let entries: ZoneEntry[];
  try {
    entries = lexZoneFile(text);
  } catch (err) {
    throw asLineError(err);
  }
  const lines = text.split('\n');
  const counts = new Map<number, number>();
  for (const r of parseZoneFile(text, zone)) {
    if (r.type === 'SOA' || (r.type === 'NS' && r.name.toLowerCase() === zone)) continue;
    counts.set(r.line, (counts.get(r.line) ?? 0) + 1);
  }
  // Segments: each entry with the comment and blank lines after it (the first also takes the lines before it).
  const state = { origin: zone, ttl: null as string | null, owner: null as string | null };
  const segments: Segment[] = [];
  entries.forEach((entry, i) => {
    const first = i === 0 ? 1 : entry.line;
    const end = i + 1 < entries.length ? entries[i + 1]!.line - 1 : lines.length;
    const own = lines.slice(first - 1, end);
    segments.push({ first, lines: own, bytes: own.reduce((n, l) => n + Buffer.byteLength(l) + 1, 0), entry, ...state });
    const word = entry.tokens[0]!;
    if (!entry.startsBlank && word.toUpperCase() === '$ORIGIN') {
      const o = entry.tokens[1]!;
      state.origin = (o.endsWith('.') ? o.slice(0, -1) : `${o}.${state.origin}`).toLowerCase();
    } else if (!entry.startsBlank && word.toUpperCase() === '$TTL') {
      state.ttl = parseTtl(entry.tokens[1]!) !== undefined ? entry.tokens[1]! : state.ttl;
    } else if (!entry.startsBlank && !word.startsWith('$')) {
      state.owner = absoluteOwner(word, state.origin);
    }
  });
  const pieces: ZoneFilePiece[] = [];
  let at = 0;
  while (at < segments.length) {
    const head = segments[at]!;
    const header = [`$ORIGIN ${head.origin}.`, ...(head.ttl !== null ? [`$TTL ${head.ttl}`] : [])];
    const body: string[] = [];
    let bytes = header.reduce((n, l) => n + Buffer.byteLength(l) + 1, 0);
    let records = 0;
    const start = at;
    while (at < segments.length && (at === start || bytes + segments[at]!.bytes <= cap)) {
      const s = segments[at]!;
      let own = s.lines;
      if (at === start && s.entry.startsBlank && s.owner !== null) {
        // The piece starts with a line that reuses the previous owner: name it.
        const line = s.entry.line - s.first;
        own = [...own];
        own[line] = own[line]!.replace(/^[ \t]+/, `${s.owner} `);
      }
      const size = own.reduce((n, l) => n + Buffer.byteLength(l) + 1, 0);
      if (at === start && bytes + size > cap) {
        throw new ZoneFileLineError(s.entry.line, `this entry and the piece's $ORIGIN/$TTL are ${bytes + size} bytes, more than the ${cap} bytes one import request may carry`);
      }
      body.push(...own);
      bytes += size;
      records += [...Array(s.lines.length).keys()].reduce((n, k) => n + (counts.get(s.first + k) ?? 0), 0);
      at++;
    }
    const firstLine = head.first;
    const extra = header.length;
    pieces.push({
      text: [...header, ...body].join('\n') + '\n',
      records,
      fileLine: (n) => (n <= extra ? undefined : firstLine + n - extra - 1),
    });
  }
  return pieces;
}
