/**
 * Measurement points inside the domain code, with no dependency: the bucket store's operation boundary, the
 * zone write queue's group commit, the zone cache's loads and applied changes, the PostgreSQL pools, the
 * health state and the limits on abuse call these recorders; they do nothing until `stratus serve` installs the metrics
 * ({@link installProbes}, ops/metrics.ts). So libraries (the bucket store scripts use, the DNS worker
 * processes) never load the metrics client, and no label can carry a name: recorders take only bounded values.
 */

/** What the metrics module does with each measurement. */
export interface ProbeSink {
  storeOperation(action: string, outcome: 'ok' | 'error', seconds: number, bytesIn: number, bytesOut: number): void;
  groupCommit(jobs: number, seconds: number, outcome: 'ok' | 'error'): void;
  zoneBuild(kind: 'load' | 'apply', seconds: number, lagSeconds: number | undefined): void;
  connectionError(pool: string): void;
  backendFault(component: string): void;
  limitEvent(listener: LimitListener, event: LimitEvent): void;
  rateCounterFailure(): void;
  dnsThreadRestart(): void;
}

/** The listeners that authenticate requests (the edge's Workers and bucket routes are the v4 listener's). */
export type LimitListener = 'v4' | 's3';
/**
 * What the limits did: a failed authentication was counted (`auth_failure`), answered late (`auth_slowed`),
 * a request refused because its address is cooling down (`auth_refused`), or because its user is over the
 * request rate (`rate_refused`).
 */
export type LimitEvent = 'auth_failure' | 'auth_slowed' | 'auth_refused' | 'rate_refused';

/** A PostgreSQL pool's counters as `pg.Pool` exposes them. */
export interface PoolGauge {
  readonly totalCount: number;
  readonly idleCount: number;
  readonly waitingCount: number;
  readonly ended?: boolean;
}

let sink: ProbeSink | undefined;
const pools = new Map<PoolGauge, string>();

/** Routes every recorder to `next` (the metrics module); undefined turns recording off. */
export function installProbes(next: ProbeSink | undefined): void {
  sink = next;
}

/** One bucket operation finished (binding, S3 or edge: the store's `run` boundary). */
export function recordStoreOperation(action: string, ok: boolean, seconds: number, bytesIn: number, bytesOut: number): void {
  sink?.storeOperation(action, ok ? 'ok' : 'error', seconds, bytesIn, bytesOut);
}

/** One group commit of the zone write queue: how many writes shared it and how long it took. */
export function recordGroupCommit(jobs: number, seconds: number, ok: boolean): void {
  sink?.groupCommit(jobs, seconds, ok ? 'ok' : 'error');
}

/**
 * A zone's served copy was brought up to date: loaded whole (`load`) or patched with changes (`apply`), taking
 * `seconds`, `lagSeconds` after the first change it reflects was announced (undefined: no change waited).
 */
export function recordZoneBuild(kind: 'load' | 'apply', seconds: number, lagSeconds?: number): void {
  sink?.zoneBuild(kind, seconds, lagSeconds);
}

/** A connection of the named PostgreSQL pool broke (idle or in use). */
export function recordConnectionError(pool: string): void {
  sink?.connectionError(pool);
}

/** A backing store fault was reported to the health state (`database`, `blob-store`, `disk`). */
export function recordBackendFault(component: string): void {
  sink?.backendFault(component);
}

/** One event of the limits on abuse (limits/), by listener. */
export function recordLimitEvent(listener: LimitListener, event: LimitEvent): void {
  sink?.limitEvent(listener, event);
}

/** Shared rate counters could not be written or read (the limits count on this node only meanwhile). */
export function recordRateCounterFailure(): void {
  sink?.rateCounterFailure();
}

/** The DNS thread ended unasked and is being started again (dns-server/udp-workers.ts). */
export function recordDnsThreadRestart(): void {
  sink?.dnsThreadRestart();
}

let udpPath: 'native' | 'js' | undefined;

/** The path the DNS server answers UDP on (dns-server/native-udp.ts), for `stratus_dns_udp_path`. */
export function recordDnsUdpPath(path: 'native' | 'js'): void {
  udpPath = path;
}

/** The recorded UDP path of the DNS server (undefined before it listens). */
export function dnsUdpPath(): 'native' | 'js' | undefined {
  return udpPath;
}

/** Makes a PostgreSQL pool's use visible under `name` until it ends. */
export function trackPool(name: string, pool: PoolGauge): void {
  pools.set(pool, name);
}

/** The pools being tracked (ended ones are forgotten). */
export function trackedPools(): Array<{ name: string; pool: PoolGauge }> {
  const out: Array<{ name: string; pool: PoolGauge }> = [];
  for (const [pool, name] of pools) {
    if (pool.ended) pools.delete(pool);
    else out.push({ name, pool });
  }
  return out;
}

/** What the metrics read from a DNS zone cache at scrape time. */
export interface ZoneCacheGauge {
  all(): unknown[];
  /** True while a zone waits for its copy to be brought up to date. */
  readonly busy: boolean;
}

const zoneCaches = new Set<ZoneCacheGauge>();

/** Makes a zone cache's size visible; returns the function that stops it (when the DNS server closes). */
export function trackZoneCache(cache: ZoneCacheGauge): () => void {
  zoneCaches.add(cache);
  return () => zoneCaches.delete(cache);
}

/** The zone caches being tracked. */
export function trackedZoneCaches(): ZoneCacheGauge[] {
  return [...zoneCaches];
}
