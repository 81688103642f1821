/** Migration 0017: when a secondary zone last took a transfer from its primary (`last_transferred_time`). */
import type { Kysely, Migration } from 'kysely';

/** Migration 0017_secondary_transferred_time. */
export const secondaryTransferredTimeMigration: Migration = {
  // Set by each pull that transferred records (AXFR, or IXFR with changes); a check that found the primary's serial
  // unchanged moves only `checked_time`. Null until the first transfer.
  async up(db: Kysely<any>): Promise<void> {
    await db.schema.alterTable('secondary_dns_incoming').addColumn('last_transferred_time', 'text').execute();
  },
};
