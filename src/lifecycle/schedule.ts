/**
 * The deprecation schedule as data: one entry per row of the contract's Versioning table, evaluated at a
 * request's api date. Code asks `phaseAt(id, apiDate)` instead of comparing dates itself.
 *
 * OWNER: the lifecycle work (it completes the table; the entries below are the ones other code already uses).
 */

/** One scheduled change. */
export interface ScheduleEntry {
  id: string;
  /** Release date of the change (YYYY-MM-DD). */
  date: string;
  /** What the change is. */
  change: string;
  /** What replaces it, or the rule from then on. */
  replacement: string;
  /** Date from which the old form is gone, when known; otherwise the change takes effect on `date`. */
  removal?: string;
}

/** Where an entry stands at a date: before its date, deprecated (still served), or removed. */
export type Phase = 'active' | 'deprecated' | 'removed';

/** The entries other modules depend on by id. */
export const SCHEDULE: readonly ScheduleEntry[] = [
  { id: 'dns-records-zone-fields', date: '2024-11-30', change: 'zone_id and zone_name removed from DNS record responses', replacement: 'zone name from GET /zones/:zone_id', removal: '2024-11-30' },
  { id: 'dns-records-error-chain', date: '2024-10-01', change: 'error_chain omitted in DNS record creation errors', replacement: 'root cause returned directly', removal: '2024-10-01' },
  { id: 'dns-records-locked', date: '2024-07-14', change: 'locked omitted from DNS record responses', replacement: 'field still ignored when received', removal: '2024-07-14' },
  { id: 'srv-data-fields', date: '2024-05-31', change: 'SRV data.service, data.proto, data.name deprecated', replacement: 'top-level name', removal: '2024-05-31' },
];

/** The entry with the given id (throws for an unknown id: a programming error). */
export function entry(id: string): ScheduleEntry {
  const found = SCHEDULE.find((e) => e.id === id);
  if (!found) throw new Error(`unknown schedule entry ${id}`);
  return found;
}

/** The phase of an entry at an api date. */
export function phaseAt(id: string, apiDate: string): Phase {
  const e = entry(id);
  if (e.removal !== undefined && apiDate >= e.removal) return 'removed';
  if (apiDate >= e.date) return 'deprecated';
  return 'active';
}

/** True when the old behaviour of an entry still applies at the api date. */
export function oldBehaviourApplies(id: string, apiDate: string): boolean {
  return phaseAt(id, apiDate) !== 'removed';
}
