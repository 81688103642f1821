/**
 * `page` / `per_page` of list endpoints: whole numbers, `page` ≥ 1, `per_page` within the endpoint's range.
 * Anything else is a 400 with code 1106 naming the parameter.
 */
import { AppError } from '../shared/errors.js';

/** A parsed page request. */
export interface PageRequest {
  page: number;
  perPage: number;
}

/** Parses `page` and `per_page` from query values. */
export function parsePaging(page: string | undefined, perPage: string | undefined, limits: { defaultPerPage: number; maxPerPage: number }): PageRequest {
  const errors: AppError[] = [];
  const int = (name: string, raw: string | undefined, fallback: number, max: number): number => {
    if (raw === undefined || raw === '') return fallback;
    const n = Number(raw);
    if (!/^\d+$/.test(raw.trim()) || !Number.isSafeInteger(n) || n < 1 || n > max) {
      errors.push(new AppError(1106, `Invalid ${name} ${JSON.stringify(raw)}: expected a whole number from 1 to ${max}`));
      return fallback;
    }
    return n;
  };
  const result = {
    page: int('page', page, 1, Number.MAX_SAFE_INTEGER),
    perPage: int('per_page', perPage, limits.defaultPerPage, limits.maxPerPage),
  };
  if (errors.length > 0) throw new AppError(errors[0]!.code, errors[0]!.message, 400, { others: errors.slice(1) });
  return result;
}

/** Parses an enumerated query parameter (`order`, `direction`, `match`). */
export function parseChoice<T extends string>(name: string, raw: string | undefined, choices: readonly T[], fallback: T): T {
  if (raw === undefined || raw === '') return fallback;
  if ((choices as readonly string[]).includes(raw)) return raw as T;
  throw new AppError(1106, `Invalid ${name} ${JSON.stringify(raw)}: use one of ${choices.join(', ')}`);
}
