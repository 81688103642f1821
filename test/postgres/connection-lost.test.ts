/** PostgreSQL closing Stratus's idle connections (server restart, admin termination) is survived: reported, then new connections. */
import { expect, it } from 'vitest';
import { sql } from 'kysely';
import { openDatabase } from '../../src/db/database.js';
import { freshPostgresUrl, withPostgresAdmin } from '../helpers/postgres.js';

it('reports idle connections the server terminates, and the next query opens a new one', async () => {
  const { url, drop } = await freshPostgresUrl('lost');
  const lost: Error[] = [];
  const database = await openDatabase({ dataDir: '', url, onConnectionLost: (err) => lost.push(err) });
  try {
    await Promise.all([1, 2, 3].map(() => sql`SELECT pg_sleep(0.05)`.execute(database.db)));
    const name = new URL(url).pathname.slice(1);
    const terminated = await withPostgresAdmin((c) => c.query('SELECT pg_terminate_backend(pid) AS done FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()', [name]));
    const count = terminated.rows.filter((r: { done: boolean }) => r.done).length;
    expect(count).toBeGreaterThan(0);
    // Every terminated idle connection is reported (and dropped from the pool) before the next query: on a busy
    // machine the notices arrive one by one, so wait for all of them, not the first.
    const deadline = Date.now() + 30_000;
    while (lost.length < count && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    // Each connection is reported once (its error reaches the pool and the connection itself).
    expect(lost.length).toBe(count);
    expect(String(lost[0]?.message)).toMatch(/terminat/);
    const { rows } = await sql<{ one: number }>`SELECT 1 AS one`.execute(database.db);
    expect(rows[0]?.one).toBe(1);
  } finally {
    await database.close();
    await drop();
  }
});
