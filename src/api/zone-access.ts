/**
 * Zone access for routes under `/zones/:zone_id/…`: {@link requireZone} returns the caller's zone or fails
 * with 404 + 7003 (`Could not route to /client/v4/zones/<id>/…, perhaps your object identifier is
 * invalid?`) for an unknown, malformed or foreign id alike, so a caller never learns that another account's
 * zone exists. 404 (not 400) so that the official SDK raises `NotFoundError`. An API token must also hold the
 * route's capability on the zone (`token-access.ts`).
 */
import type { Context } from 'hono';
import type { ApiEnv } from './context.js';
import type { ZoneWithAccount } from '../zones/zones-service.js';
import { authorizeZone } from './token-access.js';

/** The authenticated caller's zone with this id (the request path is named in the error). */
export async function requireZone(c: Context<ApiEnv>, zoneId: string): Promise<ZoneWithAccount> {
  const zone = await c.get('services').zones.get(c.get('user'), zoneId, c.req.path);
  authorizeZone(c, zone);
  return zone;
}

/** The id and name of the authenticated caller's zone with this id; the same errors as {@link requireZone}. */
export async function requireZoneRef(c: Context<ApiEnv>, zoneId: string): Promise<{ id: string; name: string }> {
  const zone = await c.get('services').zones.ref(c.get('user'), zoneId, c.req.path);
  authorizeZone(c, zone);
  return { id: zone.id, name: zone.name };
}
