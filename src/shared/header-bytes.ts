/**
 * Control bytes in request headers. RFC 9110 §5.5 allows no control character other than HTAB in a field
 * value; a lenient HTTP parser (Node's `insecureHTTPParser`, which no listener uses any more) lets NUL
 * and other C0 bytes through, and the web `Headers` class then throws on NUL while the request is being
 * read, with the value (a key, a token) in its message. The edges check the raw header list first and answer
 * in their own format, never echoing the value.
 */

/** C0 control bytes other than HTAB, and DEL. */
const CONTROL = /[\u0000-\u0008\u000a-\u001f\u007f]/;

/** Lowercase names of headers that carry credentials (v4 and S3). */
export const CREDENTIAL_HEADERS: ReadonlySet<string> = new Set([
  'authorization', 'x-auth-email', 'x-auth-key', 'x-amz-security-token', 'x-amz-content-sha256', 'x-amz-date',
  'x-amz-server-side-encryption-customer-key', 'x-amz-server-side-encryption-customer-key-md5',
  'x-amz-copy-source-server-side-encryption-customer-key', 'x-amz-copy-source-server-side-encryption-customer-key-md5',
]);

/** True when `value` holds a control byte a header value may not hold. */
export function hasControlByte(value: string): boolean {
  return CONTROL.test(value);
}

/**
 * The lowercase name of the first header (Node's `rawHeaders`: name, value, name, value…) whose value holds a
 * control byte: any control byte in a credential header, NUL anywhere (which no `Headers` object accepts).
 */
export function headerWithControlByte(rawHeaders: readonly string[]): string | undefined {
  for (let i = 0; i + 1 < rawHeaders.length; i += 2) {
    const name = rawHeaders[i]!.toLowerCase();
    const value = rawHeaders[i + 1]!;
    if (CREDENTIAL_HEADERS.has(name) ? hasControlByte(value) : value.includes('\u0000')) return name;
  }
  return undefined;
}

/** Node's raw header list of a request served by `@hono/node-server` (its `env.incoming`), if there is one. */
export function rawHeadersOf(env: unknown): readonly string[] | undefined {
  return (env as { incoming?: { rawHeaders?: string[] } } | undefined)?.incoming?.rawHeaders;
}
