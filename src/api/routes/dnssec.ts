/**
 * DNSSEC of a zone: `GET/PATCH/DELETE /zones/:zone_id/dnssec` (and `GET .../dnssec/zsk`) in the shape of the official SDK's
 * `dns.dnssec` (dnssec/dnssec-view.ts); the state machine is dnssec/dnssec-service.ts. Only the zone's
 * account sees or changes it (requireZone: 404 + 7003 for anyone else); tokens need DNS Read / DNS Write.
 */
import { Hono } from 'hono';
import type { ApiEnv } from '../context.js';
import type { ApiDeps } from '../deps.js';
import { requireZone } from '../zone-access.js';
import { readJson } from '../body.js';
import { ok } from '../respond.js';
import { dnssecView, parseDnssecPatch } from '../../zones/dnssec/dnssec-view.js';
import { zskList } from '../../zones/dnssec/zsk-view.js';

/** Routes of `/zones/:zone_id/dnssec`. */
export function dnssecRoutes(deps: ApiDeps): Hono<ApiEnv> {
  const app = new Hono<ApiEnv>();

  app.get('/zones/:zone_id/dnssec', async (c) => {
    const zone = await requireZone(c, c.req.param('zone_id'));
    return ok(c, dnssecView(zone.name, await c.get('services').dnssec.read(zone)));
  });

  // The zone signing keys (one combined key per zone), for multi-signer partners: zsk-view.ts.
  app.get('/zones/:zone_id/dnssec/zsk', async (c) => {
    const zone = await requireZone(c, c.req.param('zone_id'));
    return ok(c, zskList(zone.name, await c.get('services').dnssec.read(zone)));
  });

  app.patch('/zones/:zone_id/dnssec', async (c) => {
    const zone = await requireZone(c, c.req.param('zone_id'));
    const patch = parseDnssecPatch(await readJson(c));
    return ok(c, dnssecView(zone.name, await c.get('services').dnssec.patch(zone, patch)));
  });

  app.delete('/zones/:zone_id/dnssec', async (c) => {
    const zone = await requireZone(c, c.req.param('zone_id'));
    await c.get('services').dnssec.remove(zone);
    return ok(c, zone.id);
  });
  return app;
}
