/**
 * The metrics `stratus serve` exposes on the admin listener's `/metrics` (Prometheus text format, prom-client):
 * one registry per process holding the process metrics, the HTTP listeners' requests (http-metrics.ts), the
 * DNS queries (dns-metrics.ts) and what the probes inside the domain code report (probes.ts). Every label value
 * comes from a closed set (listener, route template, method, status, operation, pool, component): never a
 * record or zone name, a bucket or key, an account id or anything a client chose. docs/operations.md lists them.
 */
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import { dnsUdpPath, installProbes, trackedPools, trackedZoneCaches } from '../shared/probes.js';
import { registerDnsMetrics } from './dns-metrics.js';
import { registerHttpMetrics } from '../http/http-metrics.js';

/** The registry of this process (created by {@link installMetrics}). */
let registry: Registry | undefined;

/** Buckets (seconds) of the store and group-commit latency histograms. */
const LATENCY_BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];

/**
 * Creates the registry, starts the process metrics and routes the probes to it. Idempotent: every Stratus
 * started in one process (tests) shares it.
 */
export function installMetrics(version: string): Registry {
  if (registry) return registry;
  const r = new Registry();
  collectDefaultMetrics({ register: r });
  // Gauges named like counters (promtool's lint refuses them); their per-type versions without `_total` stay.
  for (const name of ['nodejs_active_handles_total', 'nodejs_active_requests_total', 'nodejs_active_resources_total']) r.removeSingleMetric(name);
  new Gauge({ name: 'stratus_build_info', help: 'Always 1; the labels say which build and Node.js run.', labelNames: ['version', 'node'], registers: [r] })
    .set({ version, node: process.versions.node }, 1);
  registerHttpMetrics(r);
  registerDnsMetrics(r);
  installStoreAndZoneMetrics(r);
  registry = r;
  return r;
}

/** The exposition of every metric, and its content type. */
export async function metricsExposition(): Promise<{ body: string; contentType: string }> {
  const r = registry ?? installMetrics('unknown');
  return { body: await r.metrics(), contentType: r.contentType };
}

function installStoreAndZoneMetrics(r: Registry): void {
  const registers = [r];
  const storeOps = new Counter({ name: 'stratus_store_operations_total', help: 'Bucket operations (binding, S3, edge) by operation and outcome.', labelNames: ['operation', 'outcome'], registers });
  const storeSeconds = new Histogram({ name: 'stratus_store_operation_duration_seconds', help: 'Time of bucket operations until their result (a get: until its body starts).', labelNames: ['operation'], buckets: LATENCY_BUCKETS, registers });
  const bytesIn = new Counter({ name: 'stratus_store_bytes_in_total', help: 'Object body bytes stored by put and uploadPart.', labelNames: ['operation'], registers });
  const bytesOut = new Counter({ name: 'stratus_store_bytes_out_total', help: 'Object body bytes handed out by get (the range asked for).', labelNames: ['operation'], registers });
  const groupSize = new Histogram({ name: 'stratus_zone_write_group_size', help: 'Record writes committed together in one group commit.', labelNames: ['outcome'], buckets: [1, 2, 4, 8, 16, 32, 64, 128, 256], registers });
  const groupSeconds = new Histogram({ name: 'stratus_zone_write_group_duration_seconds', help: 'Time of one group commit (transaction of every write in the group).', buckets: LATENCY_BUCKETS, registers });
  const buildSeconds = new Histogram({ name: 'stratus_dns_zone_update_duration_seconds', help: 'Time to bring a zone\'s served copy up to date: load (whole zone) or apply (changes).', labelNames: ['kind'], buckets: LATENCY_BUCKETS, registers });
  const lagSeconds = new Histogram({ name: 'stratus_dns_zone_update_lag_seconds', help: 'From a zone change being committed to the DNS server serving it.', buckets: LATENCY_BUCKETS, registers });
  const connErrors = new Counter({ name: 'stratus_database_connection_errors_total', help: 'PostgreSQL connections that broke (idle or in use), by pool.', labelNames: ['pool'], registers });
  const faults = new Counter({ name: 'stratus_backend_faults_total', help: 'Faults of the backing stores (operations that failed because a store was unreachable or full).', labelNames: ['component'], registers });
  for (const component of ['database', 'blob-store', 'disk']) faults.inc({ component }, 0);
  const limits = new Counter({
    name: 'stratus_limit_events_total', labelNames: ['listener', 'event'], registers,
    help: 'Limits on abuse: failed authentications counted (auth_failure), answered late (auth_slowed), requests refused from an address cooling down (auth_refused) or over a user\'s request rate (rate_refused).',
  });
  for (const listener of ['v4', 's3']) for (const event of ['auth_failure', 'auth_slowed', 'auth_refused', 'rate_refused']) limits.inc({ listener, event }, 0);
  const counterFailures = new Counter({ name: 'stratus_limit_store_failures_total', help: 'Writes or reads of the shared rate counters (PostgreSQL) that failed; limits count per node meanwhile.', registers });
  const threadRestarts = new Counter({ name: 'stratus_dns_thread_restarts_total', help: 'Times the DNS thread ended unasked (an exception, out of memory) and was started again with its zones reloaded.', registers });
  new Gauge({
    name: 'stratus_database_pool_connections', help: 'PostgreSQL pool connections by pool and state (idle, in_use, waiting: requests waiting for one).',
    labelNames: ['pool', 'state'], registers,
    collect() {
      this.reset();
      for (const { name, pool } of trackedPools()) {
        this.inc({ pool: name, state: 'idle' }, pool.idleCount);
        this.inc({ pool: name, state: 'in_use' }, pool.totalCount - pool.idleCount);
        this.inc({ pool: name, state: 'waiting' }, pool.waitingCount);
      }
    },
  });
  new Gauge({
    name: 'stratus_dns_udp_path', help: 'The path answering DNS over UDP: 1 for native (the DNS thread\'s addon, batched recvmmsg/sendmmsg) or js (Node\'s dgram), 0 for the other.',
    labelNames: ['path'], registers,
    collect() {
      const path = dnsUdpPath();
      this.set({ path: 'native' }, path === 'native' ? 1 : 0);
      this.set({ path: 'js' }, path === 'js' ? 1 : 0);
    },
  });
  new Gauge({
    name: 'stratus_dns_zones', help: 'Zones the DNS server serves, and whether any waits for an update (pending: 1).', labelNames: ['state'], registers,
    collect() {
      let served = 0;
      let pending = 0;
      for (const cache of trackedZoneCaches()) { served += cache.all().length; if (cache.busy) pending = 1; }
      this.set({ state: 'served' }, served);
      this.set({ state: 'pending' }, pending);
    },
  });
  installProbes({
    storeOperation(action, outcome, seconds, inBytes, outBytes) {
      storeOps.inc({ operation: action, outcome });
      storeSeconds.observe({ operation: action }, seconds);
      if (inBytes > 0) bytesIn.inc({ operation: action }, inBytes);
      if (outBytes > 0) bytesOut.inc({ operation: action }, outBytes);
    },
    groupCommit(jobs, seconds, outcome) {
      groupSize.observe({ outcome }, jobs);
      groupSeconds.observe(seconds);
    },
    zoneBuild(kind, seconds, lag) {
      buildSeconds.observe({ kind }, seconds);
      if (lag !== undefined) lagSeconds.observe(lag);
    },
    connectionError: (pool) => connErrors.inc({ pool }),
    backendFault: (component) => faults.inc({ component }),
    limitEvent: (listener, event) => limits.inc({ listener, event }),
    rateCounterFailure: () => counterFailures.inc(),
    dnsThreadRestart: () => threadRestarts.inc(),
  });
}
