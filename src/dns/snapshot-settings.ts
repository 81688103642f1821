/**
 * The zone settings a DNS snapshot depends on, read from the stored JSON columns with the defaults of the
 * DNS settings reference (§7.1): missing keys, wrong types and unreadable JSON all fall back to defaults, so
 * a snapshot can always be built.
 */

/** SOA fields of the zone's DNS settings. */
export interface SoaSettings {
  ttl: number;
  refresh: number;
  retry: number;
  expire: number;
  minTtl: number;
  /** Primary name server (host name, no trailing dot). */
  mname: string;
  /** Responsible mailbox in domain form (`dns.example.net`). */
  rname: string;
}

/** What the snapshot uses of the zone's DNS settings and zone settings. */
export interface ZoneServingSettings {
  flattenAllCnames: boolean;
  multiProvider: boolean;
  nsTtl: number;
  soa: SoaSettings;
  http2: boolean;
  http3: boolean;
  /** The zone is paused (`PATCH /zones/:zone_id {"paused": true}`): proxied records answer their own contents. */
  paused?: boolean;
}

function parse(json: string | null | undefined): Record<string, unknown> {
  if (!json) return {};
  try {
    const v: unknown = JSON.parse(json);
    return v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}

function int(v: unknown, fallback: number): number {
  return typeof v === 'number' && Number.isInteger(v) && v >= 0 && v <= 0x7fffffff ? v : fallback;
}

function host(v: unknown): string | undefined {
  return typeof v === 'string' && v.trim() !== '' ? v.trim().toLowerCase().replace(/\.$/, '') : undefined;
}

/** `dns.<last two labels of the first name server>`, like the production `dns.<provider domain>`. */
export function defaultRname(nameServers: readonly string[]): string {
  const first = nameServers[0] ?? 'stratus.invalid';
  const labels = first.split('.');
  return `dns.${labels.slice(Math.max(0, labels.length - 2)).join('.')}`;
}

/** Turns an e-mail style rname (`admin@example.com`) into domain form. */
function rnameDomain(v: string): string {
  return v.replace('@', '.');
}

/** True when a zone setting is on: `{"value":"on"}` (the v4 shape), or a bare `"on"`/`true`. */
function settingOn(v: unknown): boolean {
  const value = v !== null && typeof v === 'object' ? (v as Record<string, unknown>).value : v;
  return value === 'on' || value === true;
}

/** Reads `zones.dns_settings` and `zones.zone_settings` with defaults. */
export function readServingSettings(dnsSettingsJson: string | null | undefined, zoneSettingsJson: string | null | undefined, nameServers: readonly string[]): ZoneServingSettings {
  const dns = parse(dnsSettingsJson);
  const zone = parse(zoneSettingsJson);
  const soa = (dns.soa !== null && typeof dns.soa === 'object' ? dns.soa : {}) as Record<string, unknown>;
  const cnameFlattening = zone.cname_flattening;
  const flattenAll = dns.flatten_all_cnames === true
    || (dns.flatten_all_cnames === undefined && cnameFlattening !== undefined
      && ['on', 'flatten_all'].includes(String((cnameFlattening as { value?: unknown })?.value ?? cnameFlattening)));
  return {
    flattenAllCnames: flattenAll,
    multiProvider: dns.multi_provider === true,
    nsTtl: int(dns.ns_ttl, 86400),
    soa: {
      ttl: int(soa.ttl, 3600),
      refresh: int(soa.refresh, 10000),
      retry: int(soa.retry, 2400),
      expire: int(soa.expire, 604800),
      minTtl: int(soa.min_ttl, 1800),
      mname: host(soa.mname) ?? nameServers[0] ?? 'ns1.stratus.invalid',
      rname: rnameDomain(host(soa.rname) ?? defaultRname(nameServers)),
    },
    http2: settingOn(zone.http2),
    http3: settingOn(zone.http3),
    paused: (zone._zone as { paused?: unknown } | undefined)?.paused === true,
  };
}
