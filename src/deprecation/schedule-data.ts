/**
 * The rows of the contract's deprecation table (Versioning part), newest first, exactly once each. Paths are
 * relative to `/client/v4`; path variables are renamed consistently (`:zone_id`, `:account_id`, …) so that a
 * successor path can be filled from the matched request. See `schedule.ts` for the meaning of each field and
 * `docs/deprecations.md` (generated from this table) for the rendering.
 */
import type { ScheduleEntry } from './schedule-types.js';

const ZONE_RECORD_ROUTES = [
  { methods: ['GET', 'POST'], path: '/zones/:zone_id/dns_records' },
  { methods: ['GET', 'PATCH', 'PUT'], path: '/zones/:zone_id/dns_records/:dns_record_id' },
];
const WAF = '/zones/:zone_id/firewall/waf';
const ORG = '/organizations/:organization_id';

/** Every row of the schedule. */
export const SCHEDULE_ROWS: readonly ScheduleEntry[] = [
  {
    id: 'firewall-rules', date: '2025-06-15', kind: 'routes', signal: 'route', served: false,
    change: 'Firewall rules API deprecated',
    replacement: 'WAF custom rules', successor: '/zones/:zone_id/rulesets/phases/http_request_firewall_custom/entrypoint',
    routes: [
      { methods: ['GET', 'POST', 'PATCH', 'PUT', 'DELETE'], path: '/zones/:zone_id/firewall/rules' },
      { methods: ['GET', 'PATCH', 'PUT', 'DELETE'], path: '/zones/:zone_id/firewall/rules/:rule_id' },
      { methods: ['GET', 'POST', 'PUT', 'DELETE'], path: '/zones/:zone_id/filters' },
      { methods: ['GET', 'PUT', 'DELETE'], path: '/zones/:zone_id/filters/:filter_id' },
    ],
  },
  {
    id: 'waf-managed-rules-previous', date: '2025-06-15', kind: 'routes', signal: 'route', served: false,
    change: 'Previous WAF managed rules API deprecated',
    replacement: 'WAF Managed Rules (new version)', successor: '/zones/:zone_id/rulesets/phases/http_request_firewall_managed/entrypoint',
    routes: [
      { methods: ['GET'], path: `${WAF}/packages` },
      { methods: ['GET', 'PATCH'], path: `${WAF}/packages/:package_id` },
      { methods: ['GET'], path: `${WAF}/packages/:package_id/groups` },
      { methods: ['GET', 'PATCH'], path: `${WAF}/packages/:package_id/groups/:group_id` },
      { methods: ['GET'], path: `${WAF}/packages/:package_id/rules` },
      { methods: ['GET', 'PATCH'], path: `${WAF}/packages/:package_id/rules/:rule_id` },
      { methods: ['GET', 'POST'], path: `${WAF}/overrides` },
      { methods: ['GET', 'PUT', 'DELETE'], path: `${WAF}/overrides/:override_id` },
    ],
  },
  {
    id: 'rate-limits', date: '2025-06-15', kind: 'routes', signal: 'route', served: false,
    change: 'Rate limiting API deprecated',
    replacement: 'rate limiting rules based on the rules engine', successor: '/zones/:zone_id/rulesets/phases/http_ratelimit/entrypoint',
    routes: [
      { methods: ['GET', 'POST'], path: '/zones/:zone_id/rate_limits' },
      { methods: ['GET', 'PUT', 'DELETE'], path: '/zones/:zone_id/rate_limits/:rate_limit_id' },
    ],
  },
  {
    id: 'zone-setting-cname-flattening', date: '2025-03-21', kind: 'routes', signal: 'route', served: true,
    change: 'Zone-level CNAME flattening setting deprecated (GET /zones/:zone_id/settings and PATCH /zones/:zone_id/settings are affected)',
    replacement: 'DNS settings field flatten_all_cnames. Old and new stay in sync, so no migration of existing zones is needed, but new calls must use DNS settings',
    successor: '/zones/:zone_id/dns_settings', fields: ['cname_flattening'],
    routes: [
      { methods: ['GET', 'PATCH'], path: '/zones/:zone_id/settings/cname_flattening' },
      { methods: ['GET', 'PATCH'], path: '/zones/:zone_id/settings', affected: true },
    ],
  },
  {
    id: 'account-default-nameservers-fields', date: '2025-03-14', kind: 'fields', signal: 'route', served: true,
    change: 'Account settings fields default_nameservers and use_account_custom_ns_by_default deprecated',
    replacement: 'DNS settings zone_defaults.nameservers.type. Old and new stay in sync',
    successor: '/accounts/:account_id/dns_settings', fields: ['default_nameservers', 'use_account_custom_ns_by_default'],
    routes: [
      { methods: ['GET', 'POST'], path: '/accounts', affected: true },
      { methods: ['GET', 'PUT'], path: '/accounts/:account_id', affected: true },
    ],
  },
  {
    id: 'dns-records-list-filter-forms', date: '2025-02-21', removal: '2025-02-21', kind: 'parameters', signal: 'usage', served: true,
    change: 'DNS record list filter forms deprecated: name=contains:<v>, name=starts_with:<v>, name=ends_with:<v>, name=<a>,<b>,<c>, the same four forms for content, and type=contains:<v>',
    replacement: 'name.contains, name.startswith, name.endswith, content.contains, content.startswith, content.endswith; for several values, separate requests or match=any with repeated name or content parameters; for type use an exact type name, or search for free text. None of these forms was officially supported',
    parts: { 'multi-value': { removal: '2025-05-23', what: 'the multi-value form name=<a>,<b>,<c> (and content=…): extended deprecation date' } },
    routes: [{ methods: ['GET'], path: '/zones/:zone_id/dns_records', affected: true }],
  },
  {
    id: 'dns-records-zone-fields', date: '2024-11-30', removal: '2024-11-30', kind: 'fields', signal: 'none', served: true,
    change: 'zone_id and zone_name removed from each DNS record in responses',
    replacement: 'zone name from GET /zones/:zone_id. Request bodies need no change', fields: ['zone_id', 'zone_name'],
    routes: ZONE_RECORD_ROUTES.map((r) => ({ ...r, affected: true })),
  },
  {
    id: 'dns-records-error-chain', date: '2024-10-01', removal: '2024-10-01', kind: 'behaviour', signal: 'none', served: true,
    change: 'error_chain omitted in DNS record creation errors', replacement: 'root cause returned directly', fields: ['error_chain'],
    routes: ZONE_RECORD_ROUTES.map((r) => ({ ...r, affected: true })),
  },
  {
    id: 'dns-settings-legacy-endpoints', date: '2024-09-13', kind: 'routes', signal: 'route', served: true,
    change: 'Dedicated use_apex_ns and secondary_overrides DNS settings endpoints deprecated',
    replacement: 'DNS settings fields multi_provider and secondary_overrides', successor: '/zones/:zone_id/dns_settings',
    routes: [
      { methods: ['GET', 'PATCH'], path: '/zones/:zone_id/dns_settings/use_apex_ns' },
      { methods: ['GET', 'PATCH'], path: '/zones/:zone_id/dns_settings/secondary_overrides' },
    ],
  },
  {
    id: 'zone-setting-brotli', date: '2024-08-15', kind: 'routes', signal: 'route', served: true,
    change: 'Brotli setting deprecated',
    replacement: 'Brotli available for all non-Enterprise zones; Enterprise zones can override default compression with compression rules',
    routes: [{ methods: ['GET', 'PATCH'], path: '/zones/:zone_id/settings/brotli' }],
  },
  {
    id: 'zone-setting-minify', date: '2024-08-05', kind: 'routes', signal: 'route', served: true,
    change: 'Auto Minify setting deprecated', replacement: 'none given',
    routes: [{ methods: ['GET', 'PATCH'], path: '/zones/:zone_id/settings/minify' }],
  },
  {
    id: 'dns-records-locked', date: '2024-07-14', removal: '2024-07-14', kind: 'fields', signal: 'none', served: true,
    change: 'locked field omitted from DNS record responses', replacement: 'field still ignored when received', fields: ['locked'],
    routes: ZONE_RECORD_ROUTES.map((r) => ({ ...r, affected: true })),
  },
  {
    id: 'zone-setting-mobile-redirect', date: '2024-06-30', kind: 'routes', signal: 'route', served: true,
    change: 'Mobile redirect setting deprecated', replacement: 'Single Redirects',
    successor: '/zones/:zone_id/rulesets/phases/http_request_dynamic_redirect/entrypoint',
    routes: [{ methods: ['GET', 'PATCH'], path: '/zones/:zone_id/settings/mobile_redirect' }],
  },
  {
    id: 'zone-setting-server-side-exclude', date: '2024-06-14', kind: 'routes', signal: 'route', served: true,
    change: 'Server-side excludes setting deprecated', replacement: 'none given',
    routes: [{ methods: ['GET', 'PATCH'], path: '/zones/:zone_id/settings/server_side_exclude' }],
  },
  {
    id: 'srv-data-fields', date: '2024-05-31', removal: '2024-05-31', kind: 'fields', signal: 'none', served: true,
    change: 'SRV data.service, data.proto, data.name deprecated',
    replacement: 'read and write only the top-level name; after end of life these data fields are no longer produced and sending them returns an error. priority, weight, port, target are unaffected',
    fields: ['data.service', 'data.proto', 'data.name'],
    routes: ZONE_RECORD_ROUTES.map((r) => ({ ...r, affected: true })),
  },
  {
    id: 'zone-setting-privacy-pass', date: '2024-03-31', removal: '2024-03-31', kind: 'routes', signal: 'route', served: true,
    change: 'Legacy privacy-token setting removed by end of March 2024 (Stratus also serves PATCH, like every zone setting, until then)',
    replacement: 'none',
    routes: [{ methods: ['GET', 'POST', 'PATCH'], path: '/zones/:zone_id/settings/privacy_pass' }],
  },
  {
    id: 'tunnels', date: '2024-02-04', kind: 'routes', signal: 'route', served: false,
    change: 'Tunnels API (accounts/:account_id/tunnels) deprecated', replacement: 'the tunnel API', successor: '/accounts/:account_id/cfd_tunnel',
    routes: [
      { methods: ['GET', 'POST'], path: '/accounts/:account_id/tunnels' },
      { methods: ['GET', 'DELETE'], path: '/accounts/:account_id/tunnels/:tunnel_id' },
    ],
  },
  {
    id: 'tls-chacha20-draft', date: '2023-07-01', removal: '2024-03-31', kind: 'tls', signal: 'none', served: false,
    change: 'Draft ChaCha20-Poly1305 TLS 1.2 cipher suites end of life, removed in the first quarter of 2024',
    replacement: 'standard suites of RFC 7905', routes: [],
  },
  {
    id: 'http-te-and-cl', date: '2023-07-01', removal: '2023-07-01', kind: 'behaviour', signal: 'none', served: true,
    change: 'Requests with both Transfer-Encoding and Content-Length declined (RFC 7230)', replacement: 'send only one of them', routes: [],
  },
  {
    id: 'billing-profile', date: '2023-06-06', kind: 'routes', signal: 'route', served: false,
    change: 'Billing profile and history API deprecated', replacement: 'no API replacement',
    routes: [
      { methods: ['GET'], path: '/accounts/:account_id/billing/profile' },
      { methods: ['GET'], path: '/user/billing/profile' },
      { methods: ['GET'], path: '/user/billing/history' },
    ],
  },
  {
    id: 'notification-email-field', date: '2023-04-03', kind: 'fields', signal: 'none', served: false,
    change: 'field notification_email (health notification address or comma-delimited list) deprecated',
    replacement: 'moved to the central notification service', fields: ['notification_email'], routes: [],
  },
  {
    id: 'access-bookmarks', date: '2023-03-19', kind: 'routes', signal: 'route', served: false,
    change: 'Access bookmarks API deprecated', replacement: 'access applications app type API', successor: '/accounts/:account_id/access/apps',
    routes: [
      { methods: ['GET'], path: '/accounts/:account_id/access/bookmarks' },
      { methods: ['GET', 'POST', 'PUT', 'DELETE'], path: '/accounts/:account_id/access/bookmarks/:bookmark_id' },
    ],
  },
  {
    id: 'script-monitor-path', date: '2022-10-11', kind: 'routes', signal: 'route', served: false,
    change: 'In page protection API routes, path segment script_monitor replaced', replacement: 'page_protection',
    successor: '/zones/:zone_id/page_protection',
    routes: [{ methods: ['*'], path: '/zones/:zone_id/script_monitor/**' }],
  },
  {
    id: 'images-v1-direct-upload', date: '2022-07-01', kind: 'routes', signal: 'route', served: false,
    change: 'Images v1 direct upload deprecated', replacement: 'POST accounts/:account_id/images/v2/direct_upload',
    successor: '/accounts/:account_id/images/v2/direct_upload',
    routes: [{ methods: ['POST'], path: '/accounts/:account_id/images/v1/direct_upload' }],
  },
  {
    id: 'analytics-dashboard-colos', date: '2021-03-01', kind: 'routes', signal: 'route', served: false,
    change: 'Zone analytics dashboard and colos API deprecated', replacement: 'GraphQL analytics API', successor: '/graphql',
    routes: [
      { methods: ['GET'], path: '/zones/:zone_id/analytics/dashboard' },
      { methods: ['GET'], path: '/zones/:zone_id/analytics/colos' },
    ],
  },
  {
    id: 'organizations', date: '2020-04-02', kind: 'routes', signal: 'route', served: false,
    change: 'Organizations API deprecated', replacement: 'accounts API', successor: '/accounts',
    routes: [
      { methods: ['GET', 'PATCH'], path: ORG },
      { methods: ['GET', 'POST'], path: `${ORG}/invites` },
      { methods: ['GET', 'PATCH', 'DELETE'], path: `${ORG}/invites/:invite_id` },
      { methods: ['GET'], path: `${ORG}/members` },
      { methods: ['GET', 'PATCH', 'DELETE'], path: `${ORG}/members/:member_id` },
      { methods: ['GET'], path: `${ORG}/roles` },
      { methods: ['GET'], path: `${ORG}/roles/:role_id` },
      { methods: ['GET'], path: `${ORG}/audit_logs` },
      { methods: ['GET', 'POST'], path: `${ORG}/optimizers` },
      { methods: ['GET', 'PATCH', 'DELETE'], path: `${ORG}/optimizers/:optimizer_id` },
      { methods: ['GET'], path: `${ORG}/optimizers/:optimizer_id/zones` },
    ],
  },
];
