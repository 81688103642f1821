/**
 * A database of its own on the machine's PostgreSQL for one test file (127.0.0.1:5432, trust auth; override
 * the admin connection with `STRATUS_TEST_POSTGRES`). `drop()` removes it, forcing out open connections.
 */
import pg from 'pg';
import { randomBytes } from 'node:crypto';

/** The connection string of the administrative database. */
export const POSTGRES_ADMIN_URL = process.env.STRATUS_TEST_POSTGRES ?? 'postgres://postgres@127.0.0.1:5432/postgres';

/** Runs `fn` with a client on the administrative database. */
export async function withPostgresAdmin<T>(fn: (c: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: POSTGRES_ADMIN_URL });
  await client.connect();
  try { return await fn(client); } finally { await client.end(); }
}

/** Creates a fresh, empty database; returns its connection string and a function that drops it. */
export async function freshPostgresUrl(label: string): Promise<{ url: string; drop(): Promise<void> }> {
  const name = `stratus_test_${label}_${randomBytes(6).toString('hex')}`;
  await withPostgresAdmin((c) => c.query(`CREATE DATABASE ${name}`));
  return {
    url: POSTGRES_ADMIN_URL.replace(/\/[^/]*$/, `/${name}`),
    drop: async () => { await withPostgresAdmin((c) => c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`)); },
  };
}
