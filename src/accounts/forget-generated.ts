/**
 * What a first start generated, undone when that start fails (a listener taken between the address check and the
 * start, workerd not starting, …): the generated admin user with its account, membership and tokens, and the
 * files (credentials.json, s3-credentials.json, the secrets key). The next start then finds an empty store,
 * generates credentials again, and, being the first start that succeeds, prints them.
 */
import fs from 'node:fs';
import type { Kysely } from 'kysely';
import type { Database } from '../db/schema.js';

/** What the current start generated so far (filled in as it goes). */
export interface GeneratedAtStart {
  /** The generated admin user's id, when the store was empty. */
  adminUserId?: string;
  /** Files written at this start. */
  files: string[];
}

/** Deletes the generated admin user (with its accounts, memberships and tokens) and removes the files. */
export async function forgetGenerated(db: Kysely<Database>, generated: GeneratedAtStart): Promise<void> {
  const userId = generated.adminUserId;
  if (userId !== undefined) {
    await db.transaction().execute(async (trx) => {
      const accounts = (await trx.selectFrom('memberships').select('account_id').where('user_id', '=', userId).execute()).map((r) => r.account_id);
      await trx.deleteFrom('api_tokens').where('user_id', '=', userId).execute();
      await trx.deleteFrom('memberships').where('user_id', '=', userId).execute();
      if (accounts.length > 0) await trx.deleteFrom('accounts').where('id', 'in', accounts).execute();
      await trx.deleteFrom('users').where('id', '=', userId).execute();
    });
  }
  for (const file of generated.files) fs.rmSync(file, { force: true });
}
