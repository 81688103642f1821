/**
 * The v4 API's request body limits, enforced before a body is read:
 *
 * - size: `--api-body-limit` bytes (default: production's 100 MB). A `Content-Length` above it is refused
 *   with 413 before anything else runs (the body is never read; the connection closes), and before the
 *   client sends it when it asked `Expect: 100-continue` (curl does for large bodies); a chunked body is
 *   counted while it is read and refused as soon as it passes the limit;
 * - JSON nesting: at most {@link MAX_JSON_DEPTH} levels of arrays and objects, checked by a scan of the text
 *   before it is parsed, so no parser, validator or error path ever recurses deeper (400 in the envelope).
 */
import type { Context, MiddlewareHandler } from 'hono';
import type { ApiEnv } from './context.js';
import { AppError } from '../shared/errors.js';

/** Deepest nesting of arrays and objects accepted in a JSON body (the deepest valid body has about 6). */
export const MAX_JSON_DEPTH = 64;
/** Code of a body over the size limit (413). */
export const BODY_TOO_LARGE = 6131;
/** Code of a JSON body nested deeper than {@link MAX_JSON_DEPTH} (400). */
export const BODY_TOO_DEEP = 6130;

/**
 * The answer to an `Expect: 100-continue` request whose `Content-Length` is over `limit` (given to the HTTP
 * listener, so the client is refused before it sends the body); undefined otherwise.
 */
export function refuseBeforeContinue(limit: number): (req: { headers: Record<string, string | string[] | undefined> }) => { status: number; contentType: string; body: string } | undefined {
  return (req) => {
    const declared = req.headers['content-length'];
    if (typeof declared !== 'string' || !/^\d+$/.test(declared.trim()) || Number(declared) <= limit) return undefined;
    const { code, message } = tooLarge(limit);
    return { status: 413, contentType: 'application/json', body: JSON.stringify({ result: null, success: false, errors: [{ code, message }], messages: [] }) };
  };
}

/** The body limit of each request, by request object (set by {@link bodyLimitMiddleware}). */
const limits = new WeakMap<Request, number>();

/** The 413 error for a body over `limit` bytes. */
function tooLarge(limit: number): AppError {
  return new AppError(BODY_TOO_LARGE, `Request body too large: at most ${limit} bytes are accepted`, 413);
}

/** Refuses a declared `Content-Length` over `limit` before the body is read; remembers the limit for readers. */
export function bodyLimitMiddleware(limit: number): MiddlewareHandler<ApiEnv> {
  return async (c, next) => {
    limits.set(c.req.raw, limit);
    const declared = c.req.header('content-length');
    if (declared !== undefined && /^\d+$/.test(declared.trim()) && Number(declared) > limit) {
      c.header('Connection', 'close');
      throw tooLarge(limit);
    }
    await next();
  };
}

/** The whole request body, read while counting: 413 as soon as it passes the request's limit. */
export async function readBodyBytes(c: Context): Promise<Uint8Array> {
  const limit = limits.get(c.req.raw) ?? Infinity;
  const body = c.req.raw.body;
  if (body === null) return new Uint8Array(0);
  const reader = body.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.byteLength;
    if (total > limit) {
      await reader.cancel().catch(() => undefined);
      c.header('Connection', 'close');
      throw tooLarge(limit);
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks);
}

/** True when the JSON text nests arrays and objects deeper than `max` (strings are skipped, escapes too). */
export function jsonDeeperThan(text: string, max: number): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const ch = text.charCodeAt(i);
    if (inString) {
      if (ch === 0x5c) i++; // backslash: skip the escaped character
      else if (ch === 0x22) inString = false;
    } else if (ch === 0x22) {
      inString = true;
    } else if (ch === 0x5b || ch === 0x7b) {
      if (++depth > max) return true;
    } else if (ch === 0x5d || ch === 0x7d) {
      depth--;
    }
  }
  return false;
}

/** The 400 error for a body nested too deeply. */
export function tooDeep(): AppError {
  return new AppError(BODY_TOO_DEEP, `Request body nested too deeply: at most ${MAX_JSON_DEPTH} levels of arrays and objects are accepted`, 400);
}
