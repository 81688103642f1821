/** Success responses of routes: the envelope with the request's collected `messages`. */
import type { Context } from 'hono';
import type { ApiEnv } from './context.js';
import { pageInfo, successBody } from './envelope.js';

/** A 200 envelope around one result. */
export function ok(c: Context<ApiEnv>, result: unknown): Response {
  return c.json(successBody(result, c.get('messages')));
}

/** A 200 envelope around one page of a list, with exact `result_info`. */
export function okPage(c: Context<ApiEnv>, items: unknown[], page: number, perPage: number, total: number): Response {
  return c.json(successBody(items, c.get('messages'), pageInfo(page, perPage, items.length, total)));
}
