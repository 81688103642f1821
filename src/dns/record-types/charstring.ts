/**
 * RFC 1035 character-strings in presentation form (https://www.rfc-editor.org/rfc/rfc1035#section-5.1):
 * `"..."` with `\"`, `\\`, `\X` (X itself) and `\DDD` (a decimal byte) escapes. Strings are handled as
 * bytes (UTF-8 for text) so that the 255-byte limit is counted as DNS counts it.
 */

const encoder = new TextEncoder();
const strictDecoder = new TextDecoder('utf-8', { fatal: true });

/** Result of parsing a run of quoted strings. */
export type QuotedParse = { ok: true; strings: Uint8Array[] } | { ok: false; problem: string };

/** Decodes the escapes of a string body (the text between the quotes, or an unquoted token). */
export function unescapeBytes(body: string): Uint8Array | undefined {
  if (!body.includes('\\')) return encoder.encode(body); // fast path: no escapes (most TXT values)
  const out: number[] = [];
  for (let i = 0; i < body.length; ) {
    const ch = body[i]!;
    if (ch !== '\\') {
      const cp = body.codePointAt(i)!;
      const s = String.fromCodePoint(cp);
      out.push(...encoder.encode(s));
      i += s.length;
      continue;
    }
    const next = body[i + 1];
    if (next === undefined) return undefined;
    if (/[0-9]/.test(next)) {
      const digits = body.slice(i + 1, i + 4);
      if (!/^[0-9]{3}$/.test(digits) || Number(digits) > 255) return undefined;
      out.push(Number(digits));
      i += 4;
    } else {
      const cp = body.codePointAt(i + 1)!;
      const s = String.fromCodePoint(cp);
      out.push(...encoder.encode(s));
      i += 1 + s.length;
    }
  }
  return Uint8Array.from(out);
}

/**
 * Parses one or more quoted strings separated by white space. Text outside quotes, a quote left open, or
 * a bad escape is a problem.
 */
export function parseQuotedStrings(text: string): QuotedParse {
  const strings: Uint8Array[] = [];
  let i = 0;
  const n = text.length;
  while (i < n) {
    while (i < n && /\s/.test(text[i]!)) i++;
    if (i >= n) break;
    if (text[i] !== '"') return { ok: false, problem: `text outside quotes at position ${i + 1}` };
    let j = i + 1;
    while (j < n && text[j] !== '"') j += text[j] === '\\' ? 2 : 1;
    if (j >= n) return { ok: false, problem: 'a quoted string is not closed' };
    const bytes = unescapeBytes(text.slice(i + 1, j));
    if (!bytes) return { ok: false, problem: 'a quoted string has an invalid escape' };
    strings.push(bytes);
    i = j + 1;
    if (i < n && !/\s/.test(text[i]!)) return { ok: false, problem: `text right after a closing quote at position ${i + 1}` };
  }
  if (strings.length === 0) return { ok: false, problem: 'no quoted string' };
  return { ok: true, strings };
}

/** Escapes text for the inside of a quoted string: `"` and `\` escaped, control characters as `\DDD`. */
function escapeText(text: string): string {
  let out = '';
  for (const ch of text) {
    const c = ch.codePointAt(0)!;
    if (ch === '"' || ch === '\\') out += `\\${ch}`;
    else if (c < 0x20 || c === 0x7f) out += `\\${String(c).padStart(3, '0')}`;
    else out += ch;
  }
  return out;
}

/** The quoted presentation of a byte string (valid UTF-8 kept as text, other high bytes as `\DDD`). */
export function formatCharString(bytes: Uint8Array): string {
  try {
    return `"${escapeText(strictDecoder.decode(bytes))}"`;
  } catch {
    let out = '';
    for (const b of bytes) {
      if (b >= 0x20 && b < 0x7f) out += escapeText(String.fromCharCode(b));
      else out += `\\${String(b).padStart(3, '0')}`;
    }
    return `"${out}"`;
  }
}

/** The quoted presentation of a text. */
export function quoteText(text: string): string {
  return formatCharString(encoder.encode(text));
}

/** UTF-8 bytes of a text. */
export function utf8(text: string): Uint8Array {
  return encoder.encode(text);
}

/** Text of bytes (invalid UTF-8 replaced). */
export function bytesToText(bytes: Uint8Array): string {
  return new TextDecoder().decode(bytes);
}

/**
 * Splits a byte string into pieces of at most `max` bytes, cutting only between UTF-8 characters when the
 * string is valid UTF-8 (continuation bytes never start a piece unless the input already did).
 */
export function splitBytes(bytes: Uint8Array, max = 255): Uint8Array[] {
  if (bytes.length <= max) return [bytes];
  const out: Uint8Array[] = [];
  let start = 0;
  while (bytes.length - start > max) {
    let cut = start + max;
    let back = cut;
    while (back > start + max - 3 && (bytes[back]! & 0xc0) === 0x80) back--;
    if ((bytes[back]! & 0xc0) !== 0x80 && back > start) cut = back;
    out.push(bytes.subarray(start, cut));
    start = cut;
  }
  out.push(bytes.subarray(start));
  return out;
}
