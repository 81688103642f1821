/**
 * Zone and account DNS settings (reference §7): shapes, defaults, validation and the legacy projections.
 *
 * Storage (read by the DNS server through `dns/snapshot-settings.ts`):
 * - `zones.dns_settings`: JSON of the full §7.1 zone shape —
 *   `{flatten_all_cnames, foundation_dns, internal_dns:{reference_zone_id}, multi_provider,
 *     nameservers:{type, ns_set}, ns_ttl, secondary_overrides, soa:{expire,min_ttl,mname,refresh,retry,rname,ttl},
 *     zone_mode}`. Missing keys read as the defaults below (`{}` is a valid stored value).
 * - `accounts.settings`: JSON object whose key `dns_settings` holds `{enforce_dns_only, zone_defaults}`.
 *
 * One underlying value per setting: the legacy forms (`cname_flattening`, `use_apex_ns`,
 * `secondary_overrides`, account `default_nameservers`/`use_account_custom_ns_by_default`) are projections of
 * these fields, computed on read and translated on write, so old and new stay in sync by construction.
 */
import { randomInt } from 'node:crypto';
import { AppError } from '../../shared/errors.js';
import { defaultRname } from '../../dns/snapshot-settings.js';
import { DEPRECATION_CODES } from '../../deprecation/codes.js';
import { isObject, mergeChecked, withDefaults, type FieldSpec, type Json } from './shape.js';

/** `nameservers.type` values of a zone (reference §7.1). */
export const ZONE_NS_TYPES = ['cloudflare.standard', 'cloudflare.advanced', 'custom.account', 'custom.tenant', 'custom.zone'] as const;
/** `zone_defaults.nameservers.type` values of an account: the contract's four. */
export const ACCOUNT_NS_TYPES = ['cloudflare.standard', 'cloudflare.standard.random', 'custom.account', 'custom.tenant'] as const;
/** `zone_mode` values. */
export const ZONE_MODES = ['standard', 'cdn_only', 'dns_only'] as const;

/** SOA fields (reference §7.1 ranges). */
const SOA_FIELDS = (nullableRname: boolean): Record<string, FieldSpec> => ({
  expire: { kind: 'int', min: 86400, max: 2419200 },
  min_ttl: { kind: 'int', min: 60, max: 86400 },
  mname: { kind: 'host', nullable: true },
  refresh: { kind: 'int', min: 600, max: 86400 },
  retry: { kind: 'int', min: 600, max: 86400 },
  rname: { kind: 'mailbox', nullable: nullableRname },
  ttl: { kind: 'int', min: 300, max: 86400 },
});

const COMMON_FIELDS: Record<string, FieldSpec> = {
  flatten_all_cnames: { kind: 'boolean' },
  foundation_dns: { kind: 'boolean' },
  multi_provider: { kind: 'boolean' },
  ns_ttl: { kind: 'int', min: 30, max: 86400 },
  secondary_overrides: { kind: 'boolean' },
  zone_mode: { kind: 'enum', values: ZONE_MODES },
};

/** What a PATCH of `/zones/:zone_id/dns_settings` may contain. */
export const ZONE_FIELDS: Readonly<Record<string, FieldSpec>> = {
  ...COMMON_FIELDS,
  internal_dns: { kind: 'object', fields: { reference_zone_id: { kind: 'id', nullable: true } } },
  nameservers: { kind: 'object', fields: { type: { kind: 'enum', values: ZONE_NS_TYPES }, ns_set: { kind: 'int', min: 1, max: 5 } } },
  soa: { kind: 'object', fields: SOA_FIELDS(false) },
};

/** What `zone_defaults` in a PATCH of `/accounts/:account_id/dns_settings` may contain. */
export const ZONE_DEFAULTS_FIELDS: Readonly<Record<string, FieldSpec>> = {
  ...COMMON_FIELDS,
  nameservers: { kind: 'object', fields: { type: { kind: 'enum', values: ACCOUNT_NS_TYPES } } },
  soa: { kind: 'object', fields: SOA_FIELDS(true) },
};

/** What a PATCH of `/accounts/:account_id/dns_settings` may contain. */
export const ACCOUNT_FIELDS: Readonly<Record<string, FieldSpec>> = {
  enforce_dns_only: { kind: 'boolean' },
  zone_defaults: { kind: 'object', fields: ZONE_DEFAULTS_FIELDS },
};

const SOA_DEFAULTS = { expire: 604800, min_ttl: 1800, mname: null, refresh: 10000, retry: 2400, ttl: 3600 };

/** The defaults of a zone's DNS settings; `rname` defaults to `dns.<provider domain>` of the name servers. */
export function zoneDnsDefaults(nameServers: readonly string[]): Json {
  return {
    flatten_all_cnames: false,
    foundation_dns: false,
    internal_dns: { reference_zone_id: null },
    multi_provider: false,
    nameservers: { type: 'cloudflare.standard', ns_set: 1 },
    ns_ttl: 86400,
    secondary_overrides: false,
    soa: { ...SOA_DEFAULTS, rname: defaultRname(nameServers) },
    zone_mode: 'standard',
  };
}

/** The defaults of an account's DNS settings. */
export function accountDnsDefaults(): Json {
  return {
    enforce_dns_only: false,
    zone_defaults: {
      flatten_all_cnames: false,
      foundation_dns: false,
      multi_provider: false,
      nameservers: { type: 'cloudflare.standard' },
      ns_ttl: 86400,
      secondary_overrides: false,
      soa: { ...SOA_DEFAULTS, rname: null },
      zone_mode: 'standard',
    },
  };
}

/** A zone's DNS settings from the stored column (full shape, defaults filled in). */
export function readZoneDnsSettings(stored: Json, nameServers: readonly string[]): Json {
  return withDefaults(zoneDnsDefaults(nameServers), stored);
}

/** An account's DNS settings from its stored `settings` column object. */
export function readAccountDnsSettings(accountSettings: Json): Json {
  return withDefaults(accountDnsDefaults(), accountSettings.dns_settings);
}

/** SOA rules across fields (reference §7.1 docs): retry <= refresh <= expire. */
function checkSoa(soa: unknown, errors: AppError[], prefix: string): void {
  if (!isObject(soa)) return;
  const { refresh, retry, expire } = soa as { refresh: number; retry: number; expire: number };
  if (retry > refresh) errors.push(new AppError(DEPRECATION_CODES.invalidDnsSetting, `Invalid value for DNS setting ${prefix}soa.retry: it must not exceed soa.refresh (${retry} > ${refresh})`));
  if (expire < refresh) errors.push(new AppError(DEPRECATION_CODES.invalidDnsSetting, `Invalid value for DNS setting ${prefix}soa.expire: it must be at least soa.refresh (${expire} < ${refresh})`));
}

function requireObject(body: unknown): Json {
  if (!isObject(body)) throw new AppError(DEPRECATION_CODES.invalidDnsSetting, 'The DNS settings body must be a JSON object');
  return body;
}

function throwAll(errors: AppError[]): void {
  if (errors.length > 0) throw new AppError(errors[0]!.code, errors[0]!.message, 400, { others: errors.slice(1) });
}

/** Validates a zone PATCH body and returns the new full settings (throws 1105 listing every problem). */
export function patchZoneDnsSettings(current: Json, body: unknown): Json {
  const errors: AppError[] = [];
  const next = mergeChecked(current, requireObject(body), ZONE_FIELDS, DEPRECATION_CODES.invalidDnsSetting, errors);
  if (errors.length === 0) checkSoa(next.soa, errors, '');
  throwAll(errors);
  return next;
}

/** Validates an account PATCH body and returns the new full account DNS settings. */
export function patchAccountDnsSettings(current: Json, body: unknown): Json {
  const errors: AppError[] = [];
  const next = mergeChecked(current, requireObject(body), ACCOUNT_FIELDS, DEPRECATION_CODES.invalidDnsSetting, errors);
  if (errors.length === 0) checkSoa((next.zone_defaults as Json).soa, errors, 'zone_defaults.');
  throwAll(errors);
  return next;
}

/**
 * The DNS settings of a new zone from its account's settings (`accounts.settings` parsed): the account's
 * `zone_defaults`, with `cloudflare.standard.random` turned into a standard set picked at random.
 * Returns the JSON to store in `zones.dns_settings`.
 */
export function initialDnsSettings(accountSettings: Json, nameServers: readonly string[]): string {
  const defaults = readAccountDnsSettings(accountSettings).zone_defaults as Json;
  const soa = { ...(defaults.soa as Json) };
  const base = zoneDnsDefaults(nameServers);
  if (soa.rname === null) soa.rname = (base.soa as Json).rname;
  const type = (defaults.nameservers as Json).type as string;
  const nameservers = type === 'cloudflare.standard.random'
    ? { type: 'cloudflare.standard', ns_set: randomInt(1, 6) }
    : { type, ns_set: 1 };
  return JSON.stringify({ ...base, ...defaults, nameservers, soa, internal_dns: { reference_zone_id: null } });
}
