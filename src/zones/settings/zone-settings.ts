/**
 * Zone settings served by `/zones/:zone_id/settings[/:name]`: the rows of `zone-setting-catalogue.ts`. Each
 * answers `{id, value, editable, modified_on}` (ssl_recommender: `enabled` instead of `value`;
 * development_mode also `time_remaining`).
 *
 * Storage: `zones.zone_settings` is a JSON object keyed by setting id, `{"http2":{"value":"on",
 * "modified_on":"…"}}`; a missing key means the row's default (modified_on null). Keys starting with `_` are
 * not settings (`_zone`: zone attributes, `zones/zone-edit.ts`). `cname_flattening` is not stored there: it is
 * the projection of the DNS setting `flatten_all_cnames` (see `legacy.ts`).
 */
import { AppError } from '../../shared/errors.js';
import { DEPRECATION_CODES } from '../../deprecation/codes.js';
import { isObject, type Json } from './shape.js';
import { ZONE_SETTING_ROWS, type ZoneSettingSpec } from './zone-setting-catalogue.js';

export type { ZoneSettingSpec } from './zone-setting-catalogue.js';

/** Every zone setting Stratus stores, by id (cname_flattening is handled through DNS settings). */
export const ZONE_SETTINGS: Readonly<Record<string, ZoneSettingSpec>> = Object.fromEntries(ZONE_SETTING_ROWS.map((r) => [r.id, r]));

/** The id of the projected setting. */
export const CNAME_FLATTENING = 'cname_flattening';
/** Its schedule row. */
export const CNAME_FLATTENING_SCHEDULE_ID = 'zone-setting-cname-flattening';

/** Every setting id served one by one, sorted. */
export const ZONE_SETTING_IDS: readonly string[] = [...Object.keys(ZONE_SETTINGS), CNAME_FLATTENING].sort();

/** The ids the bulk GET lists (production's list), sorted. */
export const LISTED_SETTING_IDS: readonly string[] = ZONE_SETTING_IDS.filter((id) => id === CNAME_FLATTENING || ZONE_SETTINGS[id]!.listed);

/** Development mode turns itself off this long after it was turned on (production: 3 hours). */
export const DEVELOPMENT_MODE_SECONDS = 3 * 3600;

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
  if (!spec.editable) throw new AppError(DEPRECATION_CODES.invalidZoneSetting, `Zone setting ${id} is not editable for this zone`);
  const result = spec.check(storedSetting(zoneSettings, id).value, value);
  if ('error' in result) throw new AppError(DEPRECATION_CODES.invalidZoneSetting, `Invalid value for zone setting ${id}: ${result.error}; got ${JSON.stringify(value)}`);
  return result.value;
}

/** The API view of a stored setting at time `nowMs` (development mode expires on its own). */
export function storedSettingView(zoneSettings: Json, id: string, nowMs: number): Json {
  const spec = ZONE_SETTINGS[id]!;
  const s = storedSetting(zoneSettings, id);
  if (spec.field === 'enabled') return { id, enabled: s.value, editable: spec.editable, modified_on: s.modified_on };
  if (id === 'development_mode') {
    const since = s.modified_on ? Math.floor((nowMs - Date.parse(s.modified_on)) / 1000) : null;
    const left = s.value === 'on' && since !== null ? DEVELOPMENT_MODE_SECONDS - since : 0;
    return { id, value: left > 0 ? 'on' : 'off', editable: true, modified_on: s.modified_on, time_remaining: left };
  }
  return { id, value: s.value, editable: spec.editable, modified_on: s.modified_on };
}

/** Raised for an id that is no zone setting (production's 1006). */
export function unknownSetting(id: string): AppError {
  return new AppError(DEPRECATION_CODES.unknownZoneSetting, `Unrecognized zone setting name ${JSON.stringify(id)}`, 400);
}
