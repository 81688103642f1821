/**
 * {@link EdgeCatalog} over the database: what the edge runtime asks the control plane.
 *
 * - `resolve(host, path)`: an IP-literal Host is 403 (production's error 1003, direct IP access); a name under
 *   `--workers-domain` is `<script>.<account subdomain>.<domain>` and runs the script when its subdomain is
 *   enabled and it has a deployment (else 404); otherwise the zone holding the name (longest suffix, active
 *   zones only) is looked up: the most specific of its routes that matches runs its script (a no-script route
 *   or a route whose script has no deployment bypasses to the origin); without a script, a proxied A, AAAA or
 *   CNAME record of the name (or of the closest wildcard) is reverse-proxied to its content; anything else
 *   is 530 (production's error 1001, DNS resolution error).
 * - `bundle(versionId)`: modules byte for byte and bindings with secrets decrypted, in memory only.
 * - `onChange`: listeners run at once after a change committed on this node, and within the poll interval
 *   (default 1 s) after one committed on another node sharing the PostgreSQL database (the edge serial).
 *
 * The routes snapshot (route-snapshot.ts) is rebuilt whole when stale; a resolve never sees a half-built one.
 * A hostname's zone and origin record are remembered for {@link HOST_CACHE_MS} (forgotten at once when this
 * node's zones or records change), so serving a request usually reads no database.
 */
import type { Kysely } from 'kysely';
import type { Database } from '../db/schema.js';
import type { EdgeCatalog, EdgeTarget, HostRoutePlan, RouteChanges, ScriptBundle } from '../edge/types.js';
import { diffRouteSnapshots, RouteChangeLog } from './route-changes.js';
import { compareSpecificity, hostMatches, matchRoute } from '../edge/route-match.js';
import { isIP } from 'node:net';
import type { Logger } from '../shared/logger.js';
import type { SecretBox } from '../shared/secret-box.js';
import { readEdgeSerial, type EdgeChanges } from '../db/edge-serial.js';
import { loadRouteSnapshot, pickVersion, type RouteSnapshot } from './route-snapshot.js';
import { runtimeBinding, type StoredBinding } from './bindings.js';
import { runtimeLimits, type StoredLimits } from './limits.js';
import { versionModules } from './script-rows.js';
import { findOriginRecord, type OriginRecord } from './origin-record.js';
import { UUID } from './scripts-service.js';
import type { ZoneChangeFeed } from '../zones/change-feed.js';
import type { BucketDomains } from './bucket-domains.js';

/** How long a hostname's zone and origin record are remembered (changes made on other nodes wait this long). */
export const HOST_CACHE_MS = 1000;
/** Most hostnames remembered; the memory starts over when full. */
const HOST_CACHE_SIZE = 10_000;

type ZoneRef = { id: string; name: string; account_id: string };
interface HostFacts { expires: number; zone: ZoneRef | undefined; origin?: OriginRecord | undefined; originKnown: boolean; bucket: EdgeTarget | undefined }

/** Options of {@link DatabaseEdgeCatalog}. */
export interface CatalogOptions {
  db: Kysely<Database>;
  box: SecretBox;
  changes: EdgeChanges;
  /** `--workers-domain` (lowercase, no dots around). */
  workersDomain: string;
  logger: Logger;
  /** How often other nodes' changes are looked for (ms). Default 1000. */
  pollMs?: number;
  /** This node's zone changes (remembered hostnames are forgotten on each). */
  zoneChanges?: ZoneChangeFeed;
  /** Buckets' public hostnames (development hostnames under `domains.publicDomain`, custom domains in zones). */
  domains?: BucketDomains;
  /** The creation instant (ISO) of an account's bucket, or null when it does not exist. */
  bucketCreated?: (accountId: string, bucket: string) => Promise<string | null>;
}

/** The control plane's catalog. Call `start()` to follow other nodes, `close()` to stop. */
export class DatabaseEdgeCatalog implements EdgeCatalog {
  private readonly listeners = new Set<() => void>();
  private snapshot: RouteSnapshot | undefined;
  /** Bumped by every change heard of; the snapshot is stale while `built < wanted`. */
  private wanted = 1;
  private built = 0;
  private building: Promise<void> | undefined;
  private timer: NodeJS.Timeout | undefined;
  private closed = false;
  private readonly unsubscribe: () => void;
  private readonly hosts = new Map<string, HostFacts>();
  /** What each new snapshot changed (`routeChanges`). */
  private readonly changeLog = new RouteChangeLog();

  constructor(private readonly opts: CatalogOptions) {
    const offEdge = opts.changes.subscribe(() => this.changed());
    const offZones = opts.zoneChanges?.subscribe(() => this.hosts.clear());
    this.unsubscribe = () => { offEdge(); offZones?.(); };
  }

  /** Starts polling the edge serial for changes made on other nodes. */
  start(): void {
    let last: number | undefined;
    const poll = async () => {
      try {
        const serial = await readEdgeSerial(this.opts.db);
        if (last !== undefined && serial !== last) this.changed(); // local changes were announced already; once more is harmless
        last = serial;
      } catch (err) {
        if (this.closed) return;
        this.opts.logger.warn({ err }, 'edge catalog: cannot read the edge serial; retrying');
      }
      // A poll that was reading when the catalog closed does not start another.
      if (this.closed) return;
      this.timer = setTimeout(() => void poll(), this.opts.pollMs ?? 1000);
      this.timer.unref();
    };
    void poll();
  }

  /** Stops polling and listening. */
  close(): void {
    this.closed = true;
    if (this.timer) clearTimeout(this.timer);
    this.unsubscribe();
    this.listeners.clear();
  }

  onChange(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => { this.listeners.delete(listener); };
  }

  async resolve(rawHost: string, path: string, scheme: 'http' | 'https' = 'http'): Promise<EdgeTarget> {
    const host = rawHost.toLowerCase().replace(/\.$/, '');
    if (isIP(host.replace(/^\[|\]$/g, '')) !== 0) return { kind: 'unknown', status: 403, reason: 'error 1003: direct IP access not allowed' };
    const snap = await this.fresh();
    const domain = this.opts.workersDomain;
    if (host === domain || host.endsWith(`.${domain}`)) return this.workersSubdomain(snap, host.slice(0, -(domain.length + 1)));
    const publicDomain = this.opts.domains?.publicDomain;
    if (publicDomain !== undefined && (host === publicDomain || host.endsWith(`.${publicDomain}`))) {
      return (await this.hostFacts(host)).bucket ?? { kind: 'unknown', status: 404, reason: 'no bucket is served at this public hostname' };
    }
    const facts = await this.hostFacts(host);
    const zone = facts.zone;
    if (!zone) return { kind: 'unknown', status: 530, reason: `error 1001: ${host} is not a hostname of any active zone` };
    const route = matchRoute(snap.routesByZone.get(zone.id) ?? [], scheme, host, path.startsWith('/') ? path : `/${path}`);
    const behind = await this.behindRoutes(facts, zone, host);
    if (route?.script) {
      const script = snap.scripts.get(`${zone.account_id}/${route.script}`);
      const versionId = script && pickVersion(script.traffic);
      if (versionId) {
        return { kind: 'script', accountId: zone.account_id, scriptName: route.script, versionId, zoneId: zone.id, ...(behind.kind !== 'unknown' ? { passThrough: behind } : {}) };
      }
    }
    return behind;
  }

  /** The routes of a hostname of a zone, most specific first (the nginx front's fast path compiles them). */
  async hostRoutes(rawHost: string): Promise<HostRoutePlan | undefined> {
    const host = rawHost.toLowerCase().replace(/\.$/, '');
    if (isIP(host.replace(/^\[|\]$/g, '')) !== 0) return undefined;
    const snap = await this.fresh();
    const domain = this.opts.workersDomain;
    if (host === domain || host.endsWith(`.${domain}`)) return undefined;
    const publicDomain = this.opts.domains?.publicDomain;
    if (publicDomain !== undefined && (host === publicDomain || host.endsWith(`.${publicDomain}`))) return undefined;
    const facts = await this.hostFacts(host);
    const zone = facts.zone;
    if (!zone) return undefined;
    const routes = (snap.routesByZone.get(zone.id) ?? []).filter((r) => hostMatches(r.pattern, host))
      .sort((a, b) => compareSpecificity(a.pattern, b.pattern));
    const behind = await this.behindRoutes(facts, zone, host);
    return {
      accountId: zone.account_id,
      zoneId: zone.id,
      routes: routes.map((r) => ({
        pattern: r.pattern, script: r.script,
        versions: r.script === null ? [] : (snap.scripts.get(`${zone.account_id}/${r.script}`)?.traffic ?? []).map((t) => ({ versionId: t.version_id, percentage: t.percentage })),
      })),
      passThrough: behind.kind !== 'unknown',
      policy: false,
    };
  }

  /** The zones whose routes (or their scripts' deployments) changed since `cursor`, as of a snapshot reflecting every change heard of. */
  async routeChanges(cursor: string | undefined): Promise<RouteChanges> {
    await this.fresh();
    const since = cursor === undefined ? undefined : Number(cursor);
    return { cursor: String(this.built), zones: this.changeLog.since(Number.isInteger(since) ? since : undefined) };
  }

  /** What a hostname of a zone serves without its script routes: a bucket's custom domain, the proxied record's origin, or nothing. */
  private async behindRoutes(facts: HostFacts, zone: ZoneRef, host: string): Promise<EdgeTarget> {
    // a bucket's custom domain in a zone of the bucket's account (Workers routes run in front of it)
    if (facts.bucket?.kind === 'bucket' && facts.bucket.accountId === zone.account_id) return facts.bucket;
    if (!facts.originKnown) {
      facts.origin = await findOriginRecord(this.opts.db, zone, host);
      facts.originKnown = true;
    }
    const origin = facts.origin;
    if (origin?.proxied) return { kind: 'origin', zoneId: zone.id, hostname: host, origin: origin.content };
    return { kind: 'unknown', status: 530, reason: origin ? `error 1001: ${host} is not proxied` : `error 1001: ${host} has no A, AAAA or CNAME record` };
  }

  async bundle(versionId: string): Promise<ScriptBundle | null> {
    if (!UUID.test(versionId)) return null;
    const row = await this.opts.db.selectFrom('workers_versions').innerJoin('workers_scripts', 'workers_scripts.id', 'workers_versions.script_id')
      .select(['workers_versions.id', 'workers_versions.script_id', 'workers_versions.main_module', 'workers_versions.compatibility_date',
        'workers_versions.compatibility_flags', 'workers_versions.bindings', 'workers_versions.limits', 'workers_scripts.account_id', 'workers_scripts.name'])
      .where('workers_versions.id', '=', versionId).executeTakeFirst();
    if (!row) return null;
    const stored = JSON.parse(row.bindings) as StoredBinding[];
    return {
      accountId: row.account_id,
      scriptName: row.name,
      versionId: row.id,
      mainModule: row.main_module,
      modules: await versionModules(this.opts.db, row.id),
      compatibilityDate: row.compatibility_date,
      compatibilityFlags: JSON.parse(row.compatibility_flags) as string[],
      bindings: stored.map((b) => runtimeBinding(b, (_name, sealed) => this.open(sealed, row.script_id, row.name))),
      limits: runtimeLimits(JSON.parse(row.limits) as StoredLimits),
    };
  }

  private open(sealed: string, scriptId: string, scriptName: string): string {
    try {
      return this.opts.box.open(sealed, scriptId);
    } catch {
      throw new Error(`cannot decrypt a secret of script ${scriptName}: this node's secrets key (--secrets-key) is not the one the secret was stored with`);
    }
  }

  private workersSubdomain(snap: RouteSnapshot, labels: string): EdgeTarget {
    const parts = labels.split('.');
    const notFound: EdgeTarget = { kind: 'unknown', status: 404, reason: 'no Worker is served at this workers subdomain hostname' };
    if (parts.length !== 2) return notFound;
    const accountId = snap.accountBySubdomain.get(parts[1]!);
    const script = accountId === undefined ? undefined : snap.scripts.get(`${accountId}/${parts[0]}`);
    const versionId = script?.subdomainEnabled ? pickVersion(script.traffic) : undefined;
    return versionId ? { kind: 'script', accountId: script!.accountId, scriptName: script!.name, versionId } : notFound;
  }

  /** The remembered facts of a hostname, looked up again when older than HOST_CACHE_MS. */
  private async hostFacts(host: string): Promise<HostFacts> {
    const now = Date.now();
    const known = this.hosts.get(host);
    if (known && known.expires > now) return known;
    const domain = await this.opts.domains?.find(host);
    const zone = await this.zoneOf(host);
    // a custom domain is served only while its own zone is the hostname's active zone, of the domain's account
    const inItsZone = domain?.kind !== 'custom' || (zone !== undefined && zone.id === domain.zone_id && zone.account_id === domain.account_id);
    const live = domain?.enabled === 1 && inItsZone && (await this.opts.bucketCreated?.(domain.account_id, domain.bucket)) === domain.bucket_created;
    const bucket: EdgeTarget | undefined = domain && live ? { kind: 'bucket', accountId: domain.account_id, bucket: domain.bucket, hostname: host } : undefined;
    const facts: HostFacts = { expires: now + HOST_CACHE_MS, zone, originKnown: false, bucket };
    if (this.hosts.size >= HOST_CACHE_SIZE) this.hosts.clear();
    this.hosts.set(host, facts);
    return facts;
  }

  private async zoneOf(host: string): Promise<ZoneRef | undefined> {
    const labels = host.split('.');
    const suffixes = labels.map((_, i) => labels.slice(i).join('.'));
    const zones = await this.opts.db.selectFrom('zones').select(['id', 'name', 'account_id'])
      .where('name', 'in', suffixes).where('status', '=', 'active').execute();
    return zones.sort((a, b) => b.name.length - a.name.length)[0];
  }

  /** Marks the snapshot stale and tells the listeners. */
  private changed(): void {
    this.hosts.clear(); // public bucket hostnames are among the remembered facts
    this.wanted += 1;
    for (const l of [...this.listeners]) {
      try { l(); } catch (err) { this.opts.logger.error({ err }, 'edge catalog: a change listener threw'); }
    }
  }

  /** A snapshot reflecting every change heard of so far. */
  private async fresh(): Promise<RouteSnapshot> {
    while (this.snapshot === undefined || this.built < this.wanted) {
      if (!this.building) {
        const target = this.wanted;
        this.building = loadRouteSnapshot(this.opts.db).then((snap) => {
          const from = this.built;
          this.built = Math.max(this.built, target);
          this.changeLog.record(from, this.built, diffRouteSnapshots(this.snapshot, snap));
          this.snapshot = snap;
        }).finally(() => { this.building = undefined; });
      }
      await this.building;
    }
    return this.snapshot;
  }
}
