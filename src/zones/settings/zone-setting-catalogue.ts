/**
 * Every zone setting Stratus serves, one row each: its default, its value check, whether a caller may change
 * it, whether the bulk `GET /zones/:zone_id/settings` lists it, and what Stratus does with it.
 *
 * The list and the defaults are production's: the bulk list is the 54 settings of the published API
 * description's `zones_zone_settings_response_collection` (plus `privacy_pass` until its removal date, see the
 * schedule), with the defaults that description gives (the setting's `default`, else its value's); the
 * value domains are the description's and the official SDK's (`cloudflare/resources/zones/settings.d.ts`,
 * whose union also names the settings served one by one only: `listed: false`). Three defaults differ on purpose:
 * `security_header` (the description's example turns HSTS on; a new zone has it off), `brotli` (on for every
 * zone since the 2024-08-15 schedule row) and `ssl`: `flexible`, not `off`, because a new zone has Universal SSL
 * and Automatic SSL/TLS (`ssl_automatic_mode: auto`, production's default since October 2024,
 * https://developers.cloudflare.com/ssl/origin-configuration/ssl-modes/), so it serves HTTPS from the start;
 * Stratus has no SSL/TLS Recommender to raise that to `full` or `strict`, which the zone's owner sets. `cname_flattening` is not a row: it is the projection of the DNS
 * setting `flatten_all_cnames` (`legacy.ts`).
 */
import { bool, intRange, nullable, numberIn, objectOf, onOff, oneOf, stringList, text, type ValueCheck } from './setting-values.js';

/** One zone setting. */
export interface ZoneSettingSpec {
  id: string;
  default: unknown;
  check: ValueCheck;
  /** False where production does not let a zone change it (Enterprise-only or fixed): a PATCH is refused (1007). */
  editable: boolean;
  /** Listed by the bulk GET (production's list); false: served by `GET/PATCH …/settings/:name` only. */
  listed: boolean;
  /** Schedule entry id, when the setting is deprecated or removed by the schedule. */
  scheduleId?: string;
  /** `enabled` for ssl_recommender, which is `{id, enabled}` rather than `{id, value}`. */
  field: 'value' | 'enabled';
  /** What Stratus does with the setting, when it acts on it (docs/compatibility.md); otherwise stored only. */
  effect?: string;
}

type Options = Partial<Pick<ZoneSettingSpec, 'editable' | 'listed' | 'scheduleId' | 'field' | 'effect'>>;

const row = (id: string, def: unknown, check: ValueCheck, opts: Options = {}): ZoneSettingSpec =>
  ({ id, default: def, check, editable: opts.editable ?? true, listed: opts.listed ?? true, field: opts.field ?? 'value', ...opts });

const LABEL = /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/i;
const HOST = /^(?=.{1,253}$)(?:\*\.)?(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/i;
const CIPHER = /^[A-Z0-9][A-Z0-9-]{0,63}$/;
const OFF = 'off';
const ON = 'on';

/** Browser cache TTLs production offers (0: respect existing headers). */
const BROWSER_CACHE_TTLS = [0, 30, 60, 120, 300, 1200, 1800, 3600, 7200, 10800, 14400, 18000, 28800, 43200, 57600, 72000, 86400, 172800, 259200, 345600, 432000, 691200, 1382400, 2073600, 2678400, 5356800, 16070400, 31536000];
const CHALLENGE_TTLS = [300, 900, 1800, 2700, 3600, 7200, 10800, 14400, 28800, 57600, 86400, 604800, 2592000, 31536000];
const EDGE_CACHE_TTLS = [30, 60, 300, 1200, 1800, 3600, 7200, 10800, 14400, 18000, 28800, 43200, 57600, 72000, 86400, 172800, 259200, 345600, 432000, 518400, 604800];
const MAX_UPLOADS = [100, 125, 150, 175, 200, 225, 250, 275, 300, 325, 350, 375, 400, 425, 450, 475, 500, 1000, 1500, 2000, 2500, 3000, 3500, 4000, 4500, 5000];

const HSTS = objectOf({ enabled: bool, max_age: intRange(0, 31536000), include_subdomains: bool, preload: bool, nosniff: bool });

/** The catalogue, in id order. */
export const ZONE_SETTING_ROWS: readonly ZoneSettingSpec[] = [
  row('0rtt', OFF, onOff),
  row('advanced_ddos', OFF, onOff, { editable: false }),
  row('aegis', { enabled: false }, objectOf({ enabled: bool, pool_id: text(64) }), { editable: false, listed: false }),
  row('always_online', ON, onOff),
  row('always_use_https', OFF, onOff),
  row('automatic_https_rewrites', OFF, onOff),
  row('automatic_platform_optimization', { enabled: false, cf: false, wordpress: false, wp_plugin: false, hostnames: [], cache_by_device_type: false },
    objectOf({ enabled: bool, cf: bool, wordpress: bool, wp_plugin: bool, hostnames: stringList(HOST, 100, 'host names'), cache_by_device_type: bool }, { complete: true })),
  row('brotli', ON, onOff, { scheduleId: 'zone-setting-brotli' }),
  row('browser_cache_ttl', 14400, numberIn(...BROWSER_CACHE_TTLS)),
  row('browser_check', ON, onOff),
  row('cache_level', 'aggressive', oneOf('aggressive', 'basic', 'simplified')),
  row('challenge_ttl', 1800, numberIn(...CHALLENGE_TTLS)),
  row('china_network_enabled', OFF, onOff, { editable: false, listed: false }),
  row('ciphers', [], stringList(CIPHER, 64, 'cipher names (ECDHE-RSA-AES128-GCM-SHA256)')),
  row('content_converter', OFF, onOff, { listed: false }),
  row('development_mode', OFF, onOff),
  row('early_hints', OFF, onOff),
  row('edge_cache_ttl', 7200, numberIn(...EDGE_CACHE_TTLS)),
  row('email_obfuscation', ON, onOff),
  row('fonts', OFF, onOff, { listed: false }),
  row('h2_prioritization', OFF, oneOf('on', 'off', 'custom')),
  row('hotlink_protection', OFF, onOff),
  row('http2', OFF, onOff, { effect: 'generated HTTPS records of proxied names advertise `h2`' }),
  row('http3', OFF, onOff, { effect: 'generated HTTPS records of proxied names advertise `h3`' }),
  row('image_resizing', OFF, oneOf('on', 'off', 'open')),
  row('ip_geolocation', ON, onOff),
  row('ipv6', OFF, onOff),
  row('max_upload', 100, numberIn(...MAX_UPLOADS)),
  row('min_tls_version', '1.0', oneOf('1.0', '1.1', '1.2', '1.3')),
  row('minify', { css: OFF, html: OFF, js: OFF }, objectOf({ css: onOff, html: onOff, js: onOff }), { scheduleId: 'zone-setting-minify' }),
  row('mirage', OFF, onOff),
  row('mobile_redirect', { status: OFF, mobile_subdomain: null, strip_uri: false },
    objectOf({ status: onOff, mobile_subdomain: nullable((_c, v) => (typeof v === 'string' && LABEL.test(v) ? { value: v } : { error: 'expected a label (m) or null' })), strip_uri: bool }),
    { scheduleId: 'zone-setting-mobile-redirect' }),
  row('nel', { enabled: false }, objectOf({ enabled: bool })),
  row('opportunistic_encryption', ON, onOff),
  row('opportunistic_onion', OFF, onOff),
  row('orange_to_orange', ON, onOff),
  row('origin_error_page_pass_thru', OFF, onOff),
  row('origin_h2_max_streams', 100, intRange(1, 1000), { listed: false }),
  row('origin_max_http_version', '2', oneOf('1', '2'), { listed: false }),
  row('polish', OFF, oneOf('off', 'lossless', 'lossy')),
  row('pre_render', OFF, onOff, { listed: false }),
  row('prefetch_preload', OFF, onOff),
  row('privacy_pass', ON, onOff, { scheduleId: 'zone-setting-privacy-pass' }),
  row('proxy_read_timeout', 100, intRange(1, 6000)),
  row('pseudo_ipv4', OFF, oneOf('off', 'add_header', 'overwrite_header')),
  row('redirects_for_ai_training', OFF, onOff, { listed: false }),
  row('replace_insecure_js', ON, onOff, { listed: false }),
  row('response_buffering', OFF, onOff),
  row('rocket_loader', OFF, onOff),
  row('search_for_agents', OFF, onOff, { listed: false }),
  row('security_header', { strict_transport_security: { enabled: false, max_age: 0, include_subdomains: false, preload: false, nosniff: false } },
    objectOf({ strict_transport_security: HSTS })),
  row('security_level', 'medium', oneOf('off', 'essentially_off', 'low', 'medium', 'high', 'under_attack')),
  row('server_side_exclude', ON, onOff, { scheduleId: 'zone-setting-server-side-exclude' }),
  row('sha1_support', OFF, onOff),
  row('sort_query_string_for_cache', OFF, onOff),
  row('ssl', 'flexible', oneOf('off', 'flexible', 'full', 'strict')),
  row('ssl_automatic_mode', 'auto', oneOf('auto', 'custom'), { listed: false }),
  row('ssl_recommender', false, bool, { field: 'enabled' }),
  row('tls_1_2_only', OFF, onOff),
  row('tls_1_3', ON, oneOf('on', 'off', 'zrt')),
  row('tls_client_auth', ON, onOff),
  row('transformations', OFF, oneOf('on', 'off', 'open'), { listed: false }),
  row('transformations_allowed_origins', '', text(4096), { listed: false }),
  row('true_client_ip_header', OFF, onOff),
  row('waf', OFF, onOff),
  row('webmcp_enabled', OFF, onOff, { listed: false }),
  row('webmcp_packs', '', text(4096), { listed: false }),
  row('webp', OFF, onOff),
  row('websockets', OFF, onOff),
];
