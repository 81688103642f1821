/**
 * `POST /zones`, `GET /zones`, `GET /zones/:zone_id`, `PATCH /zones/:zone_id`, `DELETE /zones/:zone_id`. `GET /zones?name=` matches the
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
import type { ApiDeps } from '../deps.js';
import { isoTimestamp } from '../../shared/clock.js';
import { applyZoneAttributes, parseZoneEdit } from '../../zones/zone-edit.js';
import { AppError } from '../../shared/errors.js';

/** Routes of zones. */
export function zoneRoutes(deps: ApiDeps): Hono<ApiEnv> {
  const { db } = deps;
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
    return ok(c, zoneView(zone, c.get('user').email, deps.clock.now().getTime()));
  });
  app.get('/zones', async (c) => {
    const q = (k: string) => c.req.query(k);
    const { page, perPage } = parsePaging(q('page'), q('per_page'), { defaultPerPage: 20, maxPerPage: 1000 });
    const user = c.get('user');
    const zoneScope = await zoneListScope(c.get('services').zones, user);
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
    return okPage(c, zones.map((z) => zoneView(z, c.get('user').email, deps.clock.now().getTime())), page, perPage, total);
  });
  app.get('/zones/:zone_id', async (c) => {
    const zone = await requireZone(c, c.req.param('zone_id'));
    return ok(c, zoneView(zone, c.get('user').email, deps.clock.now().getTime()));
  });
  // Edit (zone-edit.ts): paused and vanity name servers are zone attributes stored with the settings, so the
  // change reaches the DNS servers like a settings change (new serial, change feed, change log).
  app.patch('/zones/:zone_id', async (c) => {
    const zone = await requireZone(c, c.req.param('zone_id'));
    const edit = parseZoneEdit(await readJsonObject(c));
    if (edit.type !== undefined && edit.type !== zone.type && (edit.type === 'secondary' || zone.type === 'secondary')) {
      throw new AppError(1102, `Invalid zone type ${JSON.stringify(edit.type)}: a zone is secondary (a copy of its primaries) from its creation to its deletion; create a new zone instead`);
    }
    const now = isoTimestamp(deps.clock.now());
    await c.get('services').settings.updateZone(zone.id, (state) => ({
      ...(edit.paused !== undefined || edit.vanity_name_servers !== undefined ? { zone: applyZoneAttributes(state.zone, edit) } : {}),
      ...(edit.type !== undefined ? { type: edit.type } : {}),
      modifiedOn: now,
    }));
    const updated = await requireZone(c, zone.id);
    return ok(c, zoneView(updated, c.get('user').email, deps.clock.now().getTime()));
  });
  app.delete('/zones/:zone_id', async (c) => {
    const zone = await requireZone(c, c.req.param('zone_id'));
    await c.get('services').zones.delete(zone.id);
    return ok(c, { id: zone.id });
  });
  return app;
}
