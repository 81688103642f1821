/**
 * The lexical layer of RFC 1035 master files (https://www.rfc-editor.org/rfc/rfc1035#section-5.1): the text
 * becomes logical entries, one per record or directive.
 *
 * - White space separates tokens; `"..."` is one token (kept with its quotes and escapes, as the record-type
 *   parsers expect); `\X` escapes X in unquoted tokens (kept as written).
 * - `(` and `)` let an entry run over several lines; they are dropped.
 * - `;` starts a comment to the end of the line. An entry's comment is the one on its last line (that is
 *   where the export writes `; <comment> cf_tags=...`); comments inside parentheses are ignored.
 * - A line that starts with white space has a blank owner (`startsBlank`).
 * - Lines with no tokens (blank or comment only) make no entry.
 */
import { lineError } from './errors.js';

/** One record or directive of a zone file. */
export interface ZoneEntry {
  /** The line (1-based) the entry starts on. */
  line: number;
  /** True when the line starts with white space (the owner is the previous one). */
  startsBlank: boolean;
  tokens: string[];
  /** The comment on the entry's last line, trimmed, without the `;`; null when none. */
  comment: string | null;
}

const isSpace = (ch: string): boolean => ch === ' ' || ch === '\t' || ch === '\r' || ch === '\f' || ch === '\v';

/** Splits a zone file into entries; throws a line-numbered error on open quotes or unbalanced parentheses. */
export function lexZoneFile(text: string): ZoneEntry[] {
  const entries: ZoneEntry[] = [];
  let line = 1;
  let depth = 0;
  let parenLine = 0;
  let entry: ZoneEntry | null = null;
  let lineComment: string | null = null;
  let atLineStart = true;
  const n = text.length;
  let i = 0;

  const finish = (): void => {
    if (entry && entry.tokens.length > 0) {
      entry.comment = lineComment;
      entries.push(entry);
    }
    entry = null;
  };

  while (i < n) {
    const ch = text[i]!;
    if (atLineStart) {
      atLineStart = false;
      lineComment = null;
      if (depth === 0) entry = { line, startsBlank: isSpace(ch), tokens: [], comment: null };
    }
    if (ch === '\n') {
      if (depth === 0) finish();
      line++;
      atLineStart = true;
      i++;
      continue;
    }
    if (isSpace(ch)) { i++; continue; }
    if (ch === ';') {
      let j = text.indexOf('\n', i);
      if (j < 0) j = n;
      const c = text.slice(i + 1, j).trim();
      lineComment = c === '' ? null : c;
      i = j;
      continue;
    }
    if (ch === '(') {
      if (depth > 0) throw lineError(line, 'nested "(" is not allowed');
      depth = 1;
      parenLine = line;
      i++;
      continue;
    }
    if (ch === ')') {
      if (depth === 0) throw lineError(line, '")" without a matching "("');
      depth = 0;
      i++;
      continue;
    }
    const start = i;
    if (ch === '"') {
      i++;
      while (i < n && text[i] !== '"') {
        if (text[i] === '\n') throw lineError(line, 'a quoted string is not closed on its line');
        i += text[i] === '\\' ? 2 : 1;
      }
      if (i >= n) throw lineError(line, 'a quoted string is not closed');
      i++;
    } else {
      while (i < n) {
        const c = text[i]!;
        if (c === '\\') { i += text[i + 1] === '\n' || i + 1 >= n ? 1 : 2; continue; }
        if (isSpace(c) || c === '\n' || c === ';' || c === '(' || c === ')' || c === '"') break;
        i++;
      }
    }
    entry!.tokens.push(text.slice(start, i));
  }
  if (depth > 0) throw lineError(parenLine, '"(" is not closed');
  finish();
  return entries;
}
