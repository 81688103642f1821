/**
 * Request bodies. JSON is read leniently where clients are lenient: an empty body (with or without
 * `Content-Type: application/json`, as python-cloudflare sends on DELETE) is `{}`. Malformed JSON is a 400
 * with code 6007; a JSON value that is not an object, where an object is expected, is 1104. Bodies are read
 * within the size limit and checked for nesting depth before parsing (`body-limit.ts`).
 */
import type { Context } from 'hono';
import { AppError } from '../shared/errors.js';
import { MAX_JSON_DEPTH, jsonDeeperThan, readBodyBytes, tooDeep } from './body-limit.js';

/** The parsed JSON body, `{}` when empty. */
export async function readJson(c: Context): Promise<unknown> {
  const text = new TextDecoder().decode(await readBodyBytes(c));
  if (text.trim() === '') return {};
  if (jsonDeeperThan(text, MAX_JSON_DEPTH)) throw tooDeep();
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw new AppError(6007, 'Malformed JSON in request body', 400);
  }
}

/** The parsed JSON body, which must be an object. */
export async function readJsonObject(c: Context): Promise<Record<string, unknown>> {
  const body = await readJson(c);
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw new AppError(1104, 'The request body must be a JSON object', 400);
  }
  return body as Record<string, unknown>;
}

/** The multipart/form-data body, read within the size limit. */
export async function readFormData(c: Context): Promise<FormData> {
  const bytes = await readBodyBytes(c);
  return new Response(bytes as Uint8Array<ArrayBuffer>, { headers: { 'content-type': c.req.header('content-type') ?? '' } }).formData();
}
