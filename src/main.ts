/**
 * Composition root: load config -> open stores -> build services -> start listeners. No logic lives here.
 */
import { listenHttp } from './http/http-listener.js';
import { readTlsMaterial, reloadTls, TlsFileError, type SecureContextTarget, type TlsMaterial } from './shared/tls-files.js';
import { ConfigError } from './config/config.js';
import type { Config } from './config/config.js';
import { openDatabase } from './db/database.js';
import { createApiApp } from './api/app.js';
import { v4ParserError } from './api/envelope.js';
import { refuseBeforeContinue } from './api/body-limit.js';
import { systemClock, type Clock } from './shared/clock.js';
import type { Logger } from './shared/logger.js';
import { ZoneChangeFeed } from './zones/change-feed.js';
import { reconcileActiveZones, ZoneOwnership } from './zones/zone-ownership.js';
import { NameServerAssignments } from './zones/name-server-assignments.js';
import { assignExistingAccounts } from './zones/name-server-upgrade.js';
import { startDnsServer } from './dns-server/server.js';
import { adminAccountId, bootstrapCredentials, type GeneratedCredentials } from './accounts/bootstrap.js';
import { forgetGenerated, type GeneratedAtStart } from './accounts/forget-generated.js';
import { openServedBucketStore } from './store/served.js';
import { bindingBucket } from './store/namespace.js';
import { resolveS3Credentials } from './s3/credentials.js';
import { startS3Server, type RunningS3 } from './s3/server.js';
import { tokenPrincipals } from './s3/token-principal.js';
import { TokensService } from './accounts/tokens.js';
import { HealthState } from './shared/health.js';
import { Readiness, type PartStatus } from './ops/readiness.js';
import { startAdminServer } from './ops/admin-server.js';
import { installMetrics } from './ops/metrics.js';
import { blobStoreProbe, probeDatabase } from './ops/readiness-probes.js';
import { stratusVersion } from './ops/version.js';
import { TempCredentials } from './s3/temp-credentials.js';
import type { EdgeCatalog } from './edge/types.js';
import { startControlPlane, type ControlPlane } from './scripts/control-plane.js';
import { resolveSecretsKey } from './shared/secret-box.js';
import { availableParallelism } from 'node:os';
import { startEdge, type RunningEdge } from './runtime/start-edge.js';
import { replicaCount } from './runtime/edge-options.js';
import type { HttpsEdge } from './runtime/https-edge.js';
import { startEdgeTls } from './runtime/edge-tls.js';
import { ZonePolicies } from './edge/zone-policy.js';
import { PolicyCatalog, type EdgePorts } from './edge/policy-catalog.js';
import { openLimits } from './limits/limits.js';
import { startCertificates, type Certificates } from './certs/certificate-service.js';
import { RefreshLoop } from './secondary-dns/refresh-loop.js';
import { transferPeerPolicy } from './runtime/transfer-peer-policy.js';
import { RecordsService } from './zones/records-service.js';

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
  /** Which path answers DNS over UDP (`native`: the DNS thread's addon; `js`), and why not native. */
  dnsUdp: { udp: 'native' | 'js'; why?: string };
  /** `http://host:port` of the S3-compatible API, unless it is turned off. */
  s3Url?: string;
  /** `http://host:port` of the edge listener, unless it is turned off. */
  edgeUrl?: string;
  /** `https://host:port` of the HTTPS edge listener (`--edge-tls`), when it runs. */
  edgeTlsUrl?: string;
  /** The edge runtime, when `--edge` runs (tests read its nginx front's configuration). */
  edge?: RunningEdge;
  /** S3 credentials generated at this start (first start without configured ones): print them once. */
  generatedS3Credentials?: { accessKeyId: string; secretAccessKey: string; file: string };
  /**
   * Reachability of the database, the S3 blob store and the disk, as the adapters last saw it (the hook for a
   * readiness endpoint: `health.snapshot()`).
   */
  health: HealthState;
  /** `http://host:port` of the admin listener (`/healthz`, `/readyz`, `/metrics`), unless it is turned off. */
  adminUrl?: string;
  /** The admin's account (the instance's S3 key pair acts for it). */
  adminAccountId: string;
  /** The file the Worker secrets key was generated into at this start (first start without --secrets-key). */
  generatedSecretsKeyFile?: string;
  /** The edge's control plane as the runtime reads it (scripts, routes, bundles). */
  edgeCatalog: EdgeCatalog;
  /** The certificate the v4 API and S3 listeners serve (`--tls-cert`), when they speak HTTPS. */
  tls?: TlsMaterial;
  /**
   * Reads `--tls-cert`/`--tls-key` again and serves them on new connections of the v4 API and S3 listeners
   * (SIGHUP); throws `TlsFileError` (one line) and keeps the current certificate when a file is bad.
   */
  reloadTls(): TlsMaterial;
  /**
   * Stops accepting (HTTP, S3 and edge), lets requests in flight finish for up to `graceMs` (default: the configured
   * shutdown timeout) and closes what is still open, then stops DNS and closes the stores (every acknowledged
   * write is committed by then).
   */
  close(graceMs?: number): Promise<void>;
}

/**
/**
 * Starts Stratus with the given configuration. The admin listener comes first, so that `/healthz` answers and
 * `/readyz` says "starting" while the stores open and the zone snapshots load; it closes last. `edgeCatalog`
 * replaces the control plane's catalog as what the edge runtime serves (the runtime's own tests give one of
 * theirs); the v4 Workers routes keep the real one.
 */
export async function startStratus(config: Config, logger: Logger, clock: Clock = systemClock, edgeCatalog?: EdgeCatalog): Promise<RunningStratus> {
  installMetrics(stratusVersion());
  // A bad certificate or key stops the start before anything listens (one line, exit status 2).
  let tls: TlsMaterial | undefined;
  try {
    tls = config.tls ? readTlsMaterial(config.tls) : undefined;
  } catch (err) {
    throw err instanceof TlsFileError ? new ConfigError(err.message) : err;
  }
  const readiness = new Readiness();
  const admin = config.admin ? await startAdminServer(config.admin, readiness) : undefined;
  let running: RunningStratus;
  const generated: GeneratedAtStart = { files: [] };
  try {
    running = await startServices(config, logger, clock, readiness, edgeCatalog, tls, generated);
  } catch (err) {
    await admin?.close();
    // Credentials are made only by a start that succeeds: the next one generates (and prints) them afresh.
    // (When the store itself is what failed, this fails too: the start's own error is the one reported.)
    if (generated.adminUserId !== undefined || generated.files.length > 0) {
      await openDatabase({ dataDir: config.dataDir, url: config.databaseUrl })
        .then((database) => forgetGenerated(database.db, generated).finally(() => database.close()))
        .catch((cleanup: unknown) => logger.warn({ err: cleanup }, 'could not remove the credentials generated by the failed start'));
    }
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

/** Opens the stores and starts the public listeners (v4 API, DNS, S3, edge), registering their readiness probes. */
async function startServices(config: Config, logger: Logger, clock: Clock, readiness: Readiness, edgeCatalog: EdgeCatalog | undefined, tls: TlsMaterial | undefined, generated: GeneratedAtStart): Promise<RunningStratus> {
  const health = new HealthState(logger);
  const database = await openDatabase({
    dataDir: config.dataDir, url: config.databaseUrl, health, queryTimeoutMs: config.databaseTimeoutMs,
    backgroundCheckpoints: true, onCheckpointError: (message) => logger.warn({ message }, 'background WAL checkpoint failed'),
  });
  readiness.add(['database', 'migrations'], () => probeDatabase(database.db));
  const blobProbe = blobStoreProbe(config.blobsDir, config.blobsS3);
  readiness.add(['blob-store'], blobProbe.probe);
  let dnsStatus: (() => PartStatus) | undefined;
  let edge: RunningEdge | undefined;
  let edgeTls: HttpsEdge | undefined;
  let policies: ZonePolicies | undefined;
  if (config.edge) readiness.add(['edge'], async () => ({ edge: edge ? edge.runtime.status() : { ok: false, detail: 'starting workerd' } }));
  readiness.add(['dns'], async () => ({ dns: dnsStatus ? dnsStatus() : { ok: false, detail: 'loading zone snapshots' } }));
  let generatedCredentials: GeneratedCredentials | undefined;
  let adminAccount: string;
  try {
    generatedCredentials = await bootstrapCredentials(database.db, { dataDir: config.dataDir, authEmail: config.authEmail, authKey: config.authKey, apiToken: config.apiToken, clock });
    if (generatedCredentials) {
      generated.adminUserId = generatedCredentials.userId;
      generated.files.push(generatedCredentials.file);
    }
    adminAccount = await adminAccountId(database.db, config.authEmail);
  } catch (err) {
    await database.close();
    throw err;
  }
  const changeFeed = new ZoneChangeFeed();
  // The admin's account keeps the instance's name servers; accounts with zones from before pairs get theirs.
  const nameServers = new NameServerAssignments(database.db, clock, config.nameservers, config.nameServerPool);
  await assignExistingAccounts(database.db, nameServers, adminAccount, changeFeed).catch(async (err: unknown) => { await database.close(); throw err; });
  await reconcileActiveZones(database.db, new ZoneOwnership(database.db, clock, changeFeed)).catch(async (err: unknown) => { await database.close(); throw err; });
  // The secrets key seals Worker secrets and zone signing keys: resolved before the DNS server, which opens the latter.
  let secrets: ReturnType<typeof resolveSecretsKey>;
  try {
    secrets = resolveSecretsKey({ dataDir: config.dataDir, configured: config.secretsKey });
    // A key generated on an empty store seals nothing yet; one generated beside existing data stays.
    if (secrets.generatedFile !== undefined && generatedCredentials) generated.files.push(secrets.generatedFile);
  } catch (err) {
    await database.close();
    throw err;
  }
  // Tenants' secondary DNS peers pass the edge's address policy (--transfer-peer-allow widens it).
  const peerPolicy = transferPeerPolicy(config.transferPeerAllow);
  const dns = await startDnsServer({
    db: database.db, changeFeed, logger, listen: config.dns, edgeIpv4: config.edgeIpv4, edgeIpv6: config.edgeIpv6,
    transferAllow: config.transferAllow, notify: config.notify, ixfrHistory: config.ixfrHistory, udpWorkers: config.dnsWorkers, nativeUdp: config.dnsNativeUdp,
    logRate: config.dnsLogRate, ...(config.logFormat ? { logFormat: config.logFormat } : {}), secretsKey: secrets.key, peerPolicy,
  }).catch(async (err: unknown) => { await database.close(); throw err; });
  dnsStatus = () => {
    const thread = dns.threadStatus();
    return thread.ok ? { ok: true, detail: `${dns.cache.all().length} zones served` } : thread;
  };
  const store = await openServedBucketStore({
    dataDir: config.dataDir, databaseUrl: config.databaseUrl, blobsDir: config.blobsDir, blobsS3: config.blobsS3, clock, logger,
    health, databaseQueryTimeoutMs: config.databaseTimeoutMs,
  }).catch(async (err: unknown) => { await dns.close(); await database.close(); throw err; });
  // Buckets written before buckets belonged to accounts become the admin's (once per store).
  await store.adoptBuckets(adminAccount).catch(async (err: unknown) => { await store.close(); await dns.close(); await database.close(); throw err; });
  const tempCredentials = new TempCredentials(new TokensService(database.db, clock), clock);
  let control: ControlPlane;
  try {
    control = startControlPlane({ db: database.db, dataDir: config.dataDir, secretsKey: config.secretsKey, resolvedKey: secrets, workersDomain: config.workersDomain, publicDomain: config.publicDomain, clock, logger, zoneChanges: changeFeed, store });
  } catch (err) {
    await dns.close(); await store.close(); await database.close();
    throw err;
  }
  let certificates: Certificates;
  try {
    certificates = await startCertificates({
      db: database.db, box: control.apiDeps.box, clock, logger, changeFeed, config: config.certificates,
      dns: { host: dns.host, port: dns.port }, servedSerial: (zoneId) => dns.cache.get(zoneId)?.serial,
    });
  } catch (err) {
    control.close(); await dns.close(); await store.close(); await database.close();
    throw err;
  }
  // Secondary zones: this node's share of the pulls from their primaries (secondary-dns/refresh-loop.ts).
  const ownership = new ZoneOwnership(database.db, clock, changeFeed);
  const refresh = new RefreshLoop(database.db, new RecordsService(database.db, clock, changeFeed, config.plan, config.serviceRanges, (zone) => ownership.reconsiderBelow(zone.name, true)), control.apiDeps.box, logger, peerPolicy);
  refresh.start();
  const limits = openLimits({ config: config.limits, db: database.db, dialect: database.dialect, clock, logger });
  let s3: RunningS3 | undefined;
  const s3Listener = () => (s3 ? { port: s3.port, tls: tls !== undefined } : undefined);
  const app = createApiApp({ config, clock, logger, db: database.db, changeFeed, store, tempCredentials, edge: control.apiDeps, limits, nameServers, s3Listener, certificates, dnsQuery: dns.query });
  let s3Generated: RunningStratus['generatedS3Credentials'];
  const closeStores = async (): Promise<void> => {
    await refresh.close();
    await certificates.close();
    await limits.close();
    blobProbe.close();
    control.close();
    await dns.close();
    await store.close();
    await database.close();
  };
  try {
    if (config.s3) {
      const credentials = resolveS3Credentials({ dataDir: config.dataDir, accessKeyId: config.s3AccessKeyId, secretAccessKey: config.s3SecretAccessKey });
      if (credentials.generatedFile) {
        s3Generated = { accessKeyId: credentials.accessKeyId, secretAccessKey: credentials.secretAccessKey, file: credentials.generatedFile };
        generated.files.push(credentials.generatedFile);
      }
      s3 = await startS3Server({ listen: config.s3, store, credentials, adminAccountId: adminAccount, tempCredentials, tokenPrincipal: tokenPrincipals(new TokensService(database.db, clock), clock), region: config.s3Region, domain: config.s3Domain, tls, logger, clock, limits });
    }
    if (config.edge) {
      // Zone settings the edge acts on (always_use_https, ssl, min_tls_version, security_header: docs/edge.md).
      policies = new ZonePolicies(database.db, changeFeed);
      const ports: EdgePorts = {};
      // A script's binding names a bucket of the script's own account.
      edge = await startEdge({
        listen: config.edge, catalog: new PolicyCatalog(edgeCatalog ?? control.catalog, policies, ports), logger, originPort: config.originPort, originTlsPort: config.originTlsPort, scriptOutbound: config.scriptOutbound, originAllow: config.originAllow,
        cpuMs: config.scriptCpuMs, memoryMb: config.scriptMemoryMb,
        subrequests: config.scriptSubrequests, bucketSubrequests: config.scriptBucketSubrequests, front: config.edgeFront, runtimes: config.edgeRuntimes, frontWorkers: config.edgeFrontWorkers, replicas: config.edgeReplicas || replicaCount(availableParallelism()), fastPath: config.edgeFastPath, tls: config.edgeTls,
        bucketFor: (accountId, bucketName, options) => bindingBucket(store.forAccount(accountId), bucketName, options),
      });
      ports.http = edge.port;
      if (config.edgeTls) {
        edgeTls = await startEdgeTls({ listen: config.edgeTls, tls, certificates: certificates.served, policies, edge, edgeHost: config.edge.host, logger });
        ports.https = edgeTls.port;
      }
    }
  } catch (err) {
    await edge?.close();
    policies?.close();
    await s3?.close();
    await closeStores();
    throw err;
  }

  let http: Awaited<ReturnType<typeof listenHttp>>;
  try {
    http = await listenHttp(app.fetch, config.http, {
      parserError: v4ParserError, beforeContinue: refuseBeforeContinue(config.apiBodyLimit),
      observe: { listener: 'v4', logger }, ...(tls ? { tls } : {}),
    });
  } catch (err) {
    await s3?.close();
    await edgeTls?.close();
    await edge?.close();
    policies?.close();
    await closeStores();
    throw err;
  }

  return {
    httpUrl: http.url,
    httpPort: http.port,
    dnsHost: dns.host,
    dnsPort: dns.port,
    dnsUdp: dns.udpPath,
    adminAccountId: adminAccount,
    ...(generatedCredentials ? { generatedCredentials } : {}),
    ...(s3 ? { s3Url: s3.url } : {}),
    ...(edge ? { edgeUrl: edge.url, edge } : {}),
    ...(edgeTls ? { edgeTlsUrl: edgeTls.url } : {}),
    ...(s3Generated ? { generatedS3Credentials: s3Generated } : {}),
    health,
    edgeCatalog: control.catalog,
    ...(control.generatedSecretsKeyFile !== undefined ? { generatedSecretsKeyFile: control.generatedSecretsKeyFile } : {}),
    ...(tls ? { tls } : {}),
    reloadTls() {
      if (!config.tls) throw new TlsFileError('no --tls-cert/--tls-key: the listeners speak plain HTTP');
      const targets = [http.tls, s3?.tls, edgeTls?.tls].filter((t): t is SecureContextTarget => t !== undefined);
      return reloadTls(config.tls, targets);
    },
    async close(graceMs = config.shutdownTimeoutMs) {
      await Promise.all([http.close(graceMs), s3?.close(graceMs), edgeTls?.close(), edge?.close(graceMs)]);
      policies?.close();
      await closeStores();
    },
  };
}
