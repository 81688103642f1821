/**
 * The "at least one address record" notice (contract: each zone needs at least one IP-address-resolution
 * record): a zone without any A, AAAA or CNAME record says so in `messages` (code 1120) of its record list
 * and of its DNS settings GET. The zone keeps working; the notice tells the caller what is missing.
 */
import type { Context } from 'hono';
import type { ApiEnv } from './context.js';
import { ADDRESS_TYPES } from '../zones/list-query/address-records.js';

/** Code of the notice (catalogued in src/error-catalogue.ts). */
export const NO_ADDRESS_RECORD_CODE = 1120;

/**
 * Adds the notice to the response's `messages` when the zone has no A, AAAA or CNAME record. `seen`: records
 * already read from the zone (a list's page); one of them being an address record settles it without a query.
 */
export async function noteMissingAddressRecord(c: Context<ApiEnv>, zone: { id: string; name: string }, seen: readonly { type: string }[] = []): Promise<void> {
  if (seen.some((r) => (ADDRESS_TYPES as readonly string[]).includes(r.type))) return;
  if (await c.get('services').records.hasAddressRecord(zone)) return;
  c.get('messages').push({
    code: NO_ADDRESS_RECORD_CODE,
    message: `Zone ${zone.name} has no A, AAAA or CNAME record; every zone needs at least one record that resolves a name to an address.`,
  });
}
