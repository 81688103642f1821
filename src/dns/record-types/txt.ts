/**
 * TXT: one or more RFC 1035 character-strings. Content starting with `"` must be a clean run of quoted
 * strings (anything else is inconsistent quoting); other content becomes one string, quotes added, inner
 * `"` and `\` escaped (an odd number of inner quotes is unbalanced and refused). Strings over 255 bytes
 * are split into 255-byte strings; the text may total 2048 characters (reference §4.2, §11). Stored
 * form: each string quoted, one space between (see `../record.ts`).
 */
import { bytesToText, formatCharString, parseQuotedStrings, splitBytes, unescapeBytes, utf8 } from './charstring.js';
import { contentString } from './content.js';
import { report, TXT_QUOTING, TXT_TOO_LONG } from './errors.js';
import type { RecordTypeSpec } from './types.js';

/** The longest TXT text, in characters of the strings' text. */
export const TXT_MAX_CHARACTERS = 2048;
/** Most characters of all TXT records at one name together (production's limit). */
export const TXT_NAME_MAX_CHARACTERS = 8192;

/** Characters of a stored TXT content's strings (what both limits count); 0 when it does not parse. */
export function txtCharacters(content: string): number {
  const parsed = txtStrings(content);
  return parsed.ok ? parsed.strings.reduce((n, b) => n + [...bytesToText(b)].length, 0) : 0;
}

/** The character-strings of TXT content (see the module comment), or a quoting problem. */
export function txtStrings(content: string): { ok: true; strings: Uint8Array[] } | { ok: false; problem: string } {
  const trimmed = content.trim();
  if (trimmed.startsWith('"')) {
    const parsed = parseQuotedStrings(trimmed);
    if (!parsed.ok) return { ok: false, problem: `inconsistent quotes (${parsed.problem}); quote every string, or send the text without outer quotes` };
    return parsed;
  }
  if ((content.match(/"/g)?.length ?? 0) % 2 === 1) {
    return { ok: false, problem: 'inconsistent quotes (an odd number of quotes in unquoted text); quote every string, or balance the quotes' };
  }
  return { ok: true, strings: [utf8(content)] };
}

/**
 * The text of stored TXT content without quotes or escapes, the strings concatenated (`"a" "b"` -> `ab`);
 * what a client that sent unquoted content (certbot) filters by.
 */
export function txtPlainText(content: string): string {
  const parsed = txtStrings(content);
  return parsed.ok ? parsed.strings.map(bytesToText).join('') : content;
}

/** TXT: quoted strings, split at 255 bytes. */
export const TXT_SPEC: RecordTypeSpec = {
  type: 'TXT',
  usesData: false,
  validate(input, ctx) {
    const s = contentString('TXT', input.content, ctx.errors);
    if (s === undefined) return undefined;
    const parsed = txtStrings(s);
    if (!parsed.ok) return void report(ctx.errors, TXT_QUOTING, { detail: parsed.problem });
    const length = parsed.strings.reduce((n, b) => n + [...bytesToText(b)].length, 0);
    if (length > TXT_MAX_CHARACTERS) return void report(ctx.errors, TXT_TOO_LONG, { length });
    const pieces = parsed.strings.flatMap((b) => splitBytes(b, 255));
    return { content: pieces.map(formatCharString).join(' '), data: null, priority: null };
  },
  toPresentation: (v) => v.content,
  parsePresentation(tokens) {
    if (tokens.length === 0) throw new Error('TXT RDATA needs at least one string');
    const parts = tokens.map((t) => {
      const body = t.startsWith('"') ? t.slice(1, -1) : t;
      const bytes = unescapeBytes(body);
      if (!bytes) throw new Error(`TXT string ${t} has an invalid escape`);
      return formatCharString(bytes);
    });
    return { content: parts.join(' ') };
  },
};
