/** The v4 JSON form of a zone, shaped like the production service's zone object. */
import type { ZoneWithAccount } from '../zones/zones-service.js';
import { FREE_PLAN, readZoneAttributes } from '../zones/zone-edit.js';
import { parseJsonObject } from '../zones/settings/shape.js';
import { storedSettingView } from '../zones/settings/zone-settings.js';

/** Permissions a member of the zone's account has (all of them: Stratus has no roles). */
const PERMISSIONS = ['#dns_records:edit', '#dns_records:read', '#zone:edit', '#zone:read', '#zone_settings:edit', '#zone_settings:read'];

/**
 * The zone object of API responses at time `nowMs` (`development_mode`: seconds until development mode ends,
 * negative since it ended on its own, 0 when off).
 */
export function zoneView(zone: ZoneWithAccount, ownerEmail: string | null, nowMs: number): Record<string, unknown> {
  const settings = parseJsonObject(zone.zone_settings);
  const attributes = readZoneAttributes(settings);
  return {
    id: zone.id,
    name: zone.name,
    status: zone.status,
    paused: attributes.paused,
    type: zone.type,
    development_mode: storedSettingView(settings, 'development_mode', nowMs).time_remaining,
    name_servers: JSON.parse(zone.name_servers) as string[],
    original_name_servers: null,
    original_registrar: null,
    original_dnshost: null,
    modified_on: zone.modified_on,
    created_on: zone.created_on,
    activated_on: zone.activated_on,
    vanity_name_servers: attributes.vanity_name_servers,
    meta: { step: 2, custom_certificate_quota: 0, page_rule_quota: 3, phishing_detected: false },
    owner: { id: null, type: 'user', email: ownerEmail },
    account: { id: zone.account_id, name: zone.account_name },
    tenant: { id: null, name: null },
    tenant_unit: { id: null },
    permissions: PERMISSIONS,
    plan: {
      id: FREE_PLAN.id, name: FREE_PLAN.name, price: 0, currency: 'USD', frequency: '',
      is_subscribed: false, can_subscribe: false, legacy_id: FREE_PLAN.legacy_id, legacy_discount: false, externally_managed: false,
    },
  };
}
