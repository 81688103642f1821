/**
 * Schema migrations, in code so that the same steps run on SQLite and PostgreSQL. Append new steps; never
 * edit a step that has shipped.
 */
import { zoneOwnersMigration } from './migration-0004-zone-owners.js';
import { certificatesMigration } from './migration-0013-certificates.js';
import { secondaryDnsMigration } from './migration-0014-secondary-dns.js';
import { secondaryIncomingMigration } from './migration-0015-secondary-incoming.js';
import { dnsNodeSerialsMigration } from './migration-0016-dns-node-serials.js';
import { secondaryTransferredTimeMigration } from './migration-0017-secondary-transferred-time.js';
import { type Kysely, type Migration, type MigrationProvider, Migrator, PostgresAdapter, sql } from 'kysely';

const migrations: Record<string, Migration> = {
  '0001_dns': {
    async up(db: Kysely<any>) {
      await db.schema.createTable('users')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('email', 'text', (c) => c.notNull().unique())
        .addColumn('key_hash', 'text', (c) => c.notNull())
        .addColumn('created_on', 'text', (c) => c.notNull())
        .execute();
      await db.schema.createTable('accounts')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('name', 'text', (c) => c.notNull())
        .addColumn('settings', 'text', (c) => c.notNull().defaultTo('{}'))
        .addColumn('created_on', 'text', (c) => c.notNull())
        .execute();
      await db.schema.createTable('memberships')
        .addColumn('user_id', 'text', (c) => c.notNull())
        .addColumn('account_id', 'text', (c) => c.notNull())
        .addPrimaryKeyConstraint('memberships_pk', ['user_id', 'account_id'])
        .execute();
      await db.schema.createTable('zones')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('account_id', 'text', (c) => c.notNull())
        .addColumn('name', 'text', (c) => c.notNull().unique())
        .addColumn('status', 'text', (c) => c.notNull())
        .addColumn('type', 'text', (c) => c.notNull())
        .addColumn('name_servers', 'text', (c) => c.notNull())
        .addColumn('serial', 'bigint', (c) => c.notNull())
        .addColumn('dns_settings', 'text', (c) => c.notNull().defaultTo('{}'))
        .addColumn('zone_settings', 'text', (c) => c.notNull().defaultTo('{}'))
        .addColumn('created_on', 'text', (c) => c.notNull())
        .addColumn('modified_on', 'text', (c) => c.notNull())
        .execute();
      await db.schema.createIndex('zones_account').on('zones').columns(['account_id', 'name']).execute();
      await db.schema.createTable('dns_records')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('zone_id', 'text', (c) => c.notNull())
        .addColumn('name', 'text', (c) => c.notNull())
        .addColumn('type', 'text', (c) => c.notNull())
        .addColumn('content', 'text', (c) => c.notNull())
        .addColumn('data', 'text')
        .addColumn('priority', 'integer')
        .addColumn('ttl', 'integer', (c) => c.notNull())
        .addColumn('proxied', 'integer', (c) => c.notNull())
        .addColumn('comment', 'text')
        .addColumn('tags', 'text', (c) => c.notNull().defaultTo('[]'))
        .addColumn('settings', 'text', (c) => c.notNull().defaultTo('{}'))
        .addColumn('meta', 'text', (c) => c.notNull().defaultTo('{}'))
        .addColumn('created_on', 'text', (c) => c.notNull())
        .addColumn('modified_on', 'text', (c) => c.notNull())
        .addColumn('comment_modified_on', 'text')
        .addColumn('tags_modified_on', 'text')
        .execute();
      await db.schema.createIndex('dns_records_zone_name').on('dns_records').columns(['zone_id', 'name']).execute();
      await db.schema.createIndex('dns_records_zone_type_name').on('dns_records').columns(['zone_id', 'type', 'name']).execute();
    },
  },
  '0002_zone_record_count': {
    // Records per zone, kept in step by every record write, so that the quota check needs no COUNT(*).
    async up(db: Kysely<any>) {
      await db.schema.alterTable('zones').addColumn('record_count', 'integer', (c) => c.notNull().defaultTo(0)).execute();
      await sql`UPDATE zones SET record_count = (SELECT COUNT(*) FROM dns_records WHERE dns_records.zone_id = zones.id)`.execute(db);
    },
  },
  '0003_api_tokens': {
    // API tokens (Authorization: Bearer): only the SHA-256 of a token's value is stored.
    async up(db: Kysely<any>) {
      await db.schema.createTable('api_tokens')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('user_id', 'text', (c) => c.notNull())
        .addColumn('account_id', 'text')
        .addColumn('name', 'text', (c) => c.notNull())
        .addColumn('value_hash', 'text', (c) => c.notNull().unique())
        .addColumn('status', 'text', (c) => c.notNull())
        .addColumn('policies', 'text', (c) => c.notNull())
        .addColumn('condition', 'text')
        .addColumn('not_before', 'text')
        .addColumn('expires_on', 'text')
        .addColumn('issued_on', 'text', (c) => c.notNull())
        .addColumn('modified_on', 'text', (c) => c.notNull())
        .addColumn('last_used_on', 'text')
        .execute();
      await db.schema.createIndex('api_tokens_owner').on('api_tokens').columns(['user_id', 'account_id']).execute();
    },
  },
  '0004_zone_owners': zoneOwnersMigration,
  '0005_edge': {
    // The edge's control plane: scripts, their immutable versions (modules as bytes, bindings as JSON with
    // secret values encrypted), deployments, zone routes, the account's workers subdomain, and one serial
    // that every change bumps so that other nodes notice (src/scripts/).
    async up(db: Kysely<any>) {
      const binary = isPostgres(db) ? sql`bytea` : sql`blob`;
      await db.schema.createTable('workers_scripts')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('account_id', 'text', (c) => c.notNull())
        .addColumn('name', 'text', (c) => c.notNull())
        .addColumn('subdomain_enabled', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('previews_enabled', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('settings', 'text', (c) => c.notNull().defaultTo('{}'))
        .addColumn('version_count', 'integer', (c) => c.notNull().defaultTo(0))
        .addColumn('last_deployed_from', 'text', (c) => c.notNull())
        .addColumn('created_on', 'text', (c) => c.notNull())
        .addColumn('modified_on', 'text', (c) => c.notNull())
        .addUniqueConstraint('workers_scripts_account_name', ['account_id', 'name'])
        .execute();
      await db.schema.createTable('workers_versions')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('script_id', 'text', (c) => c.notNull())
        .addColumn('number', 'integer', (c) => c.notNull())
        .addColumn('main_module', 'text', (c) => c.notNull())
        .addColumn('compatibility_date', 'text', (c) => c.notNull())
        .addColumn('compatibility_flags', 'text', (c) => c.notNull())
        .addColumn('bindings', 'text', (c) => c.notNull())
        .addColumn('annotations', 'text', (c) => c.notNull().defaultTo('{}'))
        .addColumn('etag', 'text', (c) => c.notNull())
        .addColumn('source', 'text', (c) => c.notNull())
        .addColumn('author_id', 'text', (c) => c.notNull())
        .addColumn('author_email', 'text', (c) => c.notNull())
        .addColumn('created_on', 'text', (c) => c.notNull())
        .addUniqueConstraint('workers_versions_script_number', ['script_id', 'number'])
        .execute();
      await db.schema.createTable('workers_modules')
        .addColumn('version_id', 'text', (c) => c.notNull())
        .addColumn('position', 'integer', (c) => c.notNull())
        .addColumn('name', 'text', (c) => c.notNull())
        .addColumn('type', 'text', (c) => c.notNull())
        .addColumn('content', binary, (c) => c.notNull())
        .addPrimaryKeyConstraint('workers_modules_pk', ['version_id', 'position'])
        .execute();
      await db.schema.createTable('workers_deployments')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('script_id', 'text', (c) => c.notNull())
        .addColumn('seq', 'integer', (c) => c.notNull())
        .addColumn('versions', 'text', (c) => c.notNull())
        .addColumn('annotations', 'text', (c) => c.notNull().defaultTo('{}'))
        .addColumn('source', 'text', (c) => c.notNull())
        .addColumn('author_email', 'text', (c) => c.notNull())
        .addColumn('created_on', 'text', (c) => c.notNull())
        .addUniqueConstraint('workers_deployments_script_seq', ['script_id', 'seq'])
        .execute();
      await db.schema.createTable('workers_routes')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('zone_id', 'text', (c) => c.notNull())
        .addColumn('pattern', 'text', (c) => c.notNull())
        .addColumn('script', 'text')
        .addColumn('created_on', 'text', (c) => c.notNull())
        .addUniqueConstraint('workers_routes_zone_pattern', ['zone_id', 'pattern'])
        .execute();
      await db.schema.createTable('workers_subdomains')
        .addColumn('account_id', 'text', (c) => c.primaryKey())
        .addColumn('subdomain', 'text', (c) => c.notNull().unique())
        .addColumn('created_on', 'text', (c) => c.notNull())
        .execute();
      await db.schema.createTable('edge_serial')
        .addColumn('id', 'integer', (c) => c.primaryKey())
        .addColumn('serial', 'bigint', (c) => c.notNull())
        .execute();
      await db.insertInto('edge_serial').values({ id: 1, serial: 0 }).execute();
    },
  },
  '0006_zone_changes': {
    // The change log: what every committed zone change did (records before/after, or the zone's new settings),
    // keyed by zone and serial, so that DNS servers on other nodes (and this one after a gap) apply changesets
    // instead of reloading zones. Rows are pruned by age (zones/change-log.ts). dns_records (zone_id, id) lets a
    // zone be read in pages.
    async up(db: Kysely<any>) {
      await db.schema.createTable('zone_changes')
        .addColumn('zone_id', 'text', (c) => c.notNull())
        .addColumn('serial', 'bigint', (c) => c.notNull())
        .addColumn('part', 'integer', (c) => c.notNull())
        .addColumn('parts', 'integer', (c) => c.notNull())
        .addColumn('created_ms', 'bigint', (c) => c.notNull())
        .addColumn('body', 'text', (c) => c.notNull())
        .addPrimaryKeyConstraint('zone_changes_pk', ['zone_id', 'serial', 'part'])
        .execute();
      await db.schema.createIndex('zone_changes_age').on('zone_changes').column('created_ms').execute();
      await db.schema.createIndex('dns_records_zone_id').on('dns_records').columns(['zone_id', 'id']).execute();
    },
  },
  '0007_r2_domains': {
    // Public hostnames of buckets: managed development hostnames and custom domains in the account's zones.
    async up(db: Kysely<any>): Promise<void> {
      await db.schema.createTable('r2_domains')
        .addColumn('hostname', 'text', (c) => c.primaryKey())
        .addColumn('account_id', 'text', (c) => c.notNull())
        .addColumn('bucket', 'text', (c) => c.notNull())
        .addColumn('bucket_created', 'text', (c) => c.notNull())
        .addColumn('kind', 'text', (c) => c.notNull())
        .addColumn('zone_id', 'text')
        .addColumn('enabled', 'integer', (c) => c.notNull())
        .addColumn('min_tls', 'text')
        .addColumn('created_on', 'text', (c) => c.notNull())
        .execute();
      await db.schema.createIndex('r2_domains_bucket').on('r2_domains').columns(['account_id', 'bucket']).execute();
    },
  },
  '0008_rate_counters': {
    // Request and failed-authentication counts per key and fixed window, shared by the nodes of one PostgreSQL
    // (limits/shared-counters.ts); rows are deleted once `expires_at` (epoch seconds) has passed. Unused on SQLite.
    async up(db: Kysely<any>): Promise<void> {
      await db.schema.createTable('rate_counters')
        .addColumn('key', 'text', (c) => c.notNull())
        .addColumn('window_start', 'bigint', (c) => c.notNull())
        .addColumn('count', 'bigint', (c) => c.notNull())
        .addColumn('expires_at', 'bigint', (c) => c.notNull())
        .addPrimaryKeyConstraint('rate_counters_pk', ['key', 'window_start'])
        .execute();
      await db.schema.createIndex('rate_counters_expires').on('rate_counters').column('expires_at').execute();
    },
  },
  '0009_zone_dnssec': {
    // A zone's DNSSEC state and its key (JSON, dns/dnssec/config.ts): status, options, the public key and the
    // private key sealed with the secrets key (shared/secret-box.ts). On the zone row, so the DNS servers of
    // every node read it with the zone and settings changes carry it through the change log.
    async up(db: Kysely<any>): Promise<void> {
      await db.schema.alterTable('zones').addColumn('dnssec', 'text').execute();
    },
  },
  '0010_worker_version_limits': {
    // A script version's own limits from its upload metadata (`limits: { cpu_ms, subrequests }`, JSON; '{}' when
    // none), applied per request under the node's flags (scripts/limits.ts).
    async up(db: Kysely<any>): Promise<void> {
      await db.schema.alterTable('workers_versions').addColumn('limits', 'text', (c) => c.notNull().defaultTo('{}')).execute();
    },
  },
  '0011_account_name_servers': {
    // The name server pair each account's zones are given (zones/name-server-assignments.ts): the n-th account
    // given a pair from the pool has ordinal n (unique, so two nodes never give one pair out twice at once);
    // the admin's account holds the instance's --nameservers with no ordinal. Rows are written when an account
    // first needs a pair, and at start for accounts that already have zones (the upgrade).
    async up(db: Kysely<any>): Promise<void> {
      await db.schema.createTable('account_name_servers')
        .addColumn('account_id', 'text', (c) => c.primaryKey())
        .addColumn('ordinal', 'integer')
        .addColumn('name_servers', 'text', (c) => c.notNull())
        .addColumn('assigned_on', 'text', (c) => c.notNull())
        .execute();
      await db.schema.createIndex('account_name_servers_ordinal').on('account_name_servers').column('ordinal').unique().execute();
    },
  },
  '0012_zone_bound_edge_rows': {
    // Bucket custom domains and Workers routes go with their zone (zones-service.ts deletes them with it); rows
    // left by zones deleted before that, and custom domains whose zone is another account's, held hostnames
    // (r2_domains) that no zone serves any more. Data only: both dialects run the same statements.
    async up(db: Kysely<any>): Promise<void> {
      await db.deleteFrom('r2_domains').where('kind', '=', 'custom')
        .where((eb) => eb.not(eb.exists(eb.selectFrom('zones').select('zones.id').whereRef('zones.id', '=', 'r2_domains.zone_id').whereRef('zones.account_id', '=', 'r2_domains.account_id'))))
        .execute();
      await db.deleteFrom('workers_routes')
        .where((eb) => eb.not(eb.exists(eb.selectFrom('zones').select('zones.id').whereRef('zones.id', '=', 'workers_routes.zone_id'))))
        .execute();
    },
  },
  '0013_certificates': certificatesMigration,
  '0014_secondary_dns': secondaryDnsMigration,
  '0015_secondary_incoming': secondaryIncomingMigration,
  '0016_dns_node_serials': dnsNodeSerialsMigration,
  '0017_secondary_transferred_time': secondaryTransferredTimeMigration,
};

/** True when the migration runs on PostgreSQL (binary columns differ: bytea there, blob on SQLite). */
function isPostgres(db: Kysely<any>): boolean {
  return db.getExecutor().adapter instanceof PostgresAdapter;
}

const provider: MigrationProvider = { getMigrations: async () => migrations };

/** Brings the schema to the named migration (tests of a migration start from the step before it). */
export async function migrateTo(db: Kysely<any>, target: string): Promise<void> {
  const { error } = await new Migrator({ db, provider }).migrateTo(target);
  if (error) throw new Error(`database migration to ${target} failed: ${String(error)}`);
}

/** Brings the schema up to date; safe to call on every start and from several nodes (PostgreSQL locks). */
export async function migrateToLatest(db: Kysely<any>): Promise<void> {
  const migrator = new Migrator({ db, provider });
  const { error, results } = await migrator.migrateToLatest();
  const failed = results?.find((r) => r.status === 'Error');
  if (error || failed) {
    throw new Error(`database migration ${failed?.migrationName ?? ''} failed: ${String(error)}`);
  }
  void sql; // kept for future raw-SQL steps
}

/** Names of every migration this build knows, in order (readiness compares them with the applied ones). */
export function migrationNames(): string[] {
  return Object.keys(migrations).sort();
}
