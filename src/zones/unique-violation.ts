/** Recognizing a unique-constraint violation from either database driver. */

/** True for a unique violation: PostgreSQL SQLSTATE 23505, SQLite SQLITE_CONSTRAINT_UNIQUE / PRIMARYKEY. */
export function isUniqueViolation(err: unknown): boolean {
  const code = (err as { code?: unknown } | null)?.code;
  return code === '23505' || code === 'SQLITE_CONSTRAINT_UNIQUE' || code === 'SQLITE_CONSTRAINT_PRIMARYKEY';
}
