/**
 * Keeps credentials out of logged errors. Field names that hold secrets are redacted by pino itself
 * (`logger.ts`); this module cleans what those paths cannot reach, inside serialized errors:
 *
 * - the web `Headers` class puts a refused header value in its message (`Headers.append: "<value>" is an
 *   invalid header value.`): the value may be a key or a token;
 * - PostgreSQL errors carry the offending row in `detail` (`Key (value_hash)=(<hash>) already exists.`; a
 *   token's hash is its S3 secret) and sometimes in `where`; SQLite's messages name only columns.
 *
 * Anything quoted in such a message is replaced by `[redacted]`, in the message, the stack and the causes.
 */

/** A serialized error (pino's `stdSerializers.err` output). */
type SerializedError = Record<string, unknown> & { message?: unknown; stack?: unknown; cause?: unknown };

/** Fields of driver errors that echo row values. */
const VALUE_FIELDS = ['detail', 'where', 'parameters', 'internalQuery'];

/** The text with header values and key tuples replaced. */
export function redactText(text: string): string {
  return text
    .replace(/(Headers\.\w+: )"(?:[^"\\]|\\.)*"/g, '$1"[redacted]"')
    .replace(/(Key \([^)]*\)=)\((?:[^()]|\([^)]*\))*\)/g, '$1([redacted])')
    .replace(/(invalid header value|Invalid character in header content) \S.*$/gim, '$1 [redacted]');
}

/** The serialized error with values that may be credentials removed (see the module comment). */
export function redactError<T>(serialized: T): T {
  if (serialized === null || typeof serialized !== 'object') return serialized;
  const out: SerializedError = { ...(serialized as SerializedError) };
  for (const field of VALUE_FIELDS) if (field in out) out[field] = '[redacted]';
  if (typeof out.message === 'string') out.message = redactText(out.message);
  if (typeof out.stack === 'string') out.stack = redactText(out.stack);
  if (out.cause !== undefined) out.cause = redactError(out.cause);
  return out as T;
}
