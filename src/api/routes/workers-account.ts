/**
 * Account-level Workers routes: the workers subdomain (`GET|PUT|DELETE …/workers/subdomain`,
 * `GET …/workers/subdomains/:name` to check a name), and the empty answers wrangler reads around a delete
 * (`…/workers/tails/by-consumer/:script`: no tail Workers exist; `…/storage/kv/namespaces`: Stratus has no KV
 * namespaces, so no Workers Sites namespace is left to clean up).
 */
import { Hono } from 'hono';
import type { ApiEnv } from '../context.js';
import { readJsonObject } from '../body.js';
import { ok, okPage } from '../respond.js';
import { parsePaging } from '../paging.js';
import { AppError } from '../../shared/errors.js';
import { WORKERS_CODES } from '../../scripts/errors.js';
import { requireWorkersAccount } from '../workers-access.js';

/** The routes. */
export function workersAccountRoutes(): Hono<ApiEnv> {
  const app = new Hono<ApiEnv>();
  const base = '/accounts/:account_id/workers';
  app.get(`${base}/subdomain`, async (c) => ok(c, { subdomain: await c.get('services').subdomains.get(requireWorkersAccount(c)) }));
  app.put(`${base}/subdomain`, async (c) => {
    const accountId = requireWorkersAccount(c);
    return ok(c, { subdomain: await c.get('services').subdomains.put(accountId, await readJsonObject(c)) });
  });
  app.delete(`${base}/subdomain`, async (c) => {
    await c.get('services').subdomains.delete(requireWorkersAccount(c));
    return ok(c, null);
  });
  app.get(`${base}/subdomains/:name`, async (c) => {
    const accountId = requireWorkersAccount(c);
    const name = c.req.param('name').toLowerCase();
    if (!(await c.get('services').subdomains.available(accountId, name))) throw new AppError(WORKERS_CODES.subdomainUnavailable, `Subdomain ${name} is unavailable.`, 400);
    return ok(c, { subdomain: name, available: true });
  });
  app.get(`${base}/tails/by-consumer/:script_name`, async (c) => {
    requireWorkersAccount(c);
    return ok(c, []);
  });
  app.get('/accounts/:account_id/storage/kv/namespaces', async (c) => {
    requireWorkersAccount(c);
    const { page, perPage } = parsePaging(c.req.query('page'), c.req.query('per_page'), { defaultPerPage: 20, maxPerPage: 1000 });
    return okPage(c, [], page, perPage, 0);
  });
  return app;
}
