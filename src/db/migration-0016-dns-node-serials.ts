/** Migration 0016: which zone serial every live DNS node serves (certs/serving-nodes.ts). */
import type { Kysely, Migration } from 'kysely';

/** Migration 0016_dns_node_serials. */
export const dnsNodeSerialsMigration: Migration = {
  // Every node beats (`dns_nodes`: its id and last heartbeat, ms since the epoch) and records, for each zone with a
  // DNS-01 challenge being validated, the serial its DNS serves (`dns_node_zone_serials`). An ACME order tells the
  // CA to check only when every live node serves the challenge's serial.
  async up(db: Kysely<any>): Promise<void> {
    await db.schema.createTable('dns_nodes')
      .addColumn('node_id', 'text', (c) => c.primaryKey())
      .addColumn('heartbeat_ms', 'bigint', (c) => c.notNull())
      .execute();
    await db.schema.createTable('dns_node_zone_serials')
      .addColumn('node_id', 'text', (c) => c.notNull())
      .addColumn('zone_id', 'text', (c) => c.notNull())
      .addColumn('serial', 'bigint', (c) => c.notNull())
      .addColumn('updated_ms', 'bigint', (c) => c.notNull())
      .addPrimaryKeyConstraint('dns_node_zone_serials_pk', ['node_id', 'zone_id'])
      .execute();
  },
};
