/** Small helpers for v4 API tests: raw requests with the test server's credentials, and a zone per test. */
import type { TestServer } from './server.js';

/** A parsed v4 response. */
export interface RawResponse {
  status: number;
  headers: Headers;
  body: { success: boolean; result: any; errors: { code: number; message: string; error_chain?: { code: number; message: string }[] }[]; messages: { code: number; message: string }[]; result_info?: Record<string, number> };
}

/** Sends a request to `<apiBase><path>` with the admin credentials (override or drop them with `headers`). */
export async function api(server: TestServer, method: string, path: string, body?: unknown, headers: Record<string, string | undefined> = {}): Promise<RawResponse> {
  const h: Record<string, string> = {};
  const all: Record<string, string | undefined> = { 'x-auth-email': server.email, 'x-auth-key': server.key, ...(body !== undefined ? { 'content-type': 'application/json' } : {}), ...headers };
  for (const [k, v] of Object.entries(all)) if (v !== undefined) h[k] = v;
  const res = await fetch(`${server.apiBase}${path}`, { method, headers: h, ...(body !== undefined ? { body: typeof body === 'string' ? body : JSON.stringify(body) } : {}) });
  return { status: res.status, headers: res.headers, body: (await res.json()) as RawResponse['body'] };
}

/** The id of the admin's (first) account. */
export async function accountId(server: TestServer): Promise<string> {
  const res = await api(server, 'GET', '/accounts');
  return res.body.result[0].id as string;
}

/** Creates a zone in the admin's account through the SDK; returns its id. */
export async function createZone(server: TestServer, name: string): Promise<string> {
  const zone = await server.sdk().zones.create({ account: { id: await accountId(server) }, name, type: 'full' });
  return zone.id;
}
