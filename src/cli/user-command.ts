/** `stratus user add`: creates or updates a user with a global API key, and its account. */
import { loadConfig } from '../config/config.js';
import { openDatabase } from '../db/database.js';
import { upsertUser } from '../accounts/users.js';
import { preflight } from './preflight.js';

/** `stratus user add --email E [--key K] [--data-dir DIR]`. */
export async function userCommand(args: string[], flags: Record<string, string>): Promise<number> {
  if (args[0] !== 'add' || args.length > 1 || flags.email === undefined) {
    process.stderr.write(`stratus: usage: stratus user add --email E [--key K] [--data-dir DIR]\n`);
    return 2;
  }
  const config = loadConfig(flags, process.env);
  await preflight({ dataDir: config.dataDir, databaseUrl: config.databaseUrl, blobsS3: undefined });
  const database = await openDatabase({ dataDir: config.dataDir, url: config.databaseUrl });
  try {
    const user = await upsertUser(database.db, { email: flags.email, ...(flags.key !== undefined ? { key: flags.key } : {}) });
    process.stdout.write(`${user.created ? 'created' : 'updated'} user ${user.email}\n  X-Auth-Key: ${user.key}\n  account id: ${user.accountId}\n`);
    return 0;
  } finally {
    await database.close();
  }
}

