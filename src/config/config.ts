/**
 * Stratus configuration: one strict schema with defaults, read once from command-line flags, then
 * `STRATUS_<NAME>` environment variables, then defaults. Modules receive their slice through constructors;
 * nothing else reads `process.env`.
 */
import net from 'node:net';
import path from 'node:path';
import { DEFAULT_POOL_LABELS, poolNames } from './name-server-pool.js';
import type { LogFormat } from '../shared/log-format.js';
import { dataPath, BLOBS } from '../shared/data-dir.js';
import { ConfigError, intFlag } from './flag-errors.js';
import { certificatesConfig, type CertificatesConfig } from './certificates-config.js';
import { blobsS3Config, type BlobsS3Config } from './blobs-s3-config.js';

export { ConfigError, intFlag } from './flag-errors.js';
export type { CertificatesConfig } from './certificates-config.js';
export type { BlobsS3Config } from './blobs-s3-config.js';

/** A host and port to listen on. Port 0 picks a free port. */
export interface ListenAddress {
  host: string;
  port: number;
}

/** Limits that depend on the plan of the emulated account (the production service varies them by plan). */
export interface PlanLimits {
  /** Longest record comment, in characters (production: 100 on Free, 500 on paid plans). */
  commentMaxLength: number;
  /** Most tags on one record (production: 0 on Free, 20 on paid plans). */
  tagsPerRecord: number;
  /** Lowest TTL a DNS-only record may have besides 1 (Auto) (production: 60, 30 on Enterprise). */
  minTtl: number;
  /** Most records in one zone. */
  recordsPerZone: number;
  /** Most record operations in one batch request. */
  recordsPerBatch: number;
}

/** The whole configuration. */
export interface Config {
  dataDir: string;
  http: ListenAddress;
  dns: ListenAddress;
  /** The server's api date (YYYY-MM-DD); undefined means "today" on each request. */
  apiDate: string | undefined;
  /** Admin credentials created or updated at start. */
  authEmail: string | undefined;
  authKey: string | undefined;
  /** An API token value created at start with every permission on the admin's accounts (`--api-token`). */
  apiToken: string | undefined;
  /** PostgreSQL connection string; undefined means the embedded SQLite database in the data folder. */
  databaseUrl: string | undefined;
  /** Folder of object bodies (`<dataDir>/blobs` by default); nodes sharing a PostgreSQL database share it too. */
  blobsDir: string;
  /** Object bodies in an S3-compatible store instead of `blobsDir` (set by `--blobs-s3-bucket`). */
  blobsS3: BlobsS3Config | undefined;
  /** Name servers assigned to new zones. */
  nameservers: string[];
  /** Host names of the pool accounts are given name server pairs from (`--name-server-pool`); empty: off. */
  nameServerPool: string[];
  /** Names (with everything below them) exempt from the rules on names nobody may add as a zone (`--zone-name-allow`). */
  zoneNameAllow: string[];
  /** Address ranges of the service's own network: A/AAAA content inside them is refused. */
  serviceRanges: string[];
  /** Edge addresses that proxied records answer with over DNS. */
  edgeIpv4: string[];
  edgeIpv6: string[];
  /** Hosts allowed to transfer zones (AXFR), and the secondaries that are sent NOTIFY. */
  transferAllow: string[];
  notify: string[];
  /** CIDRs secondary DNS peers may be in besides public addresses (`--transfer-peer-allow`). */
  transferPeerAllow: string[];
  /** Versions of each zone kept for IXFR (zone-journal.ts). */
  ixfrHistory: number;
  plan: PlanLimits;
  /** Extra processes answering DNS over UDP (undefined: one per extra core, at most 3). */
  dnsWorkers: number | undefined;
  /** Serve the DNS thread's UDP through the native addon when it loads (`--dns-native-udp`, default on). */
  dnsNativeUdp: boolean;
  /** S3-compatible API listener; undefined when turned off (`--s3 off`). */
  s3: ListenAddress | undefined;
  /** S3 credentials; generated into the data folder on first start when not configured. */
  s3AccessKeyId: string | undefined;
  s3SecretAccessKey: string | undefined;
  /** Region the S3 API reports (requests may be signed for any region). */
  s3Region: string;
  /** Domain of virtual-hosted-style S3 addressing (`<bucket>.<domain>`); undefined: path-style only. */
  s3Domain: string | undefined;
  /** HTTPS on the v4 API and S3 listeners with these PEM files (`--tls-cert`, `--tls-key`); undefined: plain HTTP. */
  tls: { certFile: string; keyFile: string } | undefined;
  /** Domain of workers subdomains: `<script>.<account subdomain>.<workersDomain>` (`--workers-domain`). */
  workersDomain: string;
  /** Domain of buckets' public development hostnames: `pub-<id>.<publicDomain>` (`--public-domain`). */
  publicDomain: string;
  /** Key that encrypts script secrets at rest (`--secrets-key`); undefined: generated into the data folder. */
  secretsKey: string | undefined;
  logLevel: string;
  /** On SIGTERM/SIGINT, requests in flight get this long to finish before their connections are closed (ms). */
  shutdownTimeoutMs: number;
  /** A PostgreSQL query without an answer this long breaks its connection and fails (ms). */
  databaseTimeoutMs: number;
  /** The browser dashboard at `/` on the v4 listener (`--dashboard`, docs/dashboard.md); undefined counts as off. */
  dashboard?: boolean;
  /** Admin listener (`/healthz`, `/readyz`, `/metrics`); undefined when turned off (`--admin off`). */
  admin: ListenAddress | undefined;
  /** Log line format; undefined: pretty on a terminal, JSON otherwise (decided by the CLI). */
  logFormat: LogFormat | undefined;
  /** DNS queries logged per second and process (access lines; the rest are counted in metrics). 0: none. */
  dnsLogRate: number;
  /** Largest v4 request body in bytes (`--api-body-limit`; production's API: 100 MB on Free and Pro plans). */
  apiBodyLimit: number;
  /** Limits on abuse (`--rate-limit`, `--s3-rate-limit`, `--auth-failure-limit`; docs/security.md). */
  limits: LimitsConfig;
  /** The edge listener scripts and proxied hostnames are served on (`--edge`); undefined when turned off. */
  edge: ListenAddress | undefined;
  /** The HTTPS edge listener (`--edge-tls`; certificates per server name, `--tls-cert` the fallback); undefined when off. */
  edgeTls: ListenAddress | undefined;
  /** Where certificates come from (`--acme-*`; docs/edge.md, "Certificates"). */
  certificates: CertificatesConfig;
  /** Port of the origins proxied hostnames are forwarded to (`--origin-port`). */
  originPort: number;
  /** Port of origins reached over HTTPS (`--origin-tls-port`; zones with `ssl` full or strict). */
  originTlsPort: number;
  /** CIDRs scripts may fetch besides public addresses (`--script-outbound`). */
  scriptOutbound: string[];
  /** CIDRs proxied origins may be in besides public addresses (`--origin-allow`). */
  originAllow: string[];
  /** How long a script may keep the runtime from answering (CPU limit), ms (`--script-cpu-ms`). */
  scriptCpuMs: number;
  /** Memory limit of the node's script runtime (workerd), MiB (`--script-memory-mb`). */
  scriptMemoryMb: number;
  /** `fetch()` calls a script may make per request (`--script-subrequests`; production's free plan: 50); 0: no limit. */
  scriptSubrequests: number;
  /** Bucket binding operations a script may make per request (`--script-bucket-subrequests`; free plan: 1,000); 0: no limit. */
  scriptBucketSubrequests: number;
  /** The edge's front door (`--edge-front`): nginx, workerd, auto (nginx when installed) or off (runtime/edge-runtime.ts). */
  edgeFront: 'auto' | 'nginx' | 'workerd' | 'off';
  /** Script runtimes besides the shared one (`--edge-runtimes`): accounts' scripts are spread over them. */
  edgeRuntimes: number;
  /** nginx worker processes of the nginx front (`--edge-front-workers`; 0: one per two cores). */
  edgeFrontWorkers: number;
  /** workerd processes per script runtime (`--edge-replicas`; 0: two on two cores or more, `replicaCount`). */
  edgeReplicas: number;
  /** nginx forwards scripts' requests straight to their version's socket (`--edge-fast-path`; runtime/fast-path.ts). */
  edgeFastPath: boolean;
}

/** Request rate limits and failed-authentication throttling; a limit of 0 is off. */
export interface LimitsConfig {
  /** v4 requests per user (or account-owned token) per window (production: 1,200 per 5 minutes). */
  apiRequests: number;
  /** S3 requests per key holder per window. */
  s3Requests: number;
  /** Window of both request limits, seconds. */
  windowSeconds: number;
  /** Failed authentications per client address per failure window before the address is refused. */
  authFailures: number;
  /** Window of failed authentications, seconds. */
  authFailureWindowSeconds: number;
}


/** Default of `--api-body-limit`: 100 MB, production's API upload limit on the Free and Pro plans. */
export const DEFAULT_API_BODY_LIMIT = 100 * 1024 * 1024;

/** The production service's published IPv4 and IPv6 ranges; records may not point into them. */
export const DEFAULT_SERVICE_RANGES = [
  '173.245.48.0/20', '103.21.244.0/22', '103.22.200.0/22', '103.31.4.0/22', '141.101.64.0/18',
  '108.162.192.0/18', '190.93.240.0/20', '188.114.96.0/20', '197.234.240.0/22', '198.41.128.0/17',
  '162.158.0.0/15', '104.16.0.0/13', '104.24.0.0/14', '172.64.0.0/13', '131.0.72.0/22',
  '2400:cb00::/32', '2606:4700::/32', '2803:f800::/32', '2405:b500::/32', '2405:8100::/32',
  '2a06:98c0::/29', '2c0f:f248::/32',
];

/** The log levels `--log-level` takes (pino's). */
export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'];
/** Shortest `--auth-key` and `--api-token` accepted: production's global keys have 37 characters, tokens 40. */
const MIN_AUTH_KEY_LENGTH = 37;
const MIN_API_TOKEN_LENGTH = 40;


type Source = Record<string, string | undefined>;

/** Builds the configuration from parsed flags (`{ 'data-dir': '...' }`) and an environment. */
export function loadConfig(flags: Source = {}, env: Source = {}): Config {
  const get = (name: string): string | undefined => {
    const flag = flags[name];
    if (flag !== undefined) return flag;
    return env[`STRATUS_${name.toUpperCase().replace(/-/g, '_')}`];
  };
  const list = (name: string, fallback: string[]): string[] => {
    const raw = get(name);
    if (raw === undefined) return fallback;
    return raw.split(',').map((s) => s.trim()).filter(Boolean);
  };
  const int = (name: string, fallback: number, min: number, max: number): number => intFlag(get, name, fallback, min, max);

  const apiDate = get('api-date');
  if (apiDate !== undefined && !isCalendarDate(apiDate)) {
    throw new ConfigError(`--api-date must be a date YYYY-MM-DD, got "${apiDate}"`);
  }
  const dataDir = path.resolve(get('data-dir') ?? './.stratus');
  const logLevel = get('log-level') ?? 'info';
  if (!LOG_LEVELS.includes(logLevel)) throw new ConfigError(`--log-level must be one of ${LOG_LEVELS.join(', ')}, got "${logLevel}"`);
  const authKey = get('auth-key');
  if (authKey !== undefined && authKey.length < MIN_AUTH_KEY_LENGTH) throw new ConfigError(`--auth-key must be at least ${MIN_AUTH_KEY_LENGTH} characters (production's global keys are 37), got ${authKey.length}`);
  const apiToken = get('api-token');
  if (apiToken !== undefined && apiToken.length < MIN_API_TOKEN_LENGTH) throw new ConfigError(`--api-token must be at least ${MIN_API_TOKEN_LENGTH} characters (production's tokens are 40), got ${apiToken.length}`);
  const nameservers = list('nameservers', ['ns1.stratus.invalid', 'ns2.stratus.invalid']).map((n) => n.toLowerCase().replace(/\.$/, ''));
  const poolRaw = get('name-server-pool');
  const nameServerPool = poolNames(poolRaw?.trim().toLowerCase() === 'off' ? 'off' : poolRaw === undefined ? DEFAULT_POOL_LABELS : poolRaw.split(','), nameservers);
  if (typeof nameServerPool === 'string') throw new ConfigError(nameServerPool);
  return {
    dataDir,
    http: parseListen(get('http') ?? '127.0.0.1:8787', 'http'),
    dns: parseListen(get('dns') ?? '127.0.0.1:1053', 'dns'),
    apiDate,
    authEmail: get('auth-email'),
    authKey,
    apiToken,
    databaseUrl: get('database-url'),
    blobsDir: path.resolve(get('blobs-dir') ?? dataPath(dataDir, BLOBS)),
    blobsS3: blobsS3Config(get),
    nameservers,
    nameServerPool,
    zoneNameAllow: list('zone-name-allow', []).map((n) => n.toLowerCase().replace(/\.$/, '')),
    serviceRanges: list('service-ranges', DEFAULT_SERVICE_RANGES),
    edgeIpv4: list('edge-ipv4', ['192.0.2.10', '192.0.2.11']),
    edgeIpv6: list('edge-ipv6', ['2001:db8::10', '2001:db8::11']),
    transferAllow: list('transfer-allow', ['127.0.0.1', '::1']),
    notify: list('notify', []),
    transferPeerAllow: list('transfer-peer-allow', []).map((c) => parseCidr(c, 'transfer-peer-allow')),
    ixfrHistory: int('ixfr-history', 100, 0, 100_000),
    plan: {
      commentMaxLength: int('comment-max-length', 500, 1, 100_000),
      tagsPerRecord: int('tags-per-record', 20, 0, 1000),
      minTtl: int('min-ttl', 60, 1, 86400),
      recordsPerZone: int('records-per-zone', 1_000_000, 1, 100_000_000),
      recordsPerBatch: int('records-per-batch', 3500, 1, 1_000_000),
    },
    dnsWorkers: get('dns-workers') === undefined ? undefined : int('dns-workers', 0, 0, 16),
    dnsNativeUdp: onOff(get('dns-native-udp'), 'dns-native-udp', true),
    s3: get('s3') === 'off' ? undefined : parseListen(get('s3') ?? '127.0.0.1:8788', 's3'),
    s3AccessKeyId: get('s3-access-key-id'),
    s3SecretAccessKey: get('s3-secret-access-key'),
    s3Region: get('s3-region') ?? 'auto',
    s3Domain: s3Domain(get('s3-domain')),
    tls: tlsFiles(get('tls-cert'), get('tls-key')),
    workersDomain: dnsName(get('workers-domain') ?? 'workers.localhost', 'workers-domain', 'workers.example.com'),
    publicDomain: dnsName(get('public-domain') ?? 'r2.localhost', 'public-domain', 'r2.example.com'),
    secretsKey: get('secrets-key'),
    logLevel,
    shutdownTimeoutMs: int('shutdown-timeout', 30, 0, 3600) * 1000,
    databaseTimeoutMs: int('database-timeout', 30, 1, 3600) * 1000,
    dashboard: onOff(get('dashboard'), 'dashboard', true),
    admin: get('admin') === 'off' ? undefined : parseListen(get('admin') ?? '127.0.0.1:9464', 'admin'),
    logFormat: logFormat(get('log-format')),
    dnsLogRate: int('dns-log-rate', 100, 0, 1_000_000),
    apiBodyLimit: int('api-body-limit', DEFAULT_API_BODY_LIMIT, 1024, 2 ** 31),
    limits: {
      apiRequests: int('rate-limit', 1200, 0, 100_000_000),
      s3Requests: int('s3-rate-limit', 0, 0, 100_000_000),
      windowSeconds: int('rate-limit-window', 300, 1, 86_400),
      authFailures: int('auth-failure-limit', 20, 0, 1_000_000),
      authFailureWindowSeconds: int('auth-failure-window', 300, 1, 86_400),
    },
    edge: get('edge') === 'off' ? undefined : parseListen(get('edge') ?? '127.0.0.1:8080', 'edge'),
    edgeTls: edgeTlsListen(get('edge-tls'), get('edge')),
    certificates: certificatesConfig(get),
    originPort: int('origin-port', 80, 1, 65535),
    originTlsPort: int('origin-tls-port', 443, 1, 65535),
    scriptOutbound: list('script-outbound', []).map((c) => parseCidr(c, 'script-outbound')),
    originAllow: list('origin-allow', []).map((c) => parseCidr(c, 'origin-allow')),
    ...scriptLimitsConfig(get),
    edgeFront: edgeFrontChoice(get('edge-front')),
    edgeRuntimes: int('edge-runtimes', 4, 0, 64),
    edgeFrontWorkers: int('edge-front-workers', 0, 0, 1024),
    edgeReplicas: int('edge-replicas', 0, 0, 16),
    edgeFastPath: onOff(get('edge-fast-path'), 'edge-fast-path', true),
  };
}


/** The limits of scripts on the node (`--script-cpu-ms`, `--script-memory-mb`, `--script-subrequests`, `--script-bucket-subrequests`): `serve` and `dev` read them here. */
export type ScriptLimitsConfig = Pick<Config, 'scriptCpuMs' | 'scriptMemoryMb' | 'scriptSubrequests' | 'scriptBucketSubrequests'>;

/** Reads the script limit flags (flags.ts rows shared by `serve` and `dev`). */
export function scriptLimitsConfig(get: (name: string) => string | undefined): ScriptLimitsConfig {
  return {
    scriptCpuMs: intFlag(get, 'script-cpu-ms', 30_000, 10, 900_000),
    scriptMemoryMb: intFlag(get, 'script-memory-mb', 1024, 64, 65536),
    scriptSubrequests: intFlag(get, 'script-subrequests', 50, 0, 10_000_000),
    scriptBucketSubrequests: intFlag(get, 'script-bucket-subrequests', 1000, 0, 10_000_000),
  };
}

/** `--edge-tls`: off by default; it needs the edge (`--edge`). Certificates come from the store (`--tls-cert`: the fallback). */
function edgeTlsListen(value: string | undefined, edge: string | undefined): ListenAddress | undefined {
  if (value === undefined || value === '' || value === 'off') return undefined;
  if (edge === 'off') throw new ConfigError('--edge-tls needs the edge listener: --edge is off');
  return parseListen(value, 'edge-tls');
}


/** The TLS files: both flags or neither (the files themselves are checked at start, `shared/tls-files.ts`). */
function tlsFiles(cert: string | undefined, key: string | undefined): Config['tls'] {
  if (cert === undefined && key === undefined) return undefined;
  if (cert === undefined || cert === '') throw new ConfigError('--tls-key needs --tls-cert (the certificate chain, PEM) as well');
  if (key === undefined || key === '') throw new ConfigError('--tls-cert needs --tls-key (its private key, PEM) as well');
  return { certFile: path.resolve(cert), keyFile: path.resolve(key) };
}

/** Reads `--edge-front`: auto, nginx, workerd or off (`on`, its earlier spelling, is auto). */
function edgeFrontChoice(value: string | undefined): Config['edgeFront'] {
  if (value === undefined || value === 'on') return 'auto';
  if (value === 'auto' || value === 'nginx' || value === 'workerd' || value === 'off') return value;
  throw new ConfigError(`--edge-front must be auto, nginx, workerd or off, got "${value}"`);
}

/** Reads an `on`/`off` flag. */
function onOff(value: string | undefined, name: string, fallback: boolean): boolean {
  if (value === undefined) return fallback;
  if (value === 'on' || value === 'off') return value === 'on';
  throw new ConfigError(`--${name} must be on or off, got "${value}"`);
}

/** Validates `ADDRESS/PREFIX` (a bare address is a single host) and returns it in CIDR form. */
export function parseCidr(value: string, name: string): string {
  const [address, prefix, extra] = value.split('/');
  const family = net.isIP(address ?? '');
  const max = family === 6 ? 128 : 32;
  const bits = prefix === undefined ? max : Number(prefix);
  if (family === 0 || extra !== undefined || !Number.isInteger(bits) || bits < 0 || bits > max || (prefix !== undefined && !/^\d+$/.test(prefix))) {
    throw new ConfigError(`--${name} must be a list of CIDRs such as 10.0.0.0/8 or 2001:db8::/32, got "${value}"`);
  }
  return `${address}/${bits}`;
}

/** `--s3-domain`: a DNS name (lowercased, surrounding dots dropped), or undefined when not set. */
function s3Domain(value: string | undefined): string | undefined {
  if (value === undefined) return undefined;
  const domain = value.trim().toLowerCase().replace(/^\.+|\.+$/g, '');
  const label = '[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?';
  if (domain.length > 253 || !new RegExp(`^${label}(?:\\.${label})*$`).test(domain)) {
    throw new ConfigError(`--s3-domain must be a DNS name such as s3.example.com (no scheme or port), got "${value}"`);
  }
  return domain;
}

/** `--log-format`: json, pretty, or undefined when not set. */
function logFormat(value: string | undefined): LogFormat | undefined {
  if (value === undefined) return undefined;
  if (value === 'json' || value === 'pretty') return value;
  throw new ConfigError(`--log-format must be json or pretty, got "${value}"`);
}

/** A DNS name flag's value (`--workers-domain`), lowercased, surrounding dots dropped. */
function dnsName(value: string, flag: string, example: string): string {
  const domain = value.trim().toLowerCase().replace(/^\.+|\.+$/g, '');
  const label = '[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?';
  if (domain.length > 253 || !new RegExp(`^${label}(?:\\.${label})*$`).test(domain)) {
    throw new ConfigError(`--${flag} must be a DNS name such as ${example} (no scheme or port), got "${value}"`);
  }
  return domain;
}

/** Parses `HOST:PORT` (IPv6 hosts in brackets). */
export function parseListen(value: string, name: string): ListenAddress {
  const m = /^(?:\[([^\]]+)\]|([^:]+)):(\d+)$/.exec(value);
  if (!m) throw new ConfigError(`--${name} must be HOST:PORT, got "${value}"`);
  const port = Number(m[3]);
  if (port > 65535) throw new ConfigError(`--${name} port must be at most 65535, got ${port}`);
  return { host: (m[1] ?? m[2])!, port };
}

/** True for a real calendar date written YYYY-MM-DD. */
export function isCalendarDate(value: string): boolean {
  if (!/^\d{4}-\d{2}-\d{2}$/.test(value)) return false;
  const d = new Date(`${value}T00:00:00Z`);
  return !Number.isNaN(d.getTime()) && d.toISOString().slice(0, 10) === value;
}
