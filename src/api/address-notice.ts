/**
 * The "at least one address record" notice (contract: each zone needs at least one IP-address-resolution
 * record): a zone without any A, AAAA or CNAME record says so in `messages` (code 1120) of its record list
 * and of its DNS settings GET. The zone keeps working; the notice tells the caller what is missing.
 */
import type { Context } from 'hono';
import type { ApiEnv } from './context.js';

/** Code of the notice (catalogued in src/shared/error-codes.ts). */
export const NO_ADDRESS_RECORD_CODE = 1120;

/** Adds the notice to the response's `messages` when the zone has no A, AAAA or CNAME record. */
export async function noteMissingAddressRecord(c: Context<ApiEnv>, zone: { id: string; name: string }): Promise<void> {
  if (await c.get('services').records.hasAddressRecord(zone)) return;
  c.get('messages').push({
    code: NO_ADDRESS_RECORD_CODE,
    message: `Zone ${zone.name} has no A, AAAA or CNAME record; every zone needs at least one record that resolves a name to an address.`,
  });
}
