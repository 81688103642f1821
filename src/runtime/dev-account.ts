/**
 * The account whose buckets `stratus dev` binds. Buckets belong to accounts (`docs/store.md`, "Accounts"), so a
 * script under `stratus dev` sees the same buckets as `stratus serve`'s S3 API and v4 routes only when it binds
 * them in the same account: `--account ID`, else the config's `account_id` (the key wrangler reads), else the
 * admin's (the account `stratus serve`'s own S3 key pair acts for: the data folder's first user's oldest account).
 *
 * Read from the data folder's embedded database (`stratus.sqlite`). A folder without users gets its admin as the
 * first `stratus serve` makes it (`credentials.json`), so a `serve` started later on the folder has the same
 * admin and sees the buckets. An account id the folder does not have is an error naming where the id came from.
 */
import type { Kysely } from 'kysely';
import { adminAccountId, bootstrapCredentials } from '../accounts/bootstrap.js';
import { openDatabase } from '../db/database.js';
import type { Database } from '../db/schema.js';
import { systemClock } from '../shared/clock.js';

/** An account id the data folder does not have, or one that is not an id; the message names its source. */
export class DevAccountError extends Error {
  override name = 'DevAccountError';
}

/** An account id asked for, and where it was given (`--account`, `wrangler.toml's account_id`). */
export interface RequestedAccount {
  id: string;
  source: string;
}

/** The account `stratus dev` binds buckets in. */
export interface DevAccount {
  id: string;
  /** Where the id came from: `--account`, `wrangler.toml's account_id`, or `the admin's`. */
  source: string;
  /** The admin's account (flat buckets of older versions move into it, as at `stratus serve`'s start). */
  adminId: string;
  /** The file the admin's generated credentials were saved in, when this start made the folder's admin. */
  generatedCredentialsFile?: string;
}

const ACCOUNT_ID = /^[0-9a-f]{32}$/;

async function hasAccount(db: Kysely<Database>, id: string): Promise<boolean> {
  return (await db.selectFrom('accounts').select('id').where('id', '=', id).executeTakeFirst()) !== undefined;
}

async function hasUsers(db: Kysely<Database>): Promise<boolean> {
  return (await db.selectFrom('users').select('id').limit(1).executeTakeFirst()) !== undefined;
}

/** Resolves the account of `requested` (or the admin's) in the embedded database of `dataDir`. */
export async function resolveDevAccount(dataDir: string, requested: RequestedAccount | undefined): Promise<DevAccount> {
  if (requested && !ACCOUNT_ID.test(requested.id)) {
    throw new DevAccountError(`${requested.source} must be an account id (32 hex digits, lowercase), got ${JSON.stringify(requested.id)}`);
  }
  const database = await openDatabase({ dataDir });
  try {
    const { db } = database;
    if (requested && !(await hasUsers(db))) {
      throw new DevAccountError(`${requested.source} ${requested.id}: this data folder (${dataDir}) has no accounts yet; ` +
        'start without it to bind the admin\'s account, or create the account first (`stratus serve`, `stratus user add`)');
    }
    const generated = await bootstrapCredentials(db, { dataDir, authEmail: undefined, authKey: undefined, clock: systemClock });
    const adminId = await adminAccountId(db, undefined);
    const made = generated ? { generatedCredentialsFile: generated.file } : {};
    if (!requested) return { id: adminId, source: 'the admin\'s', adminId, ...made };
    if (!(await hasAccount(db, requested.id))) {
      throw new DevAccountError(`${requested.source} ${requested.id}: no such account in this data folder (${dataDir}); ` +
        `the admin's is ${adminId}: pass --account with an account of this folder (\`stratus user add\` makes users with accounts of their own)`);
    }
    return { id: requested.id, source: requested.source, adminId, ...made };
  } finally {
    await database.close();
  }
}
