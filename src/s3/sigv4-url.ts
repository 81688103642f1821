/**
 * The URL side of SigV4 canonicalisation: the path and query taken from the URL string exactly as sent (never
 * through `new URL`, which rewrites them), decoded to bytes and re-encoded per RFC 3986 for the canonical request.
 */

/** Host, path and query of a URL string, untouched (no WHATWG normalisation). */
export function splitUrl(url: string): { host: string; path: string; query: string } {
  let rest = url;
  let host = '';
  const scheme = /^[a-zA-Z][a-zA-Z0-9+.-]*:\/\//.exec(url);
  if (scheme) {
    const after = url.slice(scheme[0].length);
    const end = after.search(/[/?#]/);
    host = end < 0 ? after : after.slice(0, end);
    rest = end < 0 ? '' : after.slice(end);
  }
  const hash = rest.indexOf('#');
  if (hash >= 0) rest = rest.slice(0, hash);
  const q = rest.indexOf('?');
  const path = q < 0 ? rest : rest.slice(0, q);
  return { host: host.replace(/^[^@]*@/, ''), path: path === '' ? '/' : path, query: q < 0 ? '' : rest.slice(q + 1) };
}

/** Query parameters as decoded bytes, in order; a parameter without `=` has an empty value. */
function queryPairs(query: string, plusIsSpace: boolean): [Buffer, Buffer][] {
  return query
    .split('&')
    .filter((part) => part !== '')
    .map((part) => {
      const eq = part.indexOf('=');
      const value = eq < 0 ? '' : part.slice(eq + 1);
      return [percentDecode(eq < 0 ? part : part.slice(0, eq), plusIsSpace), percentDecode(value, plusIsSpace)];
    });
}

/** Decoded query parameters (`+` is a literal plus); the first occurrence of a name wins. */
export function parseQuery(query: string): Map<string, string> {
  const out = new Map<string, string>();
  for (const [k, v] of queryPairs(query, false)) if (!out.has(k.toString())) out.set(k.toString(), v.toString());
  return out;
}

/** RFC 3986 canonical query: names and values re-encoded, sorted by name then value, no signature. */
export function canonicalQuery(query: string, plusIsSpace: boolean): string {
  const pairs = queryPairs(query, plusIsSpace)
    .map(([k, v]) => [uriEncode(k), uriEncode(v)] as const)
    .filter(([k]) => k.toLowerCase() !== 'x-amz-signature');
  pairs.sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : a[1] < b[1] ? -1 : a[1] > b[1] ? 1 : 0));
  return pairs.map(([k, v]) => `${k}=${v}`).join('&');
}

/** The path with each segment decoded and re-encoded per RFC 3986 (an encoded `/` stays encoded). */
export function normalisePath(path: string): string {
  return path
    .split('/')
    .map((segment) => uriEncode(percentDecode(segment, false)))
    .join('/');
}

/** Bytes of `text` (UTF-8) with valid `%XX` escapes decoded; a stray `%` stays literal. */
function percentDecode(text: string, plusIsSpace: boolean): Buffer {
  const bytes = Buffer.from(text, 'utf8');
  if (!bytes.includes(0x25) && !(plusIsSpace && bytes.includes(0x2b))) return bytes;
  const out = Buffer.alloc(bytes.length);
  let n = 0;
  for (let i = 0; i < bytes.length; i++) {
    const b = bytes[i]!;
    if (b === 0x25 && isHex(bytes[i + 1]) && isHex(bytes[i + 2])) {
      out[n++] = parseInt(String.fromCharCode(bytes[i + 1]!, bytes[i + 2]!), 16);
      i += 2;
    } else out[n++] = plusIsSpace && b === 0x2b ? 0x20 : b;
  }
  return out.subarray(0, n);
}

/** True for an ASCII hex digit byte. */
function isHex(b: number | undefined): boolean {
  return b !== undefined && ((b >= 0x30 && b <= 0x39) || (b >= 0x41 && b <= 0x46) || (b >= 0x61 && b <= 0x66));
}

/** RFC 3986 encoding: unreserved `A-Z a-z 0-9 - _ . ~` kept, every other byte `%XX`. */
function uriEncode(bytes: Uint8Array): string {
  let out = '';
  for (const b of bytes) {
    const unreserved =
      (b >= 0x41 && b <= 0x5a) || (b >= 0x61 && b <= 0x7a) || (b >= 0x30 && b <= 0x39) ||
      b === 0x2d || b === 0x5f || b === 0x2e || b === 0x7e;
    out += unreserved ? String.fromCharCode(b) : `%${b.toString(16).toUpperCase().padStart(2, '0')}`;
  }
  return out;
}
