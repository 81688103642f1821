/**
 * The deprecation schedule as data: one entry per row of the contract's Versioning table (the rows live in
 * `schedule-data.ts`), evaluated at a request's api date. Code asks `phaseAt(id, apiDate)` instead of
 * comparing dates itself.
 *
 * Phases: `active` before the row's date; `deprecated` from its date while the old form is still served;
 * `removed` from its removal date (rows whose change is itself a removal — response fields, error shape,
 * TE+CL — have `removal === date` and go straight from active to removed).
 */
import { SCHEDULE_ROWS } from './schedule-data.js';
import type { Phase, ScheduleEntry } from './schedule-types.js';

export type { Phase, ScheduleEntry, ScheduledRoute, SchedulePart } from './schedule-types.js';

/** Every row of the schedule, newest first. */
export const SCHEDULE: readonly ScheduleEntry[] = SCHEDULE_ROWS;

const BY_ID = new Map(SCHEDULE.map((e) => [e.id, e]));

/** The entry with the given id (throws for an unknown id: a programming error). */
export function entry(id: string): ScheduleEntry {
  const found = BY_ID.get(id);
  if (!found) throw new Error(`unknown schedule entry ${id}`);
  return found;
}

/** The removal date of an entry, or of one of its parts. */
export function removalDate(e: ScheduleEntry, part?: string): string | undefined {
  if (part !== undefined) {
    const p = e.parts?.[part];
    if (!p) throw new Error(`unknown part ${part} of schedule entry ${e.id}`);
    return p.removal;
  }
  return e.removal;
}

/** The phase of an entry (or of one of its parts) at an api date. Pure. */
export function phaseAt(id: string, apiDate: string, part?: string): Phase {
  const e = entry(id);
  const removal = removalDate(e, part);
  if (removal !== undefined && apiDate >= removal) return 'removed';
  if (apiDate >= e.date) return 'deprecated';
  return 'active';
}

/** True when the old behaviour of an entry (or part) still applies at the api date. */
export function oldBehaviourApplies(id: string, apiDate: string, part?: string): boolean {
  return phaseAt(id, apiDate, part) !== 'removed';
}
