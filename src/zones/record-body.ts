/**
 * Validation of a record request body, except the type-specific value (`content`/`data`/`priority`, checked
 * by `dns/record-types`) and the owner name (`dns/names`). Every problem of the body is collected before
 * failing. Rules:
 *
 * - `type` is required and one of the API's types; `SOA` is refused (Stratus synthesizes it per zone; change
 *   it through `/zones/:zone_id/dns_settings`).
 * - `ttl`: 1 = Auto (default); a proxied record always gets 1; otherwise `plan.minTtl`..86400, else 9021.
 * - `proxied` (default false) only on A, AAAA and CNAME, else 9004.
 * - `comment`: at most `plan.commentMaxLength` characters, no CR or LF (9313); `""` and null clear it.
 * - `tags`: `name:value` strings, at most `plan.tagsPerRecord` (9300); name 1..32 of `[A-Za-z0-9_-]`
 *   (9301), value at most 100 characters (9302); repeated tags are kept once.
 * - `settings`: booleans `ipv4_only`, `ipv6_only`, and `flatten_cname` on CNAME only (1111).
 * - `zone_id`, `zone_name`, `locked`, `id`, `meta`, `proxiable` and timestamps are ignored when sent.
 */
import type { PlanLimits } from '../config/config.js';
import { AppError, ErrorCollector } from '../shared/errors.js';
import { isRecordType, PROXIABLE_TYPES, type DnsRecord, type RecordSettings, type RecordType } from '../dns/record.js';
import { validateRecordValue } from '../dns/record-types/index.js';
import { recordName, type RecordWarning } from './record-name.js';

/** A validated record body: everything a stored record holds except ids and timestamps. */
export type RecordDraft = Omit<DnsRecord, 'id' | 'zoneId' | 'meta' | 'createdOn' | 'modifiedOn' | 'commentModifiedOn' | 'tagsModifiedOn'>;

/** What body validation needs besides the body. */
export interface RecordBodyContext {
  zoneName: string;
  apiDate: string;
  serviceRanges: readonly string[];
  plan: PlanLimits;
  /** True when an SOA line is taken (the zone-file import of a pre-signed zone). */
  soaAllowed?: boolean;
}

/** Raised when a body is invalid; the edge may wrap it (`1004` + `error_chain` for old api dates). */
export class RecordValidationError extends AppError {
  constructor(errors: AppError[]) {
    const [first, ...rest] = errors;
    super(first!.code, first!.message, first!.status, { others: rest, chain: first!.chain });
    this.name = 'RecordValidationError';
  }
}

/** The SOA refusal (a clear pointer to where the SOA is managed). */
export const SOA_MESSAGE = 'SOA records are managed by Stratus and cannot be created or changed as DNS records; set the SOA fields through /zones/:zone_id/dns_settings (soa)';

/** Validates a full body (POST, PUT, or a PATCH already merged with the stored record). */
export function validateRecordBody(body: Record<string, unknown>, ctx: RecordBodyContext, warnings: RecordWarning[]): RecordDraft {
  const errors = new ErrorCollector();
  const type = body.type;
  let recordType: RecordType | undefined;
  if (type === undefined || type === null || type === '') errors.add(1107, 'Missing record type: send "type", e.g. "A"');
  // SOA is a record only in a pre-signed zone (checked with the zone: zones/dnssec-record-rules.ts).
  else if (type === 'SOA' && ctx.soaAllowed !== true) errors.add(1108, SOA_MESSAGE);
  else if (!isRecordType(type)) errors.add(1107, `Invalid record type ${JSON.stringify(type)}: use one of A, AAAA, CAA, CERT, CNAME, DNSKEY, DS, HTTPS, LOC, MX, NAPTR, NS, OPENPGPKEY, PTR, SMIMEA, SRV, SSHFP, SVCB, TLSA, TXT, URI`);
  else recordType = type;

  const name = recordType ? recordName(body.name, ctx.zoneName, recordType, errors, warnings) : undefined;
  // The value is checked even when the name is bad, so that one answer lists every problem.
  const value = recordType
    ? validateRecordValue({ type: recordType, content: body.content, data: body.data, priority: body.priority },
      { zoneName: ctx.zoneName, recordName: name ?? ctx.zoneName, apiDate: ctx.apiDate, serviceRanges: ctx.serviceRanges, errors })
    : undefined;

  let proxied = false;
  if (body.proxied !== undefined && body.proxied !== null) {
    if (typeof body.proxied !== 'boolean') errors.add(1110, `Invalid proxied ${JSON.stringify(body.proxied)}: expected true or false`);
    else proxied = body.proxied;
  }
  if (proxied && recordType && !PROXIABLE_TYPES.has(recordType)) errors.add(9004, 'This record type cannot be proxied.');

  // TTL is forced to Auto only for a record that really is proxied (a refused proxied flag does not hide a bad TTL).
  const ttl = checkTtl(body.ttl, proxied && recordType !== undefined && PROXIABLE_TYPES.has(recordType), ctx.plan.minTtl, errors);
  const comment = checkComment(body.comment, ctx.plan.commentMaxLength, errors);
  const tags = checkTags(body.tags, ctx.plan.tagsPerRecord, errors);
  const settings = checkSettings(body.settings, recordType, errors);

  if (!errors.ok || !recordType || name === undefined || !value) {
    if (errors.ok) errors.add(1004, 'DNS Validation Error');
    throw new RecordValidationError(errors.errors);
  }
  // An SRV body with the pre-2024-05-31 data.service/proto/name may build the owner name (RecordValue.name).
  return { name: value.name ?? name, type: recordType, content: value.content, data: value.data, priority: value.priority, ttl, proxied, comment, tags, settings };
}

function checkTtl(raw: unknown, proxied: boolean, minTtl: number, errors: ErrorCollector): number {
  if (raw === undefined || raw === null) return 1;
  const message = `Invalid TTL. Must be between ${minTtl} and 86400 seconds, or 1 for automatic.`;
  if (typeof raw !== 'number' || !Number.isInteger(raw)) { errors.add(9021, message); return 1; }
  if (proxied) return 1;
  if (raw !== 1 && (raw < minTtl || raw > 86400)) errors.add(9021, message);
  return raw;
}

function checkComment(raw: unknown, max: number, errors: ErrorCollector): string | null {
  if (raw === undefined || raw === null || raw === '') return null;
  if (typeof raw !== 'string') { errors.add(9313, 'DNS record comment must be a string.'); return null; }
  if ([...raw].length > max) errors.add(9313, `DNS record comment exceeds the maximum length of ${max} characters.`);
  if (/[\r\n]/.test(raw)) errors.add(9313, 'DNS record comment cannot contain line breaks (CR or LF).');
  return raw;
}

function checkTags(raw: unknown, max: number, errors: ErrorCollector): string[] {
  if (raw === undefined || raw === null) return [];
  if (!Array.isArray(raw)) { errors.add(9301, 'DNS record tags must be an array of "name:value" strings.'); return []; }
  const tags: string[] = [];
  const seen = new Set<string>();
  for (const tag of raw) {
    if (typeof tag !== 'string') { errors.add(9301, `Invalid tag ${JSON.stringify(tag)}: expected a "name:value" string.`); continue; }
    const colon = tag.indexOf(':');
    const tagName = colon < 0 ? tag : tag.slice(0, colon);
    const tagValue = colon < 0 ? '' : tag.slice(colon + 1);
    if (colon < 0 || !/^[A-Za-z0-9_-]{1,32}$/.test(tagName)) {
      errors.add(9301, `Invalid tag ${JSON.stringify(tag)}: use "name:value" with a name of 1 to 32 letters, digits, "_" or "-".`);
      continue;
    }
    if ([...tagValue].length > 100) { errors.add(9302, `Tag "${tagName}" has a value longer than 100 characters.`); continue; }
    const normalized = `${tagName.toLowerCase()}:${tagValue}`;
    if (seen.has(normalized)) continue;
    seen.add(normalized);
    tags.push(`${tagName.toLowerCase()}:${tagValue}`);
  }
  if (tags.length > max) errors.add(9300, `DNS record has ${tags.length} tags, exceeding the quota of ${max}.`);
  return tags;
}

function checkSettings(raw: unknown, type: RecordType | undefined, errors: ErrorCollector): RecordSettings {
  if (raw === undefined || raw === null) return {};
  if (typeof raw !== 'object' || Array.isArray(raw)) { errors.add(1111, 'settings must be an object.'); return {}; }
  const settings: RecordSettings = {};
  for (const [key, value] of Object.entries(raw as Record<string, unknown>)) {
    if (key !== 'ipv4_only' && key !== 'ipv6_only' && key !== 'flatten_cname') {
      errors.add(1111, `Unknown setting "${key}": use ipv4_only, ipv6_only or (CNAME) flatten_cname.`);
      continue;
    }
    if (typeof value !== 'boolean') { errors.add(1111, `settings.${key} must be true or false.`); continue; }
    if (key === 'flatten_cname' && type !== undefined && type !== 'CNAME') { errors.add(1111, 'settings.flatten_cname applies to CNAME records only.'); continue; }
    if (value) settings[key] = true;
  }
  if (settings.ipv4_only && settings.ipv6_only) errors.add(1111, 'settings.ipv4_only and settings.ipv6_only cannot both be true.');
  return settings;
}
