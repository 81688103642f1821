/** Migration 0013: the certificates the edge serves (src/certs/). */
import type { Kysely, Migration } from 'kysely';

/** Migration 0013_certificates. */
export const certificatesMigration: Migration = {
  // Certificates the edge serves (src/certs/): packs (one universal per zone, `slot` = the zone id; advanced
  // ones, slot = the pack id) with their status, last error, retry time and the issuance lease (holder and
  // expiry, so one node orders a pack at a time); certificates with the PEM chain and the private key sealed
  // with the secrets key; custom certificates in the same table (kind `custom`, no pack); universal SSL per
  // zone; the local CA's root and the ACME account key (sealed); the DNS-01 challenge values Stratus's DNS
  // answers; one serial every node polls to pick up changes.
  async up(db: Kysely<any>): Promise<void> {
    await db.schema.createTable('ssl_settings')
      .addColumn('zone_id', 'text', (c) => c.primaryKey())
      .addColumn('universal_enabled', 'integer', (c) => c.notNull())
      .addColumn('modified_on', 'text', (c) => c.notNull())
      .execute();
    await db.schema.createTable('certificate_packs')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('zone_id', 'text', (c) => c.notNull())
      .addColumn('slot', 'text', (c) => c.notNull().unique())
      .addColumn('type', 'text', (c) => c.notNull())
      .addColumn('hosts', 'text', (c) => c.notNull())
      .addColumn('status', 'text', (c) => c.notNull())
      .addColumn('validation_method', 'text', (c) => c.notNull())
      .addColumn('validity_days', 'integer', (c) => c.notNull())
      .addColumn('certificate_authority', 'text', (c) => c.notNull())
      .addColumn('error', 'text')
      .addColumn('failures', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('next_attempt_ms', 'bigint', (c) => c.notNull().defaultTo(0))
      .addColumn('lease_holder', 'text')
      .addColumn('lease_expires_ms', 'bigint', (c) => c.notNull().defaultTo(0))
      .addColumn('created_on', 'text', (c) => c.notNull())
      .addColumn('modified_on', 'text', (c) => c.notNull())
      .execute();
    await db.schema.createIndex('certificate_packs_zone').on('certificate_packs').column('zone_id').execute();
    await db.schema.createTable('certificates')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('zone_id', 'text', (c) => c.notNull())
      .addColumn('pack_id', 'text')
      .addColumn('kind', 'text', (c) => c.notNull())
      .addColumn('hosts', 'text', (c) => c.notNull())
      .addColumn('certificate_pem', 'text', (c) => c.notNull())
      .addColumn('sealed_key', 'text', (c) => c.notNull())
      .addColumn('issuer', 'text', (c) => c.notNull())
      .addColumn('signature', 'text', (c) => c.notNull())
      .addColumn('priority', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('bundle_method', 'text', (c) => c.notNull().defaultTo('ubiquitous'))
      .addColumn('expires_on', 'text', (c) => c.notNull())
      .addColumn('uploaded_on', 'text', (c) => c.notNull())
      .addColumn('modified_on', 'text', (c) => c.notNull())
      .execute();
    await db.schema.createIndex('certificates_zone').on('certificates').column('zone_id').execute();
    await db.schema.createIndex('certificates_pack').on('certificates').column('pack_id').execute();
    await db.schema.createTable('certificate_authorities')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('certificate_pem', 'text')
      .addColumn('sealed_key', 'text', (c) => c.notNull())
      .addColumn('account_url', 'text')
      .addColumn('created_on', 'text', (c) => c.notNull())
      .execute();
    await db.schema.createTable('acme_challenges')
      .addColumn('id', 'text', (c) => c.primaryKey())
      .addColumn('zone_id', 'text', (c) => c.notNull())
      .addColumn('name', 'text', (c) => c.notNull())
      .addColumn('content', 'text', (c) => c.notNull())
      .addColumn('created_ms', 'bigint', (c) => c.notNull())
      .execute();
    await db.schema.createIndex('acme_challenges_zone').on('acme_challenges').column('zone_id').execute();
    await db.schema.createTable('certificate_serial')
      .addColumn('id', 'integer', (c) => c.primaryKey())
      .addColumn('serial', 'bigint', (c) => c.notNull())
      .execute();
    await db.insertInto('certificate_serial').values({ id: 1, serial: 0 }).execute();
  },
};
