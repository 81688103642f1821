/** Recognizing a unique-constraint violation, translated at the data layer or straight from a driver. */
import { UniqueViolationError, uniqueViolationOf } from '../db/unique-violation.js';

/** True for a unique violation: the data layer's {@link UniqueViolationError}, or a raw driver error (PostgreSQL 23505, SQLite UNIQUE / PRIMARYKEY). */
export function isUniqueViolation(err: unknown): boolean {
  return err instanceof UniqueViolationError || uniqueViolationOf(err) !== undefined;
}
