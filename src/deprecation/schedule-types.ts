/** Types of the deprecation schedule (see `schedule.ts`). */

/** A route named by a schedule row. `path` is relative to `/client/v4`; a trailing `/**` also matches deeper paths. */
export interface ScheduledRoute {
  /** HTTP methods, or `['*']` for any. */
  methods: readonly string[];
  path: string;
  /** True when the route itself stays current and only a part of it (a field, a setting) is deprecated. */
  affected?: boolean;
}

/** A named part of a row with its own removal date (e.g. the multi-value filter form). */
export interface SchedulePart {
  removal: string;
  what: string;
}

/** One row of the contract's deprecation table. */
export interface ScheduleEntry {
  /** Stable id, used by code (`phaseAt(id, …)`) and in `/client/v4/deprecations/:id`. */
  id: string;
  /** Release date of the change (YYYY-MM-DD): from this api date on, the row is in effect. */
  date: string;
  /** What the change is (the contract's wording). */
  change: string;
  /** What replaces it, or the rule from then on (the contract's wording). */
  replacement: string;
  /** Removal / end-of-life date where the contract gives one: from this api date the old form is gone. */
  removal?: string;
  /** Parts with a removal date of their own. */
  parts?: Readonly<Record<string, SchedulePart>>;
  /** What the row is about. */
  kind: 'routes' | 'fields' | 'parameters' | 'behaviour' | 'tls';
  /**
   * How a request learns about it: `route` = every matching request gets the Deprecation/Sunset/Link headers
   * while the row is deprecated; `usage` = only requests that use the old form (the code honouring it calls
   * `deprecationHeaders`); `none` = no headers (the change takes effect on its date).
   */
  signal: 'route' | 'usage' | 'none';
  /** Whether Stratus serves the old form (false: the routes answer with error 7100/7101). */
  served: boolean;
  routes: readonly ScheduledRoute[];
  /** Affected fields, settings or parameters. */
  fields?: readonly string[];
  /** Path (relative to `/client/v4`) of the replacement resource, when there is one. */
  successor?: string;
}

/** Where an entry stands at a date: before its date, deprecated (still served), or removed. */
export type Phase = 'active' | 'deprecated' | 'removed';
