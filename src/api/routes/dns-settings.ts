/**
 * DNS settings: `GET/PATCH /zones/:zone_id/dns_settings` (full reference §7.1 shape, nested partial PATCH),
 * the deprecated dedicated endpoints `GET/PATCH /zones/:zone_id/dns_settings/use_apex_ns|secondary_overrides`
 * (legacy `{id, value, editable, modified_on}` shape, projections of `multi_provider` and
 * `secondary_overrides`), `GET/PATCH /accounts/:account_id/dns_settings` (`enforce_dns_only`,
 * `zone_defaults`), and `PUT /accounts/:account_id` (name and the legacy settings fields). Invalid values: 400 + 1105 naming each field.
 */
import { Hono, type Context } from 'hono';
import type { ApiEnv } from '../context.js';
import type { ApiDeps } from '../deps.js';
import { authMiddleware } from '../auth.js';
import { requireZone } from '../zone-access.js';
import { readJson } from '../body.js';
import { ok } from '../respond.js';
import { AppError } from '../../shared/errors.js';
import { zoneSettingsState, type ZoneSettingsState } from '../../zones/settings/settings-store.js';
import { patchAccountDnsSettings, patchZoneDnsSettings, readAccountDnsSettings, readZoneDnsSettings } from '../../zones/settings/dns-settings.js';
import { LEGACY_DNS_ENDPOINTS, applyLegacyAccountFields, legacyBooleanValue } from '../../zones/settings/legacy.js';
import { isObject } from '../../zones/settings/shape.js';
import { DEPRECATION_CODES } from '../../deprecation/codes.js';
import { accountView } from './accounts.js';
import { noteMissingAddressRecord } from '../address-notice.js';
import { accountRow, renameAccount } from '../../accounts/accounts.js';
import { SECONDARY_FIXED_DNS_SETTINGS, secondarySettingsRefused } from '../../zones/secondary-zone.js';

/** The account of the path, when the caller may act on it; 7003 otherwise. */
export function requireAccount(c: Context<ApiEnv>): string {
  const id = c.req.param('account_id') ?? '';
  if (!c.get('user').accountIds.includes(id)) {
    throw new AppError(7003, `Could not route to ${c.req.path}, perhaps your object identifier is invalid?`, 404);
  }
  return id;
}

/** Routes of zone and account DNS settings. */
export function dnsSettingsRoutes(deps: ApiDeps): Hono<ApiEnv> {
  const app = new Hono<ApiEnv>();
  const auth = authMiddleware(deps.db, deps.clock, deps.limits);
  const full = (s: ZoneSettingsState) => readZoneDnsSettings(s.dns, s.nameServers);

  app.get('/zones/:zone_id/dns_settings', auth, async (c) => {
    const zone = await requireZone(c, c.req.param('zone_id'));
    await noteMissingAddressRecord(c, zone);
    return ok(c, full(zoneSettingsState(zone)));
  });

  app.patch('/zones/:zone_id/dns_settings', auth, async (c) => {
    const zone = await requireZone(c, c.req.param('zone_id'));
    const body = await readJson(c);
    const fixed = zone.type === 'secondary' && typeof body === 'object' && body !== null ? SECONDARY_FIXED_DNS_SETTINGS.filter((f) => f in body) : [];
    if (fixed.length) throw secondarySettingsRefused(fixed);
    patchZoneDnsSettings(full(zoneSettingsState(zone)), body); // validate before taking the write lock
    const state = await c.get('services').settings.updateZone(zone.id, (s) => ({ dns: patchZoneDnsSettings(full(s), body) }));
    return ok(c, full(state));
  });

  for (const [id, field] of Object.entries(LEGACY_DNS_ENDPOINTS)) {
    const legacyView = (s: ZoneSettingsState) => ({ id, value: full(s)[field] === true, editable: true, modified_on: null });
    app.get(`/zones/:zone_id/dns_settings/${id}`, auth, async (c) => {
      return ok(c, legacyView(zoneSettingsState(await requireZone(c, c.req.param('zone_id')))));
    });
    app.patch(`/zones/:zone_id/dns_settings/${id}`, auth, async (c) => {
      const zone = await requireZone(c, c.req.param('zone_id'));
      const value = legacyBooleanValue(id, await readJson(c));
      const state = await c.get('services').settings.updateZone(zone.id, (s) => ({ dns: { ...full(s), [field]: value } }));
      return ok(c, legacyView(state));
    });
  }

  app.get('/accounts/:account_id/dns_settings', auth, async (c) => {
    return ok(c, readAccountDnsSettings(await c.get('services').settings.readAccount(requireAccount(c))));
  });

  app.patch('/accounts/:account_id/dns_settings', auth, async (c) => {
    const accountId = requireAccount(c);
    const body = await readJson(c);
    patchAccountDnsSettings(readAccountDnsSettings(await c.get('services').settings.readAccount(accountId)), body);
    const next = await c.get('services').settings.updateAccount(accountId, (settings) => ({ ...settings, dns_settings: patchAccountDnsSettings(readAccountDnsSettings(settings), body) }));
    return ok(c, readAccountDnsSettings(next));
  });
  // PUT /accounts/:account_id: the account's name and the legacy settings fields (kept in sync with
  // zone_defaults.nameservers.type); other keys of `settings` are ignored.
  app.put('/accounts/:account_id', auth, async (c) => {
    const accountId = requireAccount(c);
    const body = await readJson(c);
    if (!isObject(body)) throw new AppError(DEPRECATION_CODES.invalidDnsSetting, 'The request body must be a JSON object');
    if (body.name !== undefined && (typeof body.name !== 'string' || body.name.trim() === '' || body.name.length > 100)) {
      throw new AppError(DEPRECATION_CODES.invalidDnsSetting, 'Invalid account name: send a string of 1 to 100 characters');
    }
    const settingsBody = body.settings === undefined ? {} : body.settings;
    if (!isObject(settingsBody)) throw new AppError(DEPRECATION_CODES.invalidDnsSetting, 'Invalid account settings: send an object');
    applyLegacyAccountFields(await c.get('services').settings.readAccount(accountId), settingsBody); // validate first
    await c.get('services').settings.updateAccount(accountId, (settings) => applyLegacyAccountFields(settings, settingsBody));
    if (typeof body.name === 'string') await renameAccount(deps.db, accountId, body.name.trim());
    return ok(c, accountView(await accountRow(deps.db, accountId)));
  });
  return app;
}
