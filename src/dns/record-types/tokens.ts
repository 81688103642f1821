/**
 * Splitting the RDATA text of a zone-file line into tokens: white space separates, `"..."` is one token
 * (kept with its quotes and escapes), `;` starts a comment, `(` and `)` only group lines and are dropped.
 */

/** The tokens of RDATA text; throws when a quote is left open. */
export function tokenize(text: string): string[] {
  const out: string[] = [];
  let i = 0;
  while (i < text.length) {
    const ch = text[i]!;
    if (/\s/.test(ch) || ch === '(' || ch === ')') { i++; continue; }
    if (ch === ';') break;
    let j = i;
    if (ch === '"') {
      j++;
      while (j < text.length && text[j] !== '"') j += text[j] === '\\' ? 2 : 1;
      if (j >= text.length) throw new Error('a quoted string is not closed');
      j++;
    } else {
      // An unquoted token may embed a quoted part (`alpn="h3,h2"`), which may hold spaces.
      while (j < text.length && !/[\s();]/.test(text[j]!)) {
        if (text[j] === '"') {
          j++;
          while (j < text.length && text[j] !== '"') j += text[j] === '\\' ? 2 : 1;
          if (j >= text.length) throw new Error('a quoted string is not closed');
        }
        j += text[j] === '\\' ? 2 : 1;
      }
    }
    out.push(text.slice(i, j));
    i = j;
  }
  return out;
}

/** A token without its surrounding quotes (escapes kept). */
export function stripQuotes(token: string): string {
  return token.length >= 2 && token.startsWith('"') && token.endsWith('"') ? token.slice(1, -1) : token;
}

/** Throws unless there are exactly `n` tokens (or at least `n` when `atLeast`). */
export function expectCount(type: string, tokens: string[], n: number, atLeast = false): void {
  if (atLeast ? tokens.length < n : tokens.length !== n) {
    throw new Error(`${type} RDATA needs ${atLeast ? 'at least ' : ''}${n} fields, got ${tokens.length}`);
  }
}

/** A token as a non-negative integer; throws when it is not one. */
export function intToken(type: string, token: string | undefined): number {
  if (token === undefined || !/^[0-9]+$/.test(token)) throw new Error(`${type} RDATA field ${token ?? '(missing)'} is not an integer`);
  return Number(token);
}
