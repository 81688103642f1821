/**
 * Credentials at start. With `authEmail` and `authKey` configured (`STRATUS_AUTH_EMAIL`/`STRATUS_AUTH_KEY`)
 * the admin user and its account are created or updated. Without them, the first start on an empty store
 * generates a key, writes `{email, key}` to `<dataDir>/credentials.json` (mode 0600) and reports it once so
 * that the CLI can print it; later starts find the user and report nothing.
 */
import { writeSecretJson } from '../shared/secret-file.js';
import path from 'node:path';
import type { Kysely } from 'kysely';
import type { Database } from '../db/schema.js';
import type { Clock } from '../shared/clock.js';
import { countUsers, upsertUser } from './users.js';

/** E-mail of the generated admin user. */
export const GENERATED_ADMIN_EMAIL = 'admin@example.com';
/** File name of generated credentials inside the data folder. */
export const CREDENTIALS_FILE = 'credentials.json';

/** Credentials generated at this start (printed once by the CLI). */
export interface GeneratedCredentials {
  email: string;
  key: string;
  /** Where they were saved. */
  file: string;
}

/** Options of {@link bootstrapCredentials}. */
export interface BootstrapOptions {
  dataDir: string;
  authEmail: string | undefined;
  authKey: string | undefined;
  clock: Clock;
}

/** Applies the configured credentials or generates the first ones; returns generated credentials, if any. */
export async function bootstrapCredentials(db: Kysely<Database>, opts: BootstrapOptions): Promise<GeneratedCredentials | undefined> {
  if ((opts.authEmail === undefined) !== (opts.authKey === undefined)) {
    throw new Error('STRATUS_AUTH_EMAIL and STRATUS_AUTH_KEY must be given together (or neither)');
  }
  if (opts.authEmail !== undefined && opts.authKey !== undefined) {
    await upsertUser(db, { email: opts.authEmail, key: opts.authKey, clock: opts.clock });
    return undefined;
  }
  if ((await countUsers(db)) > 0) return undefined;
  const created = await upsertUser(db, { email: GENERATED_ADMIN_EMAIL, clock: opts.clock });
  const file = path.join(opts.dataDir, CREDENTIALS_FILE);
  writeSecretJson(file, { email: created.email, key: created.key });
  return { email: created.email, key: created.key, file };
}
