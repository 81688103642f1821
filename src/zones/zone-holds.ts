/**
 * Zone holds (`/zones/:zone_id/hold`, production's Enterprise feature, offered to every zone here): while a
 * hold is in force, no other account may add or activate a zone of the held name, nor of names below it with
 * `include_subdomains` (1428; ownership-rules.ts). Stored on the zone row: `hold_after` is the instant from
 * which the hold is enforced (null: no hold), so a hold released until a date re-enables itself then.
 *
 * - POST: enforce now (`include_subdomains` from the query).
 * - PATCH: `hold_after` "" = now, null = release indefinitely, a date = released until then (a past date
 *   leaves a hold in force untouched); `include_subdomains` boolean.
 * - DELETE: release indefinitely, or until the `hold_after` query date.
 */
import type { Kysely } from 'kysely';
import type { Database } from '../db/schema.js';
import { AppError } from '../shared/errors.js';
import { isoTimestamp, type Clock } from '../shared/clock.js';
import { holdInForce } from './ownership-rules.js';

/** The hold object of API responses. */
export interface ZoneHoldView {
  hold: boolean;
  include_subdomains: boolean;
  hold_after: string | null;
}

/** The error production answers when a held name is added by another account. */
export function heldName(): AppError {
  return new AppError(1428, 'The zone name provided is subject to a hold which disallows the creation of this zone. Please contact the domain owner to have this hold removed.');
}

/** A bad `hold_after` or `include_subdomains` value. */
function invalidHold(field: string, value: unknown, expected: string): AppError {
  return new AppError(1114, `Invalid ${field} ${JSON.stringify(value)}: expected ${expected}`);
}

/** Parses an RFC 3339 date-time into the stored form; throws 1114. */
export function parseHoldAfter(value: unknown): string {
  if (typeof value !== 'string' || !/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/i.test(value) || !Number.isFinite(Date.parse(value))) {
    throw invalidHold('hold_after', value, 'an RFC 3339 date-time such as 2030-01-31T15:56:36Z');
  }
  return isoTimestamp(new Date(value));
}

/** Parses `include_subdomains` (a boolean, or "true"/"false" from a query string); throws 1114. */
export function parseIncludeSubdomains(value: unknown): boolean {
  if (value === true || value === 'true') return true;
  if (value === false || value === 'false') return false;
  throw invalidHold('include_subdomains', value, 'true or false');
}

/** Reads and changes the hold of a zone (the caller has checked that the zone is the caller's). */
export class ZoneHolds {
  constructor(private readonly db: Kysely<Database>, private readonly clock: Clock) {}

  /** The zone's hold. */
  async get(zoneId: string): Promise<ZoneHoldView> {
    const row = await this.db.selectFrom('zones').select(['hold_after', 'hold_include_subdomains']).where('id', '=', zoneId).executeTakeFirstOrThrow();
    return { hold: holdInForce(row, this.clock.now()), include_subdomains: row.hold_include_subdomains === 1, hold_after: row.hold_after };
  }

  /** POST: the hold is in force from now. */
  create(zoneId: string, includeSubdomains: boolean | undefined): Promise<ZoneHoldView> {
    return this.write(zoneId, { hold_after: this.stamp(), ...(includeSubdomains !== undefined ? { hold_include_subdomains: includeSubdomains ? 1 : 0 } : {}) });
  }

  /** PATCH with a body already read. */
  async edit(zoneId: string, body: Record<string, unknown>): Promise<ZoneHoldView> {
    const change: { hold_after?: string | null; hold_include_subdomains?: number } = {};
    if (body.include_subdomains !== undefined) change.hold_include_subdomains = parseIncludeSubdomains(body.include_subdomains) ? 1 : 0;
    if ('hold_after' in body) {
      const raw = body.hold_after;
      if (raw === null) change.hold_after = null;
      else if (raw === '') change.hold_after = this.stamp();
      else {
        const at = parseHoldAfter(raw);
        const current = await this.get(zoneId);
        // A past date has no effect on a hold in force.
        if (!(current.hold && Date.parse(at) <= this.clock.now().getTime())) change.hold_after = at;
      }
    }
    return this.write(zoneId, change);
  }

  /** DELETE: released indefinitely, or until `holdAfter`. */
  remove(zoneId: string, holdAfter: string | undefined): Promise<ZoneHoldView> {
    return this.write(zoneId, { hold_after: holdAfter === undefined ? null : parseHoldAfter(holdAfter) });
  }

  private async write(zoneId: string, change: { hold_after?: string | null; hold_include_subdomains?: number }): Promise<ZoneHoldView> {
    if (Object.keys(change).length > 0) await this.db.updateTable('zones').set({ ...change, modified_on: this.stamp() }).where('id', '=', zoneId).execute();
    return this.get(zoneId);
  }

  private stamp(): string {
    return isoTimestamp(this.clock.now());
  }
}
