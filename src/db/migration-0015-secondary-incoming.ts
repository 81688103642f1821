/** Migration 0015: Stratus as a secondary (incoming transfers) and the IXFR journal kept across restarts. */
import type { Kysely, Migration } from 'kysely';

/** Migration 0015_secondary_incoming. */
export const secondaryIncomingMigration: Migration = {
  // A secondary zone's incoming settings (secondary-dns/incoming.ts): its primaries (peer ids, JSON), refresh
  // period, the primary's serial last copied, when it was last checked and the last error; the pull lease (one
  // node pulls a zone at a time) and when the next refresh is due. And the served differences of each zone's
  // recent versions (dns/zone-journal.ts), so an IXFR after a restart is still answered incrementally.
  async up(db: Kysely<any>): Promise<void> {
    await db.schema.createTable('secondary_dns_incoming')
      .addColumn('zone_id', 'text', (c) => c.primaryKey())
      .addColumn('account_id', 'text', (c) => c.notNull())
      .addColumn('name', 'text', (c) => c.notNull())
      .addColumn('peers', 'text', (c) => c.notNull())
      .addColumn('auto_refresh_seconds', 'integer', (c) => c.notNull())
      .addColumn('created_time', 'text', (c) => c.notNull())
      .addColumn('modified_time', 'text', (c) => c.notNull())
      .addColumn('checked_time', 'text')
      .addColumn('soa_serial', 'bigint')
      .addColumn('error', 'text')
      .addColumn('force_axfr', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('next_refresh_ms', 'bigint', (c) => c.notNull().defaultTo(0))
      .addColumn('lease_holder', 'text')
      .addColumn('lease_expires_ms', 'bigint', (c) => c.notNull().defaultTo(0))
      .execute();
    await db.schema.createTable('zone_journal')
      .addColumn('zone_id', 'text', (c) => c.notNull())
      .addColumn('to_serial', 'bigint', (c) => c.notNull())
      .addColumn('from_serial', 'bigint', (c) => c.notNull())
      .addColumn('created_ms', 'bigint', (c) => c.notNull())
      .addColumn('body', 'text', (c) => c.notNull())
      .addPrimaryKeyConstraint('zone_journal_pk', ['zone_id', 'to_serial'])
      .execute();
    // Zones created with type "secondary" before (the type was only stored) take the state new ones start with
    // (zones/secondary-zone.ts): the pre-signed path, so that a copy brings its SOA, apex NS and signatures.
    await db.updateTable('zones')
      .set({ dnssec: JSON.stringify({ status: 'disabled', useNsec3: true, multiSigner: false, presigned: true, modifiedOn: null, key: null }) })
      .where('type', '=', 'secondary').where('dnssec', 'is', null).execute();
  },
};
