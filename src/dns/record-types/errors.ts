/**
 * The error (and warning) codes of record names and record values, one constant per problem. Codes from the
 * production service are kept where the reference shows them (9000, 9005, 9006, 9009); the rest are
 * Stratus codes in the 95xx block, stable and never reused. Messages are templates: `{name}` is replaced by
 * the matching entry of the variables passed to {@link message}.
 */
import type { ErrorCollector } from '../../shared/errors.js';

/** One catalogued problem. */
export interface ProblemDef {
  code: number;
  template: string;
}

const def = (code: number, template: string): ProblemDef => ({ code, template });

/** Empty name, bad characters, empty label. */
export const NAME_INVALID = def(9000, 'DNS name is invalid.');
/** An absolute name that does not lie in the zone. */
export const NAME_OUTSIDE_ZONE = def(9501, 'DNS name {name} is not in zone {zone}; use a name ending in {zone}, a relative name or @.');
/** The full name is longer than 253 characters. */
export const NAME_TOO_LONG = def(9502, 'DNS name is invalid: {name} is longer than 253 characters.');
/** A label longer than 63 characters. */
export const NAME_LABEL_TOO_LONG = def(9503, 'DNS name is invalid: label {label} is longer than 63 characters.');
/** A, AAAA, CNAME label that breaks the host name rules. */
export const NAME_LABEL_RULES = def(9504, 'DNS name is invalid: label {label} of a {type} record must contain only letters, digits or hyphens, start with a letter and end with a letter or digit.');
/** `*` anywhere but the leftmost label. */
export const NAME_WILDCARD_POSITION = def(9505, 'DNS name is invalid: * may only be the leftmost label.');
/** Warning: an underscore in an A, AAAA or CNAME name. */
export const NAME_UNDERSCORE_WARNING = def(9506, 'DNS name {name} contains an underscore; underscores are allowed but discouraged in {type} record names.');
/** SRV name without `_service._proto.`. */
export const SRV_NAME_FORM = def(9507, 'SRV record name {name} must have the form _service._proto.name.');

/** A content type without `content`. */
export const CONTENT_REQUIRED = def(9510, 'Content for {type} record is required.');
/** A data type without a `data` object. */
export const DATA_REQUIRED = def(9511, 'Data for {type} record is required and must be an object.');
/** A data field out of range, missing or of the wrong type. */
export const DATA_FIELD_INVALID = def(9512, 'Content for {type} record is invalid: data.{field} {rule}.');
/** A field in `data` the type does not have. */
export const DATA_FIELD_UNKNOWN = def(9513, 'Content for {type} record is invalid: data.{field} is not a field of {type} records.');
/** Content that does not fit the type (generic). */
export const CONTENT_INVALID = def(9514, 'Content for {type} record is invalid: {detail}.');

/** Bad A content (production code). */
export const A_INVALID = def(9005, 'Content for A record must be a valid IPv4 address.');
/** Bad AAAA content (production code). */
export const AAAA_INVALID = def(9006, 'Content for AAAA record is invalid. Must be a valid IPv6 address');
/** Bad MX content (production code). */
export const MX_INVALID = def(9009, 'Content for MX record must be a hostname: {detail}.');
/** Bad CNAME, NS or PTR content. */
export const HOSTNAME_INVALID = def(9515, 'Content for {type} record must be a valid hostname: {detail}.');
/** A/AAAA content inside the service's own ranges. */
export const ADDRESS_RESERVED = def(9516, 'Content for {type} record is invalid: {address} is in the range {range} reserved for the service.');
/** CNAME pointing at itself. */
export const CNAME_SELF = def(9517, 'Content for CNAME record is invalid: a CNAME cannot point to its own name {name}.');
/** MX/URI without priority. */
export const PRIORITY_REQUIRED = def(9518, 'priority is required for {type} records and must be an integer from 0 to 65535.');
/** Priority out of range or not an integer. */
export const PRIORITY_INVALID = def(9519, 'priority for {type} record must be an integer from 0 to 65535.');
/** TXT with unbalanced or inconsistent quotes. */
export const TXT_QUOTING = def(9520, 'Content for TXT record is invalid: {detail}.');
/** TXT longer than 2048 characters. */
export const TXT_TOO_LONG = def(9521, 'Content for TXT record is invalid: it is {length} characters long; the limit is 2048.');
/** SRV data.service/proto/name after their end of life. */
export const SRV_DATA_FIELDS_REMOVED = def(9522, 'SRV data.{field} is no longer supported (removed 2024-05-31); put the service, protocol and name in the top-level name.');
/** SRV data.service/proto/name that disagree with the record name. */
export const SRV_DATA_NAME_MISMATCH = def(9523, 'SRV data.{field} ({value}) does not match the record name {name}.');
/** SVCB/HTTPS `value` that does not parse. */
export const SVC_PARAMS_INVALID = def(9524, 'Content for {type} record is invalid: data.value {detail}.');
/** Content must be a string. */
export const CONTENT_NOT_STRING = def(9525, 'Content for {type} record must be a string.');
/** TXT records at one name that together pass 8,192 characters (a rule between records, `zones/record-rules.ts`). */
export const TXT_NAME_TOO_LONG = def(9526, 'Content for TXT records at {name} is invalid: together they would be {length} characters long; the limit is 8192.');
/** The message of a problem with its variables filled in. */
export function message(d: ProblemDef, vars: Record<string, string | number> = {}): string {
  return d.template.replace(/\{(\w+)\}/g, (m, k: string) => (k in vars ? String(vars[k]) : m));
}

/** Records a problem in a collector. */
export function report(errors: ErrorCollector, d: ProblemDef, vars: Record<string, string | number> = {}): void {
  errors.add(d.code, message(d, vars));
}

/** Every catalogued problem (for the errors catalogue and its docs test). */
export const ALL_PROBLEMS: readonly ProblemDef[] = [
  NAME_INVALID, NAME_OUTSIDE_ZONE, NAME_TOO_LONG, NAME_LABEL_TOO_LONG, NAME_LABEL_RULES, NAME_WILDCARD_POSITION,
  NAME_UNDERSCORE_WARNING, SRV_NAME_FORM, CONTENT_REQUIRED, DATA_REQUIRED, DATA_FIELD_INVALID, DATA_FIELD_UNKNOWN,
  CONTENT_INVALID, A_INVALID, AAAA_INVALID, MX_INVALID, HOSTNAME_INVALID, ADDRESS_RESERVED, CNAME_SELF,
  PRIORITY_REQUIRED, PRIORITY_INVALID, TXT_QUOTING, TXT_TOO_LONG, SRV_DATA_FIELDS_REMOVED, SRV_DATA_NAME_MISMATCH,
  SVC_PARAMS_INVALID, CONTENT_NOT_STRING, TXT_NAME_TOO_LONG,
];
