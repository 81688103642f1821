/**
 * Composition root: load config -> open stores -> build services -> start listeners. No logic lives here.
 */
import { listenHttp } from './shared/http-listener.js';
import type { Config } from './config/config.js';
import { openDatabase } from './db/database.js';
import { createApiApp } from './api/app.js';
import { httpServerOptions } from './api/middleware/deprecation-framing.js';
import { systemClock, type Clock } from './shared/clock.js';
import type { Logger } from './shared/logger.js';
import { ZoneChangeFeed } from './zones/change-feed.js';
import { reconcileActiveZones, ZoneOwnership } from './zones/zone-ownership.js';
import { startDnsServer } from './dns-server/server.js';
import { bootstrapCredentials, type GeneratedCredentials } from './accounts/bootstrap.js';
import { openServedBucketStore } from './store/served.js';
import { resolveS3Credentials } from './s3/credentials.js';
import { startS3Server, type RunningS3 } from './s3/server.js';
import { tokenPrincipals } from './s3/token-principal.js';
import { TokensService } from './accounts/tokens.js';
import { HealthState } from './shared/health.js';
import { Readiness } from './ops/readiness.js';
import { startAdminServer } from './ops/admin-server.js';
import { installMetrics } from './ops/metrics.js';
import { blobStoreProbe, probeDatabase } from './ops/readiness-probes.js';
import { stratusVersion } from './ops/version.js';

/** A running Stratus instance. */
export interface RunningStratus {
  /** `http://host:port` of the HTTP listener (v4 API). */
  httpUrl: string;
  httpPort: number;
  /** Credentials generated at this start (first start without configured ones): print them once. */
  generatedCredentials?: GeneratedCredentials;
  /** Address and bound port of the DNS listener (UDP and TCP). */
  dnsHost: string;
  dnsPort: number;
  /** `http://host:port` of the S3-compatible API, unless it is turned off. */
  s3Url?: string;
  /** S3 credentials generated at this start (first start without configured ones): print them once. */
  generatedS3Credentials?: { accessKeyId: string; secretAccessKey: string; file: string };
  /**
   * Reachability of the database, the S3 blob store and the disk, as the adapters last saw it (the hook for a
   * readiness endpoint: `health.snapshot()`).
   */
  health: HealthState;
  /** `http://host:port` of the admin listener (`/healthz`, `/readyz`, `/metrics`), unless it is turned off. */
  adminUrl?: string;
  /**
   * Stops accepting (HTTP and S3), lets requests in flight finish for up to `graceMs` (default: the configured
   * shutdown timeout) and closes what is still open, then stops DNS and closes the stores (every acknowledged
   * write is committed by then).
   */
  close(graceMs?: number): Promise<void>;
}

/**
 * Starts Stratus with the given configuration. The admin listener comes first, so that `/healthz` answers and
 * `/readyz` says "starting" while the stores open and the zone snapshots load; it closes last.
 */
export async function startStratus(config: Config, logger: Logger, clock: Clock = systemClock): Promise<RunningStratus> {
  installMetrics(stratusVersion());
  const readiness = new Readiness();
  const admin = config.admin ? await startAdminServer(config.admin, readiness) : undefined;
  let running: RunningStratus;
  try {
    running = await startServices(config, logger, clock, readiness);
  } catch (err) {
    await admin?.close();
    throw err;
  }
  readiness.serving();
  return {
    ...running,
    ...(admin ? { adminUrl: admin.url } : {}),
    async close(graceMs) {
      readiness.stopping();
      await running.close(graceMs);
      await admin?.close(1000);
    },
  };
}

/** Opens the stores and starts the public listeners (v4 API, DNS, S3), registering their readiness probes. */
async function startServices(config: Config, logger: Logger, clock: Clock, readiness: Readiness): Promise<RunningStratus> {
  const health = new HealthState(logger);
  const database = await openDatabase({ dataDir: config.dataDir, url: config.databaseUrl, health, queryTimeoutMs: config.databaseTimeoutMs });
  readiness.add(['database', 'migrations'], () => probeDatabase(database.db));
  const blobProbe = blobStoreProbe(config.blobsDir, config.blobsS3);
  readiness.add(['blob-store'], blobProbe.probe);
  let zonesLoaded: (() => number) | undefined;
  readiness.add(['dns'], async () => ({ dns: zonesLoaded ? { ok: true, detail: `${zonesLoaded()} zones served` } : { ok: false, detail: 'loading zone snapshots' } }));
  let generatedCredentials: GeneratedCredentials | undefined;
  try {
    generatedCredentials = await bootstrapCredentials(database.db, { dataDir: config.dataDir, authEmail: config.authEmail, authKey: config.authKey, apiToken: config.apiToken, clock });
  } catch (err) {
    await database.close();
    throw err;
  }
  const changeFeed = new ZoneChangeFeed();
  await reconcileActiveZones(database.db, new ZoneOwnership(database.db, clock, changeFeed)).catch(async (err: unknown) => { await database.close(); throw err; });
  const dns = await startDnsServer({
    db: database.db, changeFeed, logger, listen: config.dns, edgeIpv4: config.edgeIpv4, edgeIpv6: config.edgeIpv6,
    transferAllow: config.transferAllow, notify: config.notify, udpWorkers: config.dnsWorkers,
    logRate: config.dnsLogRate, ...(config.logFormat ? { logFormat: config.logFormat } : {}),
  }).catch(async (err: unknown) => { await database.close(); throw err; });
  zonesLoaded = () => dns.cache.all().length;
  const app = createApiApp({ config, clock, logger, db: database.db, changeFeed });
  const store = await openServedBucketStore({
    dataDir: config.dataDir, databaseUrl: config.databaseUrl, blobsDir: config.blobsDir, blobsS3: config.blobsS3, clock, logger,
    health, databaseQueryTimeoutMs: config.databaseTimeoutMs,
  }).catch(async (err: unknown) => { await dns.close(); await database.close(); throw err; });
  let s3: RunningS3 | undefined;
  let s3Generated: RunningStratus['generatedS3Credentials'];
  const closeStores = async (): Promise<void> => {
    blobProbe.close();
    await dns.close();
    await store.close();
    await database.close();
  };
  try {
    if (config.s3) {
      const credentials = resolveS3Credentials({ dataDir: config.dataDir, accessKeyId: config.s3AccessKeyId, secretAccessKey: config.s3SecretAccessKey });
      if (credentials.generatedFile) s3Generated = { accessKeyId: credentials.accessKeyId, secretAccessKey: credentials.secretAccessKey, file: credentials.generatedFile };
      s3 = await startS3Server({ listen: config.s3, store, credentials, tokenPrincipal: tokenPrincipals(new TokensService(database.db, clock)), region: config.s3Region, domain: config.s3Domain, logger, clock });
    }
  } catch (err) {
    await closeStores();
    throw err;
  }

  const http = await listenHttp(app.fetch, config.http, httpServerOptions, { listener: 'v4', logger });

  return {
    httpUrl: http.url,
    httpPort: http.port,
    dnsHost: dns.host,
    dnsPort: dns.port,
    ...(generatedCredentials ? { generatedCredentials } : {}),
    ...(s3 ? { s3Url: s3.url } : {}),
    ...(s3Generated ? { generatedS3Credentials: s3Generated } : {}),
    health,
    async close(graceMs = config.shutdownTimeoutMs) {
      await Promise.all([http.close(graceMs), s3?.close(graceMs)]);
      await closeStores();
    },
  };
}
