/**
 * Credentials at start. With `authEmail` and `authKey` configured (`STRATUS_AUTH_EMAIL`/`STRATUS_AUTH_KEY`)
 * the admin user and its account are created or updated. Without them, the first start on an empty store
 * generates a key and a full-access API token, writes `{email, key, api_token}` to
 * `<dataDir>/credentials.json` (mode 0600) and reports them once so that the CLI can print them; later
 * starts find the user and report nothing (a start that fails undoes the generation: forget-generated.ts). A configured `apiToken` (`STRATUS_API_TOKEN`) is stored as a
 * full-access token of the admin user (the configured one, else the first user).
 */
import { writeSecretJson } from '../shared/secret-file.js';
import path from 'node:path';
import type { Kysely } from 'kysely';
import type { Database } from '../db/schema.js';
import type { Clock } from '../shared/clock.js';
import { countUsers, upsertUser } from './users.js';
import { isValidKey } from './keys.js';
import { TokensService, fullAccessPolicies, generateTokenValue } from './tokens.js';
import { CREDENTIALS_FILE } from '../shared/data-dir.js';

/** E-mail of the generated admin user. */
export const GENERATED_ADMIN_EMAIL = 'admin@example.com';
/** Credentials generated at this start (printed once by the CLI). */
export interface GeneratedCredentials {
  email: string;
  key: string;
  /** A full-access API token (`Authorization: Bearer`). */
  apiToken: string;
  /** Where they were saved. */
  file: string;
  /** The generated admin user's id. */
  userId: string;
}

/** Options of {@link bootstrapCredentials}. */
export interface BootstrapOptions {
  dataDir: string;
  authEmail: string | undefined;
  authKey: string | undefined;
  /** A token value to store as the admin's full-access token. */
  apiToken?: string | undefined;
  clock: Clock;
}

/** Name of the full-access token made at start. */
const ADMIN_TOKEN_NAME = 'Stratus admin token';

/** Applies the configured credentials or generates the first ones; returns generated credentials, if any. */
export async function bootstrapCredentials(db: Kysely<Database>, opts: BootstrapOptions): Promise<GeneratedCredentials | undefined> {
  if ((opts.authEmail === undefined) !== (opts.authKey === undefined)) {
    throw new Error('STRATUS_AUTH_EMAIL and STRATUS_AUTH_KEY must be given together (or neither)');
  }
  if (opts.apiToken !== undefined && !isValidKey(opts.apiToken)) throw new Error('STRATUS_API_TOKEN must be 1 to 200 characters of A-Z a-z 0-9 _ . ~ + / = -');
  const tokens = new TokensService(db, opts.clock);
  if (opts.authEmail !== undefined && opts.authKey !== undefined) {
    const admin = await upsertUser(db, { email: opts.authEmail, key: opts.authKey, clock: opts.clock });
    if (opts.apiToken !== undefined) await tokens.ensure(admin.userId, ADMIN_TOKEN_NAME, opts.apiToken, fullAccessPolicies(admin.userId));
    return undefined;
  }
  if ((await countUsers(db)) > 0) {
    if (opts.apiToken !== undefined) {
      const first = await db.selectFrom('users').select('id').orderBy('created_on').orderBy('id').executeTakeFirstOrThrow();
      await tokens.ensure(first.id, ADMIN_TOKEN_NAME, opts.apiToken, fullAccessPolicies(first.id));
    }
    return undefined;
  }
  const created = await upsertUser(db, { email: GENERATED_ADMIN_EMAIL, clock: opts.clock });
  const apiToken = opts.apiToken ?? generateTokenValue();
  await tokens.ensure(created.userId, ADMIN_TOKEN_NAME, apiToken, fullAccessPolicies(created.userId));
  const file = path.join(opts.dataDir, CREDENTIALS_FILE);
  writeSecretJson(file, { email: created.email, key: created.key, api_token: apiToken });
  return { email: created.email, key: created.key, apiToken, file, userId: created.userId };
}

/**
 * The admin's account: the oldest account of the configured admin user (else of the first user). The
 * instance's S3 key pair acts for it, and buckets written before buckets belonged to accounts move into it.
 */
export async function adminAccountId(db: Kysely<Database>, authEmail: string | undefined): Promise<string> {
  const user = authEmail !== undefined
    ? await db.selectFrom('users').select('id').where('email', '=', authEmail.trim().toLowerCase()).executeTakeFirst()
    : await db.selectFrom('users').select('id').orderBy('created_on').orderBy('id').executeTakeFirst();
  if (!user) throw new Error('no admin user: start once without data to create one');
  const account = await db.selectFrom('memberships').innerJoin('accounts', 'accounts.id', 'memberships.account_id')
    .select('accounts.id').where('memberships.user_id', '=', user.id).orderBy('accounts.created_on').orderBy('accounts.id').executeTakeFirst();
  if (!account) throw new Error('the admin user has no account');
  return account.id;
}
