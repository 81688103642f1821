/**
 * `GET/PATCH /zones/:zone_id/settings/:name` and `GET/PATCH /zones/:zone_id/settings` (bulk,
 * `{items:[{id, value}]}`) for the settings of `settings/zone-setting-catalogue.ts` (the bulk GET lists the
 * rows production lists; the others are served by name); `POST .../settings/privacy_pass`
 * as the contract lists it. Each setting answers `{id, value, editable, modified_on}`.
 *
 * By api date: deprecated settings keep working (with Deprecation headers, see the middleware); a removed one
 * (privacy_pass from 2024-03-31) answers 410 + 7101 and disappears from the bulk list. `cname_flattening` is
 * the projection of `flatten_all_cnames` and writes it.
 */
import { Hono, type Context } from 'hono';
import type { ApiEnv } from '../context.js';
import type { ApiDeps } from '../deps.js';
import { authMiddleware } from '../auth.js';
import { requireZone } from '../zone-access.js';
import { readJsonObject } from '../body.js';
import { ok } from '../respond.js';
import { AppError } from '../../shared/errors.js';
import { isoTimestamp } from '../../shared/clock.js';
import { entry, phaseAt } from '../../deprecation/schedule.js';
import { DEPRECATION_CODES } from '../../deprecation/codes.js';
import { routeRemovedError } from './deprecated.js';
import { zoneSettingsState, type ZoneSettingsState } from '../../zones/settings/settings-store.js';
import { readZoneDnsSettings } from '../../zones/settings/dns-settings.js';
import { cnameFlatteningValue, flattenAllFromLegacy } from '../../zones/settings/legacy.js';
import {
  CNAME_FLATTENING, CNAME_FLATTENING_SCHEDULE_ID, LISTED_SETTING_IDS, ZONE_SETTINGS, ZONE_SETTING_IDS, applySetting, storedSettingView, unknownSetting,
} from '../../zones/settings/zone-settings.js';
import { isObject, type Json } from '../../zones/settings/shape.js';

/** Schedule row of a setting id, if any. */
function scheduleIdOf(id: string): string | undefined {
  return id === CNAME_FLATTENING ? CNAME_FLATTENING_SCHEDULE_ID : ZONE_SETTINGS[id]?.scheduleId;
}

/** True when the setting is removed at the api date. */
function removed(id: string, apiDate: string): boolean {
  const s = scheduleIdOf(id);
  return s !== undefined && phaseAt(s, apiDate) === 'removed';
}

/** The API view of one setting at time `nowMs`. */
function view(state: ZoneSettingsState, id: string, nowMs: number): Json {
  if (id === CNAME_FLATTENING) {
    const dns = readZoneDnsSettings(state.dns, state.nameServers);
    return { id, value: cnameFlatteningValue(dns.flatten_all_cnames === true), editable: true, modified_on: null };
  }
  return storedSettingView(state.zone, id, nowMs);
}

/** The value a body or bulk item carries (`enabled` for ssl_recommender, `value` otherwise), or undefined. */
function sentValue(id: string, body: Json): { value: unknown } | undefined {
  const field = ZONE_SETTINGS[id]?.field ?? 'value';
  if (field in body) return { value: body[field] };
  return 'value' in body ? { value: body.value } : undefined;
}

/** The change one `{id, value}` makes (applied on top of `state`, which it updates in place). */
function applyItem(state: ZoneSettingsState, id: string, value: unknown, now: string): void {
  if (id === CNAME_FLATTENING) {
    state.dns = { ...state.dns, flatten_all_cnames: flattenAllFromLegacy(value) };
    return;
  }
  state.zone = { ...state.zone, [id]: { value: applySetting(state.zone, id, value), modified_on: now } };
}

/** Routes of zone settings. */
export function zoneSettingsRoutes(deps: ApiDeps): Hono<ApiEnv> {
  const app = new Hono<ApiEnv>();
  const auth = authMiddleware(deps.db, deps.clock, deps.limits);

  const known = (c: Context<ApiEnv>, id: string): void => {
    if (!ZONE_SETTING_IDS.includes(id)) throw unknownSetting(id);
    if (removed(id, c.get('apiDate'))) throw routeRemovedError(entry(scheduleIdOf(id)!), c.req.method, c.req.path, c.get('apiDate'));
  };

  const write = async (c: Context<ApiEnv>, items: { id: string; value: unknown }[]): Promise<ZoneSettingsState> => {
    const zone = await requireZone(c, c.req.param('zone_id')!);
    const now = isoTimestamp(deps.clock.now());
    // Validate every item against the current state first, so nothing is written when one is wrong.
    const errors: AppError[] = [];
    const probe = zoneSettingsState(zone);
    for (const item of items) {
      try { applyItem(probe, item.id, item.value, now); } catch (err) { if (err instanceof AppError) errors.push(err); else throw err; }
    }
    if (errors.length > 0) throw new AppError(errors[0]!.code, errors[0]!.message, 400, { others: errors.slice(1) });
    return c.get('services').settings.updateZone(zone.id, (state) => {
      const next = { ...state };
      for (const item of items) applyItem(next, item.id, item.value, now);
      return { dns: next.dns, zone: next.zone };
    });
  };

  app.get('/zones/:zone_id/settings', auth, async (c) => {
    const state = zoneSettingsState(await requireZone(c, c.req.param('zone_id')));
    const now = deps.clock.now().getTime();
    return ok(c, LISTED_SETTING_IDS.filter((id) => !removed(id, c.get('apiDate'))).map((id) => view(state, id, now)));
  });

  app.patch('/zones/:zone_id/settings', auth, async (c) => {
    const body = await readJsonObject(c);
    if (!Array.isArray(body.items) || body.items.length === 0) {
      throw new AppError(DEPRECATION_CODES.invalidZoneSetting, 'Send {"items": [{"id": "<setting>", "value": <value>}, ...]} with at least one item');
    }
    const items = body.items.map((raw: unknown, i: number) => {
      const sent = isObject(raw) && typeof raw.id === 'string' ? sentValue(raw.id, raw) : undefined;
      if (!isObject(raw) || typeof raw.id !== 'string' || !sent) {
        throw new AppError(DEPRECATION_CODES.invalidZoneSetting, `items[${i}] must be an object {"id": "<setting>", "value": <value>}`);
      }
      known(c, raw.id);
      return { id: raw.id, value: sent.value };
    });
    const state = await write(c, items);
    const now = deps.clock.now().getTime();
    return ok(c, [...new Set(items.map((i) => i.id))].map((id) => view(state, id, now)));
  });

  app.get('/zones/:zone_id/settings/:name', auth, async (c) => {
    const id = c.req.param('name');
    known(c, id);
    const state = zoneSettingsState(await requireZone(c, c.req.param('zone_id')));
    return ok(c, view(state, id, deps.clock.now().getTime()));
  });

  const patchOne = async (c: Context<ApiEnv>, id: string): Promise<Response> => {
    known(c, id);
    const sent = sentValue(id, await readJsonObject(c));
    const field = ZONE_SETTINGS[id]?.field ?? 'value';
    if (!sent) throw new AppError(DEPRECATION_CODES.invalidZoneSetting, `Invalid value for zone setting ${id}: send {"${field}": <value>}`);
    const state = await write(c, [{ id, value: sent.value }]);
    return ok(c, view(state, id, deps.clock.now().getTime()));
  };
  app.patch('/zones/:zone_id/settings/:name', auth, (c) => patchOne(c, c.req.param('name')));
  app.post('/zones/:zone_id/settings/privacy_pass', auth, (c) => patchOne(c, 'privacy_pass'));
  return app;
}
