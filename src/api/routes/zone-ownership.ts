/**
 * Routes about who owns a zone's name (docs/security.md):
 * - `PUT /zones/:zone_id/activation_check`: decides the zone's status again now (a subdomain setup whose
 *   parent has added the delegation becomes active); answers `{id}` as production does, whatever the outcome.
 * - `GET|POST|PATCH|DELETE /zones/:zone_id/hold`: the zone hold (zones/zone-holds.ts); answers the hold
 *   object `{hold, include_subdomains, hold_after}`.
 */
import { Hono } from 'hono';
import type { ApiEnv } from '../context.js';
import { readJsonObject } from '../body.js';
import { ok } from '../respond.js';
import { requireZoneRef } from '../zone-access.js';
import { parseIncludeSubdomains } from '../../zones/zone-holds.js';

/** Activation check and zone hold routes. */
export function zoneOwnershipRoutes(): Hono<ApiEnv> {
  const app = new Hono<ApiEnv>();
  app.put('/zones/:zone_id/activation_check', async (c) => {
    const zone = await requireZoneRef(c, c.req.param('zone_id'));
    await c.get('services').zones.ownership.reconsider(zone.id, true);
    return ok(c, { id: zone.id });
  });
  app.get('/zones/:zone_id/hold', async (c) => {
    const zone = await requireZoneRef(c, c.req.param('zone_id'));
    return ok(c, await c.get('services').holds.get(zone.id));
  });
  app.post('/zones/:zone_id/hold', async (c) => {
    const zone = await requireZoneRef(c, c.req.param('zone_id'));
    const raw = c.req.query('include_subdomains');
    return ok(c, await c.get('services').holds.create(zone.id, raw === undefined ? undefined : parseIncludeSubdomains(raw)));
  });
  app.patch('/zones/:zone_id/hold', async (c) => {
    const zone = await requireZoneRef(c, c.req.param('zone_id'));
    const body = await readJsonObject(c);
    return ok(c, await c.get('services').holds.edit(zone.id, body));
  });
  app.delete('/zones/:zone_id/hold', async (c) => {
    const zone = await requireZoneRef(c, c.req.param('zone_id'));
    return ok(c, await c.get('services').holds.remove(zone.id, c.req.query('hold_after')));
  });
  return app;
}
