/**
 * Zone settings served by `/zones/:zone_id/settings[/:name]`: the settings the schedule names plus http2 and
 * http3 (read by the DNS server for generated HTTPS records). Each is `{id, value, editable, modified_on}`.
 *
 * Storage: `zones.zone_settings` is a JSON object keyed by setting id, `{"http2":{"value":"on",
 * "modified_on":"…"}}`; a missing key means the default below (modified_on null). `cname_flattening` is not
 * stored there: it is the projection of the DNS setting `flatten_all_cnames` (see `legacy.ts`).
 */
import { AppError } from '../shared/errors.js';
import { LIFECYCLE_CODES } from '../lifecycle/codes.js';
import { isObject, type Json } from './shape.js';

/** One zone setting: its default, the schedule row that deprecates it (if any), and its value check. */
export interface ZoneSettingSpec {
  id: string;
  /** Schedule entry id, when the setting is deprecated or removed by the schedule. */
  scheduleId?: string;
  default: unknown;
  /** The new value from the current one and a PATCH value, or an error message. */
  apply(current: unknown, value: unknown): { value: unknown } | { error: string };
}

const ON_OFF = ['on', 'off'];

function onOff(id: string, def: 'on' | 'off', scheduleId?: string): ZoneSettingSpec {
  return {
    id, default: def, ...(scheduleId ? { scheduleId } : {}),
    apply: (_cur, v) => (typeof v === 'string' && ON_OFF.includes(v) ? { value: v } : { error: 'expected "on" or "off"' }),
  };
}

/** Checks an object value field by field, merging onto the current one (partial objects allowed). */
function objectSetting(id: string, scheduleId: string, def: Json, checks: Record<string, (v: unknown) => boolean>, expect: string): ZoneSettingSpec {
  return {
    id, scheduleId, default: def,
    apply(current, v) {
      if (!isObject(v)) return { error: `expected an object with ${expect}` };
      const out: Json = { ...(isObject(current) ? current : def) };
      for (const [k, x] of Object.entries(v)) {
        const check = checks[k];
        if (!check) return { error: `unknown field ${JSON.stringify(k)}; expected ${expect}` };
        if (!check(x)) return { error: `invalid ${k} ${JSON.stringify(x)}; expected ${expect}` };
        out[k] = x;
      }
      return { value: out };
    },
  };
}

const isOnOff = (v: unknown) => typeof v === 'string' && ON_OFF.includes(v);
const LABEL = /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/i;

/** Every zone setting Stratus serves, by id (cname_flattening is handled through DNS settings). */
export const ZONE_SETTINGS: Readonly<Record<string, ZoneSettingSpec>> = {
  brotli: onOff('brotli', 'on', 'zone-setting-brotli'),
  http2: onOff('http2', 'off'),
  http3: onOff('http3', 'off'),
  minify: objectSetting('minify', 'zone-setting-minify', { css: 'off', html: 'off', js: 'off' },
    { css: isOnOff, html: isOnOff, js: isOnOff }, 'css, html, js each "on" or "off"'),
  mobile_redirect: objectSetting('mobile_redirect', 'zone-setting-mobile-redirect', { status: 'off', mobile_subdomain: null, strip_uri: false },
    { status: isOnOff, mobile_subdomain: (v) => v === null || (typeof v === 'string' && LABEL.test(v)), strip_uri: (v) => typeof v === 'boolean' },
    'status ("on"/"off"), mobile_subdomain (a label or null), strip_uri (boolean)'),
  privacy_pass: onOff('privacy_pass', 'on', 'zone-setting-privacy-pass'),
  server_side_exclude: onOff('server_side_exclude', 'on', 'zone-setting-server-side-exclude'),
};

/** The id of the projected setting. */
export const CNAME_FLATTENING = 'cname_flattening';
/** Its schedule row. */
export const CNAME_FLATTENING_SCHEDULE_ID = 'zone-setting-cname-flattening';

/** Every setting id in the order the bulk GET lists them. */
export const ZONE_SETTING_IDS: readonly string[] = [...Object.keys(ZONE_SETTINGS), CNAME_FLATTENING].sort();

/** A stored setting value with its modification time. */
export interface StoredSetting {
  value: unknown;
  modified_on: string | null;
}

/** The stored (or default) value of a setting from the parsed `zones.zone_settings` column. */
export function storedSetting(zoneSettings: Json, id: string): StoredSetting {
  const spec = ZONE_SETTINGS[id];
  if (!spec) throw new Error(`not a stored zone setting: ${id}`);
  const raw = zoneSettings[id];
  if (isObject(raw) && 'value' in raw) return { value: raw.value, modified_on: typeof raw.modified_on === 'string' ? raw.modified_on : null };
  return { value: structuredClone(spec.default), modified_on: null };
}

/** The new value of a stored setting after a PATCH value (throws 1007 naming the setting). */
export function applySetting(zoneSettings: Json, id: string, value: unknown): unknown {
  const spec = ZONE_SETTINGS[id]!;
  const result = spec.apply(storedSetting(zoneSettings, id).value, value);
  if ('error' in result) throw new AppError(LIFECYCLE_CODES.invalidZoneSetting, `Invalid value for zone setting ${id}: ${result.error}`);
  return result.value;
}

/** Raised for an id that is no zone setting. */
export function unknownSetting(id: string): AppError {
  return new AppError(LIFECYCLE_CODES.unknownZoneSetting, `Unrecognized zone setting name ${JSON.stringify(id)}: Stratus serves ${ZONE_SETTING_IDS.join(', ')}`, 400);
}
