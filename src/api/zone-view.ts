/** The v4 JSON form of a zone, shaped like the production service's zone object. */
import type { ZoneWithAccount } from '../zones/zones-service.js';

/** Permissions a member of the zone's account has (all of them: Stratus has no roles). */
const PERMISSIONS = ['#dns_records:edit', '#dns_records:read', '#zone:edit', '#zone:read', '#zone_settings:edit', '#zone_settings:read'];

/** The zone object of API responses. */
export function zoneView(zone: ZoneWithAccount, ownerEmail: string | null): Record<string, unknown> {
  return {
    id: zone.id,
    name: zone.name,
    status: zone.status,
    paused: false,
    type: zone.type,
    development_mode: 0,
    name_servers: JSON.parse(zone.name_servers) as string[],
    original_name_servers: null,
    original_registrar: null,
    original_dnshost: null,
    modified_on: zone.modified_on,
    created_on: zone.created_on,
    activated_on: zone.activated_on,
    vanity_name_servers: [],
    meta: { step: 2, custom_certificate_quota: 0, page_rule_quota: 3, phishing_detected: false },
    owner: { id: null, type: 'user', email: ownerEmail },
    account: { id: zone.account_id, name: zone.account_name },
    tenant: { id: null, name: null },
    tenant_unit: { id: null },
    permissions: PERMISSIONS,
    plan: {
      id: '0feeeeeeeeeeeeeeeeeeeeeeeeeeeeee', name: 'Free Website', price: 0, currency: 'USD', frequency: '',
      is_subscribed: false, can_subscribe: false, legacy_id: 'free', legacy_discount: false, externally_managed: false,
    },
  };
}
