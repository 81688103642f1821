/**
 * Migration 0004: names have owners (docs/security.md). Zone names stop being unique across the store:
 * several accounts may hold a zone of one name, but
 * - one account holds at most one zone of a name (unique `(account_id, name)`: the second is 1061), and
 * - at most one zone of a name is `active` (a partial unique index over `name` where `status = 'active'`),
 * so two nodes racing to activate the same name cannot both win. Zones gain `activated_on` and their hold
 * (`hold_after`: the hold is enforced once that time has passed, none when null; `hold_include_subdomains`).
 *
 * SQLite cannot drop the column-level UNIQUE of 0001, so the table is rebuilt there, in one transaction of its
 * own (Kysely runs SQLite migrations outside transactions), and the step can run again after a crash between
 * its commit and the migrator's bookkeeping; PostgreSQL drops the constraint (its DDL is transactional, and
 * the migrator runs the step in a transaction). Existing zones keep their status (active) and get
 * `activated_on = created_on`.
 */
import { type Kysely, type Migration, sql, SqliteAdapter } from 'kysely';

const COLUMNS = 'id, account_id, name, status, type, name_servers, serial, dns_settings, zone_settings, created_on, modified_on, record_count';

/** The migration step. */
export const zoneOwnersMigration: Migration = {
  async up(db: Kysely<any>) {
    if (db.getExecutor().adapter instanceof SqliteAdapter) {
      await db.transaction().execute(async (trx) => {
        const columns = await sql<{ name: string }>`PRAGMA table_info(zones)`.execute(trx);
        if (!columns.rows.some((c) => c.name === 'activated_on')) await rebuildSqliteZones(trx);
        await finish(trx);
      });
      return;
    }
    await sql`ALTER TABLE zones DROP CONSTRAINT IF EXISTS zones_name_key`.execute(db);
    await db.schema.alterTable('zones').addColumn('activated_on', 'text').execute();
    await db.schema.alterTable('zones').addColumn('hold_after', 'text').execute();
    await db.schema.alterTable('zones').addColumn('hold_include_subdomains', 'integer', (c) => c.notNull().defaultTo(0)).execute();
    await db.schema.dropIndex('zones_account').ifExists().execute();
    await finish(db);
  },
};

/** What both databases do after the table has its new shape. */
async function finish(db: Kysely<any>): Promise<void> {
  await sql`UPDATE zones SET activated_on = created_on WHERE status = 'active' AND activated_on IS NULL`.execute(db);
  await db.schema.createIndex('zones_account_name').ifNotExists().unique().on('zones').columns(['account_id', 'name']).execute();
  await db.schema.createIndex('zones_name').ifNotExists().on('zones').column('name').execute();
  await db.schema.createIndex('zones_active_name').ifNotExists().unique().on('zones').column('name').where(sql.ref('status'), '=', sql.lit('active')).execute();
}

/** Copies `zones` into a table without the UNIQUE on `name`, with the new columns. */
async function rebuildSqliteZones(db: Kysely<any>): Promise<void> {
  await db.schema.createTable('zones_0004')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('account_id', 'text', (c) => c.notNull())
    .addColumn('name', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('type', 'text', (c) => c.notNull())
    .addColumn('name_servers', 'text', (c) => c.notNull())
    .addColumn('serial', 'bigint', (c) => c.notNull())
    .addColumn('dns_settings', 'text', (c) => c.notNull().defaultTo('{}'))
    .addColumn('zone_settings', 'text', (c) => c.notNull().defaultTo('{}'))
    .addColumn('created_on', 'text', (c) => c.notNull())
    .addColumn('modified_on', 'text', (c) => c.notNull())
    .addColumn('record_count', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('activated_on', 'text')
    .addColumn('hold_after', 'text')
    .addColumn('hold_include_subdomains', 'integer', (c) => c.notNull().defaultTo(0))
    .execute();
  await sql.raw(`INSERT INTO zones_0004 (${COLUMNS}) SELECT ${COLUMNS} FROM zones`).execute(db);
  await db.schema.dropTable('zones').execute();
  await db.schema.alterTable('zones_0004').renameTo('zones').execute();
}
