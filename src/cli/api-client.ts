/**
 * The v4 API as the `stratus zone` commands call it: base URL and credentials from flags or wrangler's
 * variables (`CLOUDFLARE_API_BASE_URL`; `CLOUDFLARE_API_TOKEN`, or `CLOUDFLARE_EMAIL` + `CLOUDFLARE_API_KEY`),
 * and every failure as one {@link ApiCallError} line (unreachable server, an error envelope's codes).
 */
import { ConfigError } from '../config/config.js';

/** Default base URL: `stratus serve`'s default `--http` listener. */
export const DEFAULT_API_URL = 'http://127.0.0.1:8787/client/v4';

/** Where and as whom to call. */
export interface ApiTarget {
  base: string;
  headers: Record<string, string>;
  /** What the credentials are, for messages (`API token`, `global key of a@b.c`). */
  who: string;
}

/** A failed call: the message is a whole line for the operator; `codes` are the envelope's error codes. */
export class ApiCallError extends Error {
  override name = 'ApiCallError';
  constructor(message: string, readonly status: number, readonly codes: number[] = [], readonly messages: string[] = []) {
    super(message);
  }
}

/** The target from the flags (`api-url`, `token`, `api-email`, `api-key`) and then the environment. */
export function apiTarget(flags: Record<string, string>, env: NodeJS.ProcessEnv): ApiTarget {
  const base = (flags['api-url'] ?? env.CLOUDFLARE_API_BASE_URL ?? DEFAULT_API_URL).replace(/\/+$/, '');
  let url: URL;
  try {
    url = new URL(base);
  } catch {
    throw new ConfigError(`--api-url must be a URL such as ${DEFAULT_API_URL}, got "${base}"`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new ConfigError(`--api-url must be an http:// or https:// URL, got "${base}"`);
  const token = flags.token ?? env.CLOUDFLARE_API_TOKEN;
  if (token) return { base, headers: { authorization: `Bearer ${token}` }, who: 'the API token' };
  const email = flags['api-email'] ?? env.CLOUDFLARE_EMAIL;
  const key = flags['api-key'] ?? env.CLOUDFLARE_API_KEY;
  if (email && key) return { base, headers: { 'x-auth-email': email, 'x-auth-key': key }, who: `the global key of ${email}` };
  throw new ConfigError('no credentials: set CLOUDFLARE_API_TOKEN (or --token), or CLOUDFLARE_EMAIL and CLOUDFLARE_API_KEY (or --api-email and --api-key); `stratus credentials` prints the generated ones');
}

/** Calls `method path` and returns the response, or throws ApiCallError for a network failure or a non-2xx answer. */
export async function apiCall(target: ApiTarget, method: string, path: string, body?: BodyInit): Promise<Response> {
  let res: Response;
  try {
    res = await fetch(`${target.base}${path}`, { method, headers: target.headers, ...(body !== undefined ? { body } : {}) });
  } catch (err) {
    const cause = (err as { cause?: { code?: string; message?: string } }).cause;
    throw new ApiCallError(`cannot reach ${target.base} (${cause?.code ?? cause?.message ?? (err as Error).message}): is stratus serve running there? (--api-url or CLOUDFLARE_API_BASE_URL)`, 0);
  }
  if (res.ok) return res;
  const text = await res.text();
  let errors: { code?: unknown; message?: unknown }[] = [];
  try {
    const parsed = JSON.parse(text) as { errors?: unknown };
    if (Array.isArray(parsed.errors)) errors = parsed.errors as typeof errors;
  } catch { /* not an envelope */ }
  if (errors.length === 0) throw new ApiCallError(`${method} ${path}: HTTP ${res.status} ${text.slice(0, 200)}`, res.status);
  const codes = errors.map((e) => Number(e.code) || 0);
  const messages = errors.map((e) => String(e.message ?? ''));
  const hint = res.status === 401 || res.status === 403 ? ` (as ${target.who})` : '';
  throw new ApiCallError(errors.map((e, i) => `${messages[i]} (code ${codes[i]})`).join('; ') + hint, res.status, codes, messages);
}

/** The `result` of a JSON envelope answer. */
export async function apiResult<T>(target: ApiTarget, method: string, path: string, body?: BodyInit): Promise<T> {
  const res = await apiCall(target, method, path, body);
  return ((await res.json()) as { result: T }).result;
}

/** The id of the zone named `name` among those the credentials see; a clear error when there is none. */
export async function findZoneId(target: ApiTarget, name: string): Promise<string> {
  const wanted = name.replace(/\.$/, '').toLowerCase();
  const zones = await apiResult<{ id: string; name: string }[]>(target, 'GET', `/zones?name=${encodeURIComponent(wanted)}`);
  const zone = zones.find((z) => z.name.toLowerCase() === wanted);
  if (!zone) {
    throw new ApiCallError(`no zone ${wanted} among the zones ${target.who} can see at ${target.base}: check --zone, or use the credentials of the account that owns it`, 404);
  }
  return zone.id;
}
