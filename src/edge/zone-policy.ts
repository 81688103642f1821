/**
 * The zone settings the edge acts on (`ssl`, `always_use_https`, `min_tls_version`, `tls_1_3`, `security_header`,
 * `automatic_https_rewrites`), read
 * from the same `zones.zone_settings` column the settings API writes (`settings/settings-store.ts`).
 *
 * `ZonePolicies` finds a hostname's zone (the longest active zone name that is a suffix of it, as the catalog
 * does) and keeps its policy for one second, like the catalog's hostname facts. A settings change made on this
 * node drops the policies at once (the zone change feed) and tells `onChange` listeners (the edge flushes its
 * route cache). For changes made on another node sharing the database it polls, every second, the serials of
 * the zones it has looked up (every settings or records change bumps a zone's serial): a moved serial drops the
 * policies and tells the listeners too.
 */
import type { Kysely } from 'kysely';
import type { Database } from '../db/schema.js';
import { parseJsonObject } from '../zones/settings/shape.js';
import { storedSetting } from '../zones/settings/zone-settings.js';
import type { ZoneChangeFeed } from '../zones/change-feed.js';

/** What the edge does for one zone's hostnames. */
export interface ZonePolicy {
  zoneId: string;
  accountId: string;
  /** `off`: the edge does not serve HTTPS for the zone (HTTPS requests are redirected to http://). */
  ssl: 'off' | 'flexible' | 'full' | 'strict';
  alwaysUseHttps: boolean;
  /** Lowest TLS version a client may use on the HTTPS edge (`TLSv1`, `TLSv1.1`, `TLSv1.2`, `TLSv1.3`). */
  minTls: 'TLSv1' | 'TLSv1.1' | 'TLSv1.2' | 'TLSv1.3';
  /** Whether TLS 1.3 is offered (`tls_1_3` on or zrt; off: at most TLS 1.2, unless `min_tls_version` is 1.3). */
  tls13: boolean;
  /** Headers added to HTTPS answers (HSTS, nosniff); empty when `security_header` is off. */
  httpsHeaders: Record<string, string>;
  /** `automatic_https_rewrites` on: HTML answers over HTTPS get `http://` links of HTTPS hostnames rewritten. */
  httpsRewrites: boolean;
}

const TLS_NAMES: Record<string, ZonePolicy['minTls']> = { '1.0': 'TLSv1', '1.1': 'TLSv1.1', '1.2': 'TLSv1.2', '1.3': 'TLSv1.3' };
const CACHE_MS = 1_000;
const CACHE_SIZE = 10_000;
/** Most zones whose serials are watched (the rest count within the one-second cache and the route cache). */
const WATCHED_ZONES = 1_000;

/** The policy of a zone from its parsed `zone_settings` column (defaults for what is not stored). */
export function zonePolicy(zoneId: string, accountId: string, zoneSettingsText: string): ZonePolicy {
  const stored = parseJsonObject(zoneSettingsText);
  const value = (id: string): unknown => storedSetting(stored, id).value;
  const ssl = value('ssl');
  const sec = value('security_header') as { strict_transport_security?: Record<string, unknown> } | undefined;
  const hsts = sec?.strict_transport_security ?? {};
  const httpsHeaders: Record<string, string> = {};
  if (hsts.enabled === true) {
    const parts = [`max-age=${Number(hsts.max_age ?? 0)}`];
    if (hsts.include_subdomains === true) parts.push('includeSubDomains');
    if (hsts.preload === true) parts.push('preload');
    httpsHeaders['strict-transport-security'] = parts.join('; ');
    if (hsts.nosniff === true) httpsHeaders['x-content-type-options'] = 'nosniff';
  }
  return {
    zoneId, accountId,
    ssl: ssl === 'flexible' || ssl === 'full' || ssl === 'strict' ? ssl : 'off',
    alwaysUseHttps: value('always_use_https') === 'on',
    minTls: TLS_NAMES[String(value('min_tls_version'))] ?? 'TLSv1',
    tls13: value('tls_1_3') !== 'off',
    httpsHeaders,
    httpsRewrites: value('automatic_https_rewrites') === 'on',
  };
}

/** The TLS versions a zone's handshakes may use: from its floor (`min_tls_version`) to 1.3, or to 1.2 with `tls_1_3` off (a floor of 1.3 keeps 1.3). */
export interface TlsRange {
  min: ZonePolicy['minTls'];
  max: 'TLSv1.2' | 'TLSv1.3';
}

/** The {@link TlsRange} of a zone's policy (none: every version); both HTTPS listeners, nginx's and Node's, use it. */
export function tlsRange(policy: ZonePolicy | undefined): TlsRange {
  const min = policy?.minTls ?? 'TLSv1';
  return { min, max: policy && !policy.tls13 && min !== 'TLSv1.3' ? 'TLSv1.2' : 'TLSv1.3' };
}

/** Whether `version` (a TLS socket's `getProtocol()`) is at least `min`. */
export function tlsAtLeast(version: string | null, min: ZonePolicy['minTls']): boolean {
  const order = ['TLSv1', 'TLSv1.1', 'TLSv1.2', 'TLSv1.3'];
  return version !== null && order.indexOf(version) >= order.indexOf(min);
}

/**
 * What a notice of {@link ZonePolicies.onChange} says changed: the zones whose policies may differ, and whether
 * zones came, went or changed status (then a hostname's zone may be another one).
 */
export interface PolicyChange {
  zones: ReadonlySet<string>;
  zonesMoved: boolean;
}

/** An active zone as {@link ZonePolicies.activeZones} lists it. */
export interface ActiveZone {
  id: string;
  name: string;
  serial: number;
}

/** A zone's row as {@link ZonePolicies.readPolicies} reads it: its policy, serial and status. */
export interface ZonePolicyRow extends ActiveZone {
  status: string;
  policy: ZonePolicy;
}

/** Ids per `IN (...)` list of {@link ZonePolicies.readPolicies}. */
const READ_CHUNK = 500;

/** Zone policies by hostname, cached per hostname for a second and dropped on this node's settings changes. */
export class ZonePolicies {
  private readonly hosts = new Map<string, { expires: number; policy: ZonePolicy | undefined }>();
  private readonly listeners = new Set<(change: PolicyChange) => void>();
  private readonly unsubscribe: () => void;
  /** Serial of each zone looked up, as last read. */
  private readonly serials = new Map<string, number>();
  private readonly timer: NodeJS.Timeout;
  private polling = false;

  constructor(private readonly db: Kysely<Database>, zoneChanges?: ZoneChangeFeed, pollMs = 1_000) {
    this.unsubscribe = zoneChanges?.subscribe((c) => {
      if (c.kind === 'records') return;
      this.changed({ zones: new Set([c.zoneId]), zonesMoved: c.kind !== 'settings' });
    }) ?? (() => undefined);
    this.timer = setInterval(() => void this.poll(), pollMs);
    this.timer.unref();
  }

  private changed(change: PolicyChange): void {
    this.hosts.clear();
    for (const l of [...this.listeners]) l(change);
  }

  /** Compares the watched zones' serials with the database's; a change (on any node) drops the policies. */
  private async poll(): Promise<void> {
    if (this.polling || this.serials.size === 0) return;
    this.polling = true;
    try {
      const ids = [...this.serials.keys()];
      const rows = await this.db.selectFrom('zones').select(['id', 'serial']).where('id', 'in', ids).execute();
      const now = new Map(rows.map((r) => [r.id, Number(r.serial)]));
      const moved = ids.filter((id) => now.get(id) !== this.serials.get(id));
      for (const id of moved) this.serials.delete(id);
      if (moved.length > 0) this.changed({ zones: new Set(moved), zonesMoved: false });
    } catch { /* the database is away: the one-second cache still bounds staleness of lookups */ } finally {
      this.polling = false;
    }
  }

  /** The policy of the active zone holding `host` (lowercase, no port), or undefined when none does. */
  async forHost(rawHost: string): Promise<ZonePolicy | undefined> {
    const host = rawHost.toLowerCase().replace(/\.$/, '');
    const now = Date.now();
    const known = this.hosts.get(host);
    if (known && known.expires > now) return known.policy;
    const labels = host.split('.');
    const suffixes = labels.map((_, i) => labels.slice(i).join('.'));
    const zones = await this.db.selectFrom('zones').select(['id', 'name', 'account_id', 'zone_settings', 'serial'])
      .where('name', 'in', suffixes).where('status', '=', 'active').execute();
    const zone = zones.sort((a, b) => b.name.length - a.name.length)[0];
    const policy = zone ? zonePolicy(zone.id, zone.account_id, zone.zone_settings) : undefined;
    if (zone) {
      const before = this.serials.get(zone.id);
      // read here before the poll noticed: answers cached from the older policy must go too
      if (before !== undefined && before !== Number(zone.serial)) this.changed({ zones: new Set([zone.id]), zonesMoved: false });
      if (before !== undefined || this.serials.size < WATCHED_ZONES) this.serials.set(zone.id, Number(zone.serial));
    }
    if (this.hosts.size >= CACHE_SIZE) this.hosts.clear();
    this.hosts.set(host, { expires: now + CACHE_MS, policy });
    return policy;
  }

  /** Every active zone's id, name and serial (one query: no settings text). */
  async activeZones(): Promise<ActiveZone[]> {
    const rows = await this.db.selectFrom('zones').select(['id', 'name', 'serial']).where('status', '=', 'active').execute();
    return rows.map((r) => ({ id: r.id, name: r.name, serial: Number(r.serial) }));
  }

  /** The rows of the zones `ids` (whatever their status; a deleted zone has none), with their policies. */
  async readPolicies(ids: readonly string[]): Promise<ZonePolicyRow[]> {
    const out: ZonePolicyRow[] = [];
    for (let i = 0; i < ids.length; i += READ_CHUNK) {
      const rows = await this.db.selectFrom('zones').select(['id', 'name', 'account_id', 'zone_settings', 'serial', 'status'])
        .where('id', 'in', ids.slice(i, i + READ_CHUNK)).execute();
      for (const r of rows) out.push({ id: r.id, name: r.name, serial: Number(r.serial), status: r.status, policy: zonePolicy(r.id, r.account_id, r.zone_settings) });
    }
    return out;
  }

  /** Calls `listener` when a zone's settings or status changed (on this node, or a serial another node moved). Returns an unsubscribe. */
  onChange(listener: (change: PolicyChange) => void): () => void {
    this.listeners.add(listener);
    return () => { this.listeners.delete(listener); };
  }

  /** Stops listening to the change feed. */
  close(): void {
    clearInterval(this.timer);
    this.unsubscribe();
    this.listeners.clear();
  }
}
