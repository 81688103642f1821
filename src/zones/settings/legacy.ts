/**
 * The legacy forms of DNS settings as projections of the one stored value (see `dns-settings.ts`):
 * - zone setting `cname_flattening` ⇔ `flatten_all_cnames` (`on`/`flatten_all` = true;
 *   `off`/`apex`/`flatten_at_root` = false; read back as `flatten_all` / `flatten_at_root`);
 * - `/dns_settings/use_apex_ns` ⇔ `multi_provider`; `/dns_settings/secondary_overrides` ⇔ `secondary_overrides`;
 * - account `default_nameservers` + `use_account_custom_ns_by_default` ⇔ `zone_defaults.nameservers.type`.
 */
import { AppError } from '../../shared/errors.js';
import { DEPRECATION_CODES } from '../../deprecation/codes.js';
import { isObject, type Json } from './shape.js';
import { readAccountDnsSettings } from './dns-settings.js';

/** Values the legacy `cname_flattening` setting accepts, and the boolean each means. */
export const CNAME_FLATTENING_VALUES: Readonly<Record<string, boolean>> = { flatten_all: true, on: true, flatten_at_root: false, off: false, apex: false };

/** The `cname_flattening` value of a `flatten_all_cnames` value. */
export function cnameFlatteningValue(flattenAll: boolean): string {
  return flattenAll ? 'flatten_all' : 'flatten_at_root';
}

/** The `flatten_all_cnames` value meant by a `cname_flattening` value (throws 1007 for anything else). */
export function flattenAllFromLegacy(value: unknown): boolean {
  if (typeof value === 'string' && value in CNAME_FLATTENING_VALUES) return CNAME_FLATTENING_VALUES[value]!;
  throw new AppError(DEPRECATION_CODES.invalidZoneSetting, `Invalid value for zone setting cname_flattening: use one of ${Object.keys(CNAME_FLATTENING_VALUES).join(', ')}; got ${JSON.stringify(value)}`);
}

/** The legacy dedicated DNS settings endpoints and the field each one is. */
export const LEGACY_DNS_ENDPOINTS: Readonly<Record<string, string>> = { use_apex_ns: 'multi_provider', secondary_overrides: 'secondary_overrides' };

/** The boolean of a legacy `{id, value}` PATCH body (`value` true/false, or `"on"`/`"off"`). */
export function legacyBooleanValue(id: string, body: unknown): boolean {
  const value = isObject(body) ? body.value : undefined;
  if (value === true || value === 'on') return true;
  if (value === false || value === 'off') return false;
  throw new AppError(DEPRECATION_CODES.invalidDnsSetting, `Invalid value for DNS setting ${id}: send {"value": true} or {"value": false}; got ${JSON.stringify(value ?? null)}`);
}

/** The account settings fields replaced by `zone_defaults.nameservers.type`. */
export interface LegacyAccountFields {
  default_nameservers: 'cloudflare.standard' | 'custom.account' | 'custom.tenant';
  use_account_custom_ns_by_default: boolean;
}

/** The legacy account fields of a stored account `settings` object (at every api date). */
export function legacyAccountFields(accountSettings: Json): LegacyAccountFields {
  const type = ((readAccountDnsSettings(accountSettings).zone_defaults as Json).nameservers as Json).type as string;
  if (type === 'custom.account') return { default_nameservers: 'custom.account', use_account_custom_ns_by_default: true };
  if (type === 'custom.tenant') return { default_nameservers: 'custom.tenant', use_account_custom_ns_by_default: false };
  return { default_nameservers: 'cloudflare.standard', use_account_custom_ns_by_default: false };
}

/**
 * The `settings` object of account responses: the stored settings without the internal `dns_settings` key,
 * plus the legacy fields. Call it from the account routes (GET/POST /accounts, GET/PUT /accounts/:id).
 */
export function publicAccountSettings(accountSettings: Json): Json {
  const { dns_settings: _hidden, ...rest } = accountSettings;
  return { ...rest, ...legacyAccountFields(accountSettings) };
}

/**
 * Applies the legacy fields of an account `settings` body (`PUT /accounts/:id`, `POST /accounts`) to the
 * stored settings object, returning the new one. Fields absent from the body change nothing; a body whose
 * legacy view equals the current one keeps the current type (so `cloudflare.standard.random` survives a
 * round trip). Throws 1105 for bad or contradictory values.
 */
export function applyLegacyAccountFields(accountSettings: Json, body: Json): Json {
  const hasDefault = 'default_nameservers' in body;
  const hasUse = 'use_account_custom_ns_by_default' in body;
  if (!hasDefault && !hasUse) return accountSettings;
  const current = legacyAccountFields(accountSettings);
  const d = hasDefault ? body.default_nameservers : current.default_nameservers;
  const u = hasUse ? body.use_account_custom_ns_by_default : current.use_account_custom_ns_by_default;
  const bad = (field: string, expect: string, got: unknown) => new AppError(DEPRECATION_CODES.invalidDnsSetting, `Invalid value for account setting ${field}: expected ${expect}, got ${JSON.stringify(got)}`);
  if (!['cloudflare.standard', 'custom.account', 'custom.tenant'].includes(d as string)) throw bad('default_nameservers', 'cloudflare.standard, custom.account or custom.tenant', d);
  if (typeof u !== 'boolean') throw bad('use_account_custom_ns_by_default', 'true or false', u);
  let type: string;
  if (u) {
    if (hasDefault && d !== 'custom.account') throw bad('use_account_custom_ns_by_default', `false together with default_nameservers ${JSON.stringify(d)}`, u);
    type = 'custom.account';
  } else if (hasUse && !hasDefault && current.use_account_custom_ns_by_default) {
    type = 'cloudflare.standard';
  } else {
    if (hasUse && d === 'custom.account') throw bad('use_account_custom_ns_by_default', 'true together with default_nameservers "custom.account"', u);
    type = d as string;
  }
  if (type === current.default_nameservers && u === current.use_account_custom_ns_by_default) return accountSettings;
  const dns = readAccountDnsSettings(accountSettings);
  const zoneDefaults = dns.zone_defaults as Json;
  return { ...accountSettings, dns_settings: { ...dns, zone_defaults: { ...zoneDefaults, nameservers: { ...(zoneDefaults.nameservers as Json), type } } } };
}
