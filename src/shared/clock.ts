/** Source of the current time; injected so that tests and the api date never read the wall clock directly. */
export interface Clock {
  now(): Date;
}

/** The real wall clock. */
export const systemClock: Clock = { now: () => new Date() };

/** A clock that always returns the given instant (tests). */
export function fixedClock(at: Date): Clock {
  return { now: () => new Date(at.getTime()) };
}

/** ISO 8601 with fractional seconds and Z, trailing zeros of the fraction trimmed (as the v4 API prints). */
export function isoTimestamp(date: Date): string {
  const iso = date.toISOString(); // 2024-01-01T05:20:00.120Z
  return iso.replace(/\.(\d*?)0+Z$/, (_m, digits: string) => (digits ? `.${digits}Z` : '.0Z'));
}

/** A calendar date `YYYY-MM-DD` (UTC) of an instant. */
export function isoDay(date: Date): string {
  return date.toISOString().slice(0, 10);
}
