/** Migration 0014: zone transfers managed per zone (src/secondary-dns/). */
import type { Kysely, Migration } from 'kysely';

/** Migration 0014_secondary_dns. */
export const secondaryDnsMigration: Migration = {
  // Zone transfers managed per zone (secondary-dns/): an account's TSIG keys (the secret sealed with the secrets
  // key, shared/secret-box.ts), peers (secondaries NOTIFYed and allowed to transfer, with their key) and ACLs
  // (address ranges allowed to transfer), each zone's outgoing settings (peers as a JSON id list), and one
  // counter bumped by every write, which DNS servers poll to reload what they enforce.
  async up(db: Kysely<any>): Promise<void> {
    await db.schema.createTable('secondary_dns_tsigs')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('account_id', 'text', (c) => c.notNull())
      .addColumn('name', 'text', (c) => c.notNull())
      .addColumn('algo', 'text', (c) => c.notNull())
      .addColumn('secret_sealed', 'text', (c) => c.notNull())
      .addColumn('created_on', 'text', (c) => c.notNull())
      .execute();
    await db.schema.createTable('secondary_dns_peers')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('account_id', 'text', (c) => c.notNull())
      .addColumn('name', 'text', (c) => c.notNull())
      .addColumn('ip', 'text')
      .addColumn('port', 'integer')
      .addColumn('ixfr_enable', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('tsig_id', 'text')
      .addColumn('created_on', 'text', (c) => c.notNull())
      .execute();
    await db.schema.createTable('secondary_dns_acls')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('account_id', 'text', (c) => c.notNull())
      .addColumn('name', 'text', (c) => c.notNull())
      .addColumn('ip_range', 'text', (c) => c.notNull())
      .addColumn('created_on', 'text', (c) => c.notNull())
      .execute();
    for (const t of ['secondary_dns_tsigs', 'secondary_dns_peers', 'secondary_dns_acls']) {
      await db.schema.createIndex(`${t}_account`).on(t).column('account_id').execute();
    }
    await db.schema.createTable('secondary_dns_outgoing')
      .addColumn('zone_id', 'text', (c) => c.primaryKey())
      .addColumn('account_id', 'text', (c) => c.notNull())
      .addColumn('id', 'text', (c) => c.notNull())
      .addColumn('name', 'text', (c) => c.notNull())
      .addColumn('peers', 'text', (c) => c.notNull())
      .addColumn('enabled', 'integer', (c) => c.notNull())
      .addColumn('created_time', 'text', (c) => c.notNull())
      .addColumn('checked_time', 'text', (c) => c.notNull())
      .addColumn('last_transferred_time', 'text')
      .execute();
    await db.schema.createTable('secondary_dns_serial')
      .addColumn('id', 'integer', (c) => c.primaryKey())
      .addColumn('serial', 'bigint', (c) => c.notNull())
      .execute();
    await db.insertInto('secondary_dns_serial').values({ id: 1, serial: 0 }).execute();
  },
};
