/**
 * Deprecation signalling headers of a schedule entry:
 * - `Deprecation: @<unix seconds>` — RFC 9745 (a structured-field Date of the row's date, 00:00 UTC);
 * - `Sunset: <HTTP-date>` — RFC 8594, only when a removal date is known;
 * - `Link` — `rel="successor-version"` to the replacement resource when there is one, and always
 *   `rel="deprecation"` to this row in `/client/v4/deprecations/:id` (RFC 9745 §3).
 */
import { removalDate, type ScheduleEntry } from './schedule.js';
import { fillPath } from './schedule-routes.js';

/** The v4 prefix links are built with. */
const PREFIX = '/client/v4';

/** Midnight UTC of a `YYYY-MM-DD` date. */
export function dayStart(day: string): Date {
  return new Date(`${day}T00:00:00Z`);
}

/** `@<unix seconds>`: the RFC 9745 Deprecation value of a date. */
export function deprecationValue(day: string): string {
  return `@${Math.floor(dayStart(day).getTime() / 1000)}`;
}

/** The IMF-fixdate of a date (RFC 9110 §5.6.7), as `Sunset` carries it. */
export function httpDate(day: string): string {
  return dayStart(day).toUTCString();
}

/** Path of a row's document in the v4 API. */
export function deprecationDocPath(id: string): string {
  return `${PREFIX}/deprecations/${id}`;
}

/** The headers announcing an entry (or one of its parts), with successor path variables filled from `params`. */
export function deprecationHeaders(e: ScheduleEntry, params: Record<string, string> = {}, part?: string): Record<string, string> {
  const headers: Record<string, string> = { Deprecation: deprecationValue(e.date) };
  const removal = removalDate(e, part);
  if (removal !== undefined) headers.Sunset = httpDate(removal);
  const links: string[] = [];
  const successor = e.successor !== undefined ? fillPath(e.successor, params) : undefined;
  // A successor whose variables the request cannot fill (GET /accounts -> /accounts/:account_id/…) is not linked.
  if (successor !== undefined && !successor.includes('/:')) links.push(`<${PREFIX}${successor}>; rel="successor-version"`);
  links.push(`<${deprecationDocPath(e.id)}>; rel="deprecation"; type="application/json"`);
  headers.Link = links.join(', ');
  return headers;
}
