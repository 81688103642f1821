/**
 * `POST /zones`, `GET /zones`, `GET /zones/:zone_id`, `DELETE /zones/:zone_id`. `GET /zones?name=` matches the
 * whole zone name only (certbot asks for `www.example.com` first and must get `[]`).
 */
import { Hono } from 'hono';
import type { ApiEnv } from '../context.js';
import { readJsonObject } from '../body.js';
import { parseChoice, parsePaging } from '../paging.js';
import { ok, okPage } from '../respond.js';
import { zoneView } from '../zone-view.js';
import { requireZone } from '../zone-access.js';
import { authorizeAccount, zoneListScope } from '../token-access.js';
import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema.js';

/** Routes of zones. */
export function zoneRoutes(db: Kysely<Database>): Hono<ApiEnv> {
  const app = new Hono<ApiEnv>();
  app.post('/zones', async (c) => {
    const body = await readJsonObject(c);
    const account = body.account as { id?: unknown } | undefined;
    if (typeof account?.id === 'string' && c.get('user').accountIds.includes(account.id)) authorizeAccount(c, account.id, ['zone:edit']);
    const zone = await c.get('services').zones.create(c.get('user'), {
      name: body.name,
      accountId: typeof account === 'object' && account !== null ? account.id : undefined,
      type: body.type,
    });
    return ok(c, zoneView(zone, c.get('user').email));
  });
  app.get('/zones', async (c) => {
    const q = (k: string) => c.req.query(k);
    const { page, perPage } = parsePaging(q('page'), q('per_page'), { defaultPerPage: 20, maxPerPage: 1000 });
    const user = c.get('user');
    const zoneScope = await zoneListScope(db, user);
    const { zones, total } = await c.get('services').zones.list(zoneScope ? { ...user, zoneScope } : user, {
      ...(q('name') !== undefined ? { name: q('name')! } : {}),
      ...(q('status') !== undefined ? { status: q('status')! } : {}),
      ...(q('account.id') !== undefined ? { accountId: q('account.id')! } : {}),
      ...(q('account.name') !== undefined ? { accountName: q('account.name')! } : {}),
      page,
      perPage,
      order: parseChoice('order', q('order'), ['name', 'status', 'account.id', 'account.name'] as const, 'name'),
      direction: parseChoice('direction', q('direction'), ['asc', 'desc'] as const, 'asc'),
    });
    return okPage(c, zones.map((z) => zoneView(z, c.get('user').email)), page, perPage, total);
  });
  app.get('/zones/:zone_id', async (c) => {
    const zone = await requireZone(c, c.req.param('zone_id'));
    return ok(c, zoneView(zone, c.get('user').email));
  });
  app.delete('/zones/:zone_id', async (c) => {
    const zone = await requireZone(c, c.req.param('zone_id'));
    await c.get('services').zones.delete(zone.id);
    return ok(c, { id: zone.id });
  });
  return app;
}
