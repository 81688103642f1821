/**
 * "Each zone needs at least one IP-address-resolution record" (contract): whether a zone holds an A, AAAA or
 * CNAME record. One indexed probe on (zone_id, type, name).
 */
import type { Kysely } from 'kysely';
import type { Database } from '../../db/schema.js';
import { QueryTemplate } from '../../db/query-template.js';

/** Record types that resolve a name to addresses. */
export const ADDRESS_TYPES = ['A', 'AAAA', 'CNAME'] as const;

/** True when the zone has at least one A, AAAA or CNAME record. */
export async function zoneHasAddressRecord(db: Kysely<Database>, zoneId: string): Promise<boolean> {
  return (await ANY_ADDRESS_RECORD.executeTakeFirst(db, { zoneId })) !== undefined;
}

const ANY_ADDRESS_RECORD = new QueryTemplate<{ zoneId: string }, { id: string }>((db, p) => db.selectFrom('dns_records').select('id')
  .where('zone_id', '=', p('zoneId')).where('type', 'in', [...ADDRESS_TYPES]).limit(1));
