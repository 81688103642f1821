/**
 * Routes of a zone: `GET|POST /zones/:zone_id/workers/routes`, `GET|PUT|DELETE
 * /zones/:zone_id/workers/routes/:route_id`. The zone must be the caller's (404 7003 otherwise); an API
 * token needs Workers Routes Read/Write on it.
 */
import { Hono } from 'hono';
import type { ApiEnv } from '../context.js';
import { readJsonObject } from '../body.js';
import { ok } from '../respond.js';
import { requireZone } from '../zone-access.js';
import { routeView } from '../../scripts/routes-service.js';

/** The routes. */
export function workersZoneRoutes(): Hono<ApiEnv> {
  const app = new Hono<ApiEnv>();
  const base = '/zones/:zone_id/workers/routes';
  app.get(base, async (c) => {
    const zone = await requireZone(c, c.req.param('zone_id'));
    return ok(c, (await c.get('services').workerRoutes.list(zone.id)).map(routeView));
  });
  app.post(base, async (c) => {
    const zone = await requireZone(c, c.req.param('zone_id'));
    return ok(c, routeView(await c.get('services').workerRoutes.create(zone, await readJsonObject(c))));
  });
  app.get(`${base}/:route_id`, async (c) => {
    const zone = await requireZone(c, c.req.param('zone_id'));
    return ok(c, routeView(await c.get('services').workerRoutes.get(zone.id, c.req.param('route_id'))));
  });
  app.put(`${base}/:route_id`, async (c) => {
    const zone = await requireZone(c, c.req.param('zone_id'));
    return ok(c, routeView(await c.get('services').workerRoutes.update(zone, c.req.param('route_id'), await readJsonObject(c))));
  });
  app.delete(`${base}/:route_id`, async (c) => {
    const zone = await requireZone(c, c.req.param('zone_id'));
    await c.get('services').workerRoutes.delete(zone.id, c.req.param('route_id'));
    return ok(c, { id: c.req.param('route_id') });
  });
  return app;
}
