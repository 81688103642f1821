/** Adds users (each with an account of its own) to a running test server's store, for isolation tests. */
import Cloudflare from 'cloudflare';
import { openDatabase } from '../../src/db/database.js';
import { upsertUser, type UserCredentials } from '../../src/accounts/users.js';
import type { TestServer } from './server.js';

/**
 * Creates a user in the server's data folder (a second connection to the same SQLite file), or in the
 * PostgreSQL database the server runs on (`opts.databaseUrl`).
 */
export async function addUser(server: TestServer, email: string, key?: string, opts: { databaseUrl?: string } = {}): Promise<UserCredentials & { sdk(): Cloudflare }> {
  const database = await openDatabase({ dataDir: server.dataDir, url: opts.databaseUrl });
  try {
    const user = await upsertUser(database.db, { email, ...(key !== undefined ? { key } : {}) });
    return { ...user, sdk: () => new Cloudflare({ apiEmail: user.email, apiKey: user.key, baseURL: server.apiBase, maxRetries: 0 }) };
  } finally {
    await database.close();
  }
}
