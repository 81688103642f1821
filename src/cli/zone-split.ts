/**
 * A zone file of any size as several import requests under the API's per-request cap (MAX_ZONE_FILE_BYTES):
 * the file is checked locally first (the server's own parser and per-type RDATA parsers, so a bad line is
 * reported with its number before anything is sent), then cut at record boundaries. CNAME records go last,
 * as the server orders one request's lines, so that a proxied CNAME finds its address in an earlier piece.
 * A piece states the `$ORIGIN` and `$TTL` of each of its entries where they differ from what the piece says
 * so far, and writes out the owner of a line that reuses one (leading white space) when the line before it in
 * the piece is not the one before it in the file. Every piece maps its line numbers back to the file's.
 */
import { AppError } from '../shared/errors.js';
import { lexZoneFile, type ZoneEntry } from '../zones/zonefile/lexer.js';
import { parseZoneFile } from '../zones/zonefile/parser.js';
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

interface State { origin: string; ttl: string | null }
interface Segment {
  index: number;
  /** File line of `lines[0]`. */
  first: number;
  lines: string[];
  entry: ZoneEntry;
  /** State in force before the entry, and after it (a directive changes it). */
  before: State;
  after: State;
  /** Owner in force before the entry (absolute, with its dot), for a line that reuses it. */
  owner: string | null;
  /** Records of the entry, as the import counts them. */
  records: number;
  /** True when the entry is a CNAME record (sent after the others, as the server applies one request's). */
  cname: boolean;
}

/** The owner an entry's first token names, absolute with its trailing dot, as text (escapes kept). */
function absoluteOwner(token: string, origin: string): string {
  if (token === '@') return `${origin}.`;
  return token.endsWith('.') ? token : `${token}.${origin}.`;
}

/** The entries of the file with their lines (each takes the comment and blank lines after it; the first also those before it). */
function segmentsOf(text: string, zone: string, entries: ZoneEntry[]): Segment[] {
  const lines = text.split('\n');
  const counts = new Map<number, { n: number; cname: boolean }>();
  for (const r of parseZoneFile(text, zone)) {
    if (r.type === 'SOA' || (r.type === 'NS' && r.name.toLowerCase() === zone)) continue;
    const c = counts.get(r.line) ?? { n: 0, cname: true };
    counts.set(r.line, { n: c.n + 1, cname: c.cname && r.type === 'CNAME' });
  }
  let state: State = { origin: zone, ttl: null };
  let owner: string | null = null;
  return entries.map((entry, i) => {
    const first = i === 0 ? 1 : entry.line;
    const end = i + 1 < entries.length ? entries[i + 1]!.line - 1 : lines.length;
    const before = state;
    const word = entry.tokens[0]!;
    const directive = !entry.startsBlank && word.startsWith('$') ? word.toUpperCase() : undefined;
    if (directive === '$ORIGIN') {
      const o = entry.tokens[1]!;
      state = { ...state, origin: (o.endsWith('.') ? o.slice(0, -1) : `${o}.${state.origin}`).toLowerCase() };
    } else if (directive === '$TTL') {
      state = { ...state, ttl: entry.tokens[1]! };
    }
    const segment: Segment = {
      index: i, first, lines: lines.slice(first - 1, end), entry, before, after: state, owner,
      records: counts.get(entry.line)?.n ?? 0, cname: counts.get(entry.line)?.cname ?? false,
    };
    if (!entry.startsBlank && directive === undefined) owner = absoluteOwner(word, state.origin);
    return segment;
  });
}

/**
 * Splits `text` (already checked) into pieces of at most `cap` bytes, for the zone `zone`. CNAME records go
 * after all the others (so that a proxied CNAME finds the address it leads to, whichever piece holds it);
 * a piece states the `$ORIGIN` and `$TTL` each of its entries was written under, and names the owner of a
 * line that reuses one when the line before it in the piece is not the line before it in the file.
 */
export function splitZoneFile(text: string, zone: string, cap: number): ZoneFilePiece[] {
  let entries: ZoneEntry[];
  try {
    entries = lexZoneFile(text);
  } catch (err) {
    throw asLineError(err);
  }
  const segments = segmentsOf(text, zone, entries);
  const ordered = [...segments.filter((s) => !s.cname), ...segments.filter((s) => s.cname)];
  const bytesOf = (lines: string[]) => lines.reduce((n, l) => n + Buffer.byteLength(l) + 1, 0);
  const pieces: ZoneFilePiece[] = [];
  let out: string[] = [];
  let map: (number | undefined)[] = [];
  let bytes = 0;
  let records = 0;
  let running: { state: State | undefined; previous: number } = { state: undefined, previous: -2 };
  const close = () => {
    if (out.length === 0) return;
    const lineMap = map;
    pieces.push({ text: out.join('\n') + '\n', records, fileLine: (n) => lineMap[n - 1] });
    out = [];
    map = [];
    bytes = 0;
    records = 0;
    running = { state: undefined, previous: -2 };
  };
  /** The lines `s` needs in the current piece: state lines, then its own (owner named when needed). */
  const render = (s: Segment): { lines: string[]; map: (number | undefined)[] } => {
    const head: string[] = [];
    const st = running.state;
    if (st === undefined || st.origin !== s.before.origin) head.push(`$ORIGIN ${s.before.origin}.`);
    if (s.before.ttl !== null ? st?.ttl !== s.before.ttl : st !== undefined && st.ttl !== null) head.push(`$TTL ${s.before.ttl ?? 1}`);
    const own = [...s.lines];
    if (s.entry.startsBlank && s.owner !== null && running.previous !== s.index - 1) {
      const at = s.entry.line - s.first;
      own[at] = own[at]!.replace(/^[ \t]+/, `${s.owner} `);
    }
    return { lines: [...head, ...own], map: [...head.map(() => undefined), ...own.map((_, k) => s.first + k)] };
  };
  for (const s of ordered) {
    let r = render(s);
    let size = bytesOf(r.lines);
    if (out.length > 0 && bytes + size > cap) {
      close();
      r = render(s);
      size = bytesOf(r.lines);
    }
    if (size > cap) {
      throw new ZoneFileLineError(s.entry.line, `this entry and the $ORIGIN/$TTL it needs are ${size} bytes, more than the ${cap} bytes one import request may carry`);
    }
    out.push(...r.lines);
    map.push(...r.map);
    bytes += size;
    records += s.records;
    running = { state: s.after, previous: s.index };
  }
  close();
  return pieces;
}
