/**
 * Error codes of the lifecycle edge (api date, deprecated and removed routes, request framing) and of the
 * settings resources. Numbers follow the production catalogue's families: 6003 + `error_chain` for request
 * header problems, 7xxx for routing, 1006/1007 for zone settings. Listed in `docs/deprecations.md`.
 */

/** Codes and their fixed messages (messages with details are built where thrown). */
export const DEPRECATION_CODES = {
  /** Wrapper of header errors (production code), with the cause in `error_chain`. */
  invalidHeaders: 6003,
  /** `api-version` header that is not a valid `YYYY-MM-DD` calendar date (in `error_chain` of 6003). */
  invalidApiVersion: 6120,
  /** Both `Transfer-Encoding` and `Content-Length` sent, at every api date (in `error_chain` of 6003). */
  framingConflict: 6121,
  /** A route of the schedule that Stratus does not provide (HTTP 501, `x-should-retry: false`). */
  routeNotProvided: 7100,
  /** A route of the schedule that is removed at the request's api date (HTTP 410). */
  routeRemoved: 7101,
  /** A `messages` entry announcing that the request used a deprecated form (with the row's id and dates). */
  deprecationNotice: 7102,
  /** Unknown zone setting name (production code). */
  unknownZoneSetting: 1006,
  /** Invalid value of a zone setting (production code). */
  invalidZoneSetting: 1007,
  /** Invalid value in a DNS settings body (zone or account). */
  invalidDnsSetting: 1105,
} as const;
