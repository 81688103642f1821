/**
 * The flag table: every flag of every `stratus` command, with its environment variable, value, default and
 * one-line help. It drives parsing (unknown flags and missing values are refused, src/config/args.ts), each
 * command's `--help` (src/config/help.ts) and the flags table of docs/configuration.md (checked by a test). A flag read in
 * config.ts (`get('name')`) needs a row here with `serve` among its commands; src/config/flags.test.ts fails
 * otherwise. Keep rows grouped by area; add a row next to its neighbours.
 */

/** The commands that take flags. */
export type FlagCommand = 'serve' | 'dev' | 'user' | 'credentials' | 'zone import' | 'zone export' | 'backup' | 'restore' | 'ca';

/** One flag. */
export interface FlagSpec {
  /** Name without the leading dashes (`data-dir`). */
  name: string;
  /** Placeholder of its value in help (`HOST:PORT`); absent for a switch (`--x` alone means `true`). */
  value?: string;
  /** The default as help shows it. */
  default: string;
  /** One line of help. */
  help: string;
  /** The commands that take it. */
  commands: readonly FlagCommand[];
  /** False when the flag has no environment variable; a name when it is not `STRATUS_<NAME>` (the client flags take wrangler's). */
  env?: false | string;
}

const S: readonly FlagCommand[] = ['serve'];
const STORE: readonly FlagCommand[] = ['serve', 'user', 'ca'];
/** The script runtime's flags: `stratus serve --edge` and `stratus dev` take the same. */
const SD: readonly FlagCommand[] = ['serve', 'dev'];
const ZONE: readonly FlagCommand[] = ['zone import', 'zone export'];

/** Every flag. */
export const FLAGS: readonly FlagSpec[] = [
  // Data and stores.
  { name: 'data-dir', value: 'DIR', default: './.stratus', help: 'data folder: embedded SQLite database, object files, generated credentials', commands: ['serve', 'dev', 'user', 'credentials', 'backup', 'restore', 'ca'] },
  { name: 'database-url', value: 'URL', default: 'embedded SQLite', help: 'PostgreSQL connection string (postgres://user@host/db) for zones, records and bucket metadata; nodes may share it', commands: STORE },
  { name: 'database-timeout', value: 'S', default: '30', help: 'a PostgreSQL query without an answer for S seconds fails (503) and its connection is replaced', commands: STORE },
  { name: 'blobs-dir', value: 'DIR', default: 'DATA_DIR/blobs', help: 'folder of object bodies; nodes sharing a PostgreSQL database share it too', commands: ['serve', 'backup', 'restore'] },
  { name: 'blobs-s3-bucket', value: 'NAME', default: 'off', help: 'object bodies in this bucket of an S3-compatible store instead of --blobs-dir', commands: S },
  { name: 'blobs-s3-endpoint', value: 'URL', default: 'AWS S3', help: 'service URL of the blob store', commands: S },
  { name: 'blobs-s3-region', value: 'NAME', default: 'auto', help: 'region of the blob store', commands: S },
  { name: 'blobs-s3-prefix', value: 'PREFIX', default: 'blobs/', help: 'key prefix of object bodies in the blob store', commands: S },
  { name: 'blobs-s3-access-key-id', value: 'ID', default: 'AWS credential chain', help: 'access key id of the blob store (with --blobs-s3-secret-access-key)', commands: S },
  { name: 'blobs-s3-secret-access-key', value: 'SECRET', default: 'AWS credential chain', help: 'secret access key of the blob store', commands: S },
  { name: 'blobs-s3-path-style', value: 'true|false', default: 'true with --blobs-s3-endpoint', help: 'path-style requests to the blob store', commands: S },
  // Listeners.
  { name: 'http', value: 'HOST:PORT', default: '127.0.0.1:8787', help: 'HTTP listener (the v4 API; the script under stratus dev); port 0 picks a free port', commands: ['serve', 'dev', 'credentials'] },
  { name: 'dns', value: 'HOST:PORT', default: '127.0.0.1:1053', help: 'DNS listener, UDP and TCP; port 0 picks a free port', commands: S },
  { name: 's3', value: 'HOST:PORT|off', default: '127.0.0.1:8788', help: 'S3-compatible API listener; off turns it off', commands: ['serve', 'credentials'] },
  { name: 'tls-cert', value: 'FILE', default: 'off (plain HTTP)', help: 'HTTPS on the v4 API and S3 listeners (and the --edge-tls fallback for names without a certificate) with this PEM certificate chain (with --tls-key); SIGHUP reloads both files', commands: S },
  { name: 'tls-key', value: 'FILE', default: 'off', help: 'the PEM private key of --tls-cert', commands: S },
  { name: 'dns-workers', value: 'N', default: '1', help: '1 (any N from 1 to 16 counts as 1): one DNS thread holds the zones and answers every DNS query (UDP, TCP, AXFR, signing) off the API thread, and is restarted if it dies; 0: the main thread holds the zones and answers', commands: S },
  { name: 'dns-native-udp', value: 'on|off', default: 'on', help: "on: the DNS thread serves UDP through the native addon built at npm install (batched recvmmsg/sendmmsg, packet-cache hits answered natively) when it loads, else in JavaScript; off: always in JavaScript (Node's dgram)", commands: S },
  // Credentials.
  { name: 'auth-email', value: 'EMAIL', default: 'generated', help: 'admin e-mail, created or updated at start (with --auth-key)', commands: S },
  { name: 'auth-key', value: 'KEY', default: 'generated', help: "admin global API key (generated ones are saved in DATA_DIR/credentials.json)", commands: S },
  { name: 'api-token', value: 'TOKEN', default: 'generated', help: "an API token (Authorization: Bearer) with every permission on the admin's accounts", commands: S },
  { name: 's3-access-key-id', value: 'ID', default: 'generated', help: 'the S3 key id (with --s3-secret-access-key; generated ones are saved in DATA_DIR/s3-credentials.json)', commands: S },
  { name: 's3-secret-access-key', value: 'SECRET', default: 'generated', help: 'the S3 secret access key', commands: S },
  // S3 API.
  { name: 's3-region', value: 'NAME', default: 'auto', help: 'region the S3 API reports; requests may be signed for any region', commands: ['serve', 'credentials'] },
  { name: 's3-domain', value: 'DOMAIN', default: 'path-style only', help: 'also address buckets virtual-hosted style: Host BUCKET.DOMAIN', commands: S },
  // DNS API and server.
  { name: 'api-date', value: 'YYYY-MM-DD', default: 'today', help: 'the date requests without an api-version header are served as of (docs/deprecations.md)', commands: S },
  { name: 'nameservers', value: 'A,B', default: 'ns1.stratus.invalid,ns2.stratus.invalid', help: 'name servers assigned to new zones; their domain cannot be added as a zone', commands: S },
  { name: 'name-server-pool', value: 'LABEL,…|off', default: 'ada,bob,cruz,… (24 labels)', help: "each account's zones get a stable pair of LABEL.<domain of --nameservers> (the admin's keep --nameservers); a delegation to another account's zone must name its pair; off: every account gets --nameservers", commands: S },
  { name: 'zone-name-allow', value: 'NAME,…', default: 'none', help: 'let tenants add these names and those below them even when public suffixes or the instance\'s own (docs/security.md)', commands: S },
  { name: 'service-ranges', value: 'CIDR,…', default: "the production service's published ranges", help: 'A/AAAA content inside them is refused', commands: S },
  { name: 'edge-ipv4', value: 'IP,…', default: '192.0.2.10,192.0.2.11', help: 'IPv4 addresses proxied records answer with over DNS', commands: S },
  { name: 'edge-ipv6', value: 'IP,…', default: '2001:db8::10,2001:db8::11', help: 'IPv6 addresses proxied records answer with over DNS', commands: S },
  { name: 'transfer-allow', value: 'IP,…', default: '127.0.0.1,::1', help: 'hosts allowed to transfer zones (AXFR, IXFR) that have no outgoing settings (/zones/:id/secondary_dns/outgoing)', commands: S },
  { name: 'transfer-peer-allow', value: 'CIDR,…', default: 'none', help: 'private ranges secondary DNS peers (/accounts/:id/secondary_dns/peers) may be in (public addresses always; loopback, private and Stratus itself never otherwise: error 1294)', commands: S },
  { name: 'notify', value: 'HOST:PORT,…', default: 'none', help: 'secondaries sent NOTIFY on every change of zones that have no outgoing settings', commands: S },
  { name: 'ixfr-history', value: 'N', default: '100', help: 'versions of each zone kept for IXFR (in memory, and in the database across restarts); older serials get a full transfer (0: IXFR always answered with the whole zone)', commands: S },
  // Plan limits.
  { name: 'comment-max-length', value: 'N', default: '500', help: 'longest record comment (plan limit)', commands: S },
  { name: 'tags-per-record', value: 'N', default: '20', help: 'most tags on one record (plan limit)', commands: S },
  { name: 'min-ttl', value: 'S', default: '60', help: 'lowest TTL besides 1 (Auto) (plan limit)', commands: S },
  { name: 'records-per-zone', value: 'N', default: '1000000', help: 'most records in one zone (plan limit)', commands: S },
  { name: 'records-per-batch', value: 'N', default: '3500', help: 'most record operations in one batch request (plan limit)', commands: S },
  // Edge (docs/edge.md, docs/runtime.md).
  { name: 'edge', value: 'HOST:PORT|off', default: '127.0.0.1:8080', help: 'edge listener: deployed scripts on their routes and proxied hostnames (workerd); off turns it off', commands: S },
  { name: 'edge-tls', value: 'HOST:PORT|off', default: 'off', help: 'HTTPS edge listener: each server name gets its certificate from the store (universal, advanced, custom; --tls-cert the fallback); acts on zones\' always_use_https, ssl, min_tls_version, tls_1_3, security_header and automatic_https_rewrites; nginx ends TLS with the nginx front and its stream module, else Node (docs/edge.md)', commands: S },
  { name: 'acme-directory', value: 'URL', default: 'off (the local CA)', help: 'ACME v2 directory certificates are ordered from, validated by DNS-01 on Stratus\'s own DNS; without it a local CA in the store issues them (`stratus ca export`)', commands: S },
  { name: 'acme-email', value: 'EMAIL', default: 'none', help: 'contact e-mail of the ACME account', commands: S },
  { name: 'acme-ca-file', value: 'FILE', default: 'system CAs', help: 'PEM file of extra CAs trusted for the ACME server\'s own HTTPS (private CAs, tests)', commands: S },
  { name: 'acme-eab-kid', value: 'KID', default: 'none', help: 'External Account Binding key id, for CAs that need one (with --acme-eab-hmac-key)', commands: S },
  { name: 'acme-eab-hmac-key', value: 'KEY', default: 'none', help: 'External Account Binding HMAC key (base64url)', commands: S },
  { name: 'acme-renew-days', value: 'N', default: '30', help: 'certificates are renewed this many days before they expire', commands: S },
  { name: 'origin-port', value: 'PORT', default: '80', help: 'port of the origins proxied hostnames without a route are forwarded to', commands: S },
  { name: 'origin-allow', value: 'CIDR,…', default: 'none', help: 'private ranges proxied origins may be in (public addresses always; loopback, private and Stratus itself never otherwise: error 1000)', commands: S },
  { name: 'origin-tls-port', value: 'PORT', default: '443', help: "port of origins reached over HTTPS, for zones whose ssl setting is full (any certificate) or strict (a valid one)", commands: S },
  { name: 'workers-domain', value: 'DOMAIN', default: 'workers.localhost', help: 'SCRIPT.ACCOUNT-SUBDOMAIN.DOMAIN runs a script whose workers subdomain is enabled', commands: S },
  { name: 'public-domain', value: 'DOMAIN', default: 'r2.localhost', help: "public development hostnames of buckets (pub-ID.DOMAIN) served on --edge", commands: S },
  { name: 'secrets-key', value: 'KEY', default: 'generated into DATA_DIR/edge-secrets-key.json', help: '32 bytes (base64 or 64 hex digits) encrypting Worker secrets, DNSSEC zone keys and certificate keys at rest; nodes on one PostgreSQL need the same', commands: ['serve', 'ca'] },
  { name: 'script-outbound', value: 'CIDR,…', default: 'none', help: 'private ranges scripts may fetch (public addresses always; loopback, private and Stratus itself never otherwise)', commands: SD },
  { name: 'script-cpu-ms', value: 'MS', default: '30000', help: "a script keeping the runtime from answering this long is stopped (1102); a script's own limits.cpu_ms (wrangler's [limits]) may only lower it", commands: SD },
  { name: 'script-subrequests', value: 'N', default: '50', help: "fetch() calls a script may make per request (production's free plan; paid: 10000); past it fetch throws \"Too many subrequests.\"; a script's own limits.subrequests may only lower it; 0: no limit", commands: SD },
  { name: 'script-bucket-subrequests', value: 'N', default: '1000', help: 'bucket binding operations a script may make per request (production\'s free plan); past it they throw "Too many subrequests."; 0: no limit', commands: SD },
  { name: 'edge-front', value: 'auto|nginx|workerd|off', default: 'auto', help: "the edge's front door, a process holding client connections: auto (nginx when installed, else workerd), nginx (Debian's, started and configured by Stratus; refuses malformed framing with 400, costs less CPU, and writes every request's access record, its own answers and aborted requests included), workerd (a forwarding worker); with either, requests on a script runtime that is killed get the 1102 page and chunked bodies count against the body limit; off has neither", commands: S },
  { name: 'edge-fast-path', value: 'on|off', default: 'on', help: "with the nginx front: nginx forwards a script's plain HTTP request straight to its script version's own socket, with the hostname's routes compiled into its configuration, instead of through the runtime's supervisor worker (about 3.5x the requests/s of a hello world; nginx writes their access records from the compiled routes); the same for HTTPS that nginx ends (docs/edge.md); hostnames with an origin or bucket behind their routes, versions with their own cpu_ms, HTTPS that Node ends and unusual paths keep the supervisor", commands: S },
  { name: 'edge-front-workers', value: 'N', default: '0', help: "with the nginx front: nginx's worker processes; 0: one per two cores (at least one), which measured cheaper per request than one per core where cores are few (docs/edge-performance.md, Many cores)", commands: S },
  { name: 'edge-runtimes', value: 'N', default: '4', help: "script runtimes (workerd processes): each account's scripts run in one, its own while there are at most N accounts, so one account's looping script stalls no other; 0: one runtime for all (as with --edge-front off)", commands: S },
  { name: 'edge-replicas', value: 'N', default: '0', help: "workerd processes per script runtime, each with the same script versions: nginx's fast path sends each request to the one with the fewest in flight, so one process's garbage collection (workerd's full collections stop its thread for milliseconds) holds only its own requests; each costs a runtime's memory; 0: two on two cores or more, else one (docs/edge-performance.md, Many cores)", commands: S },
  { name: 'script-memory-mb', value: 'MB', default: '1024', help: 'memory limit of each script runtime (workerd process); over it, the runtime is replaced', commands: SD },
  // Operations (docs/operations.md).
  { name: 'dashboard', value: 'on|off', default: 'on', help: 'the dashboard (docs/dashboard.md) at / on the --http listener; it calls the public v4 API (and S3 for uploads in parts) with the signed-in credential', commands: S },
  { name: 'admin', value: 'HOST:PORT|off', default: '127.0.0.1:9464', help: 'admin listener: /healthz, /readyz, /metrics (Prometheus); never on the public listeners', commands: S },
  { name: 'log-format', value: 'json|pretty', default: 'pretty on a terminal, json otherwise', help: 'log and startup lines as JSON or for people', commands: ['serve', 'dev'] },
  { name: 'dns-log-rate', value: 'N', default: '100', help: 'DNS query access lines per second and process (the rest are counted); 0 logs none', commands: S },
  { name: 'api-body-limit', value: 'BYTES', default: '104857600', help: "largest v4 request body; a larger one is refused with 413 before it is read (production's 100 MB)", commands: S },
  { name: 'rate-limit', value: 'N', default: '1200', help: "v4 requests per user (or account token) per --rate-limit-window, as production; over it 429 (971); 0 turns it off", commands: S },
  { name: 'rate-limit-window', value: 'S', default: '300', help: 'window of --rate-limit and --s3-rate-limit, in seconds', commands: S },
  { name: 's3-rate-limit', value: 'N', default: '0 (off)', help: 'S3 requests per key holder per --rate-limit-window; over it 503 SlowDown; 0 turns it off', commands: S },
  { name: 'auth-failure-limit', value: 'N', default: '20', help: 'failed authentications from one client address per --auth-failure-window before it is refused (v4 429, S3 SlowDown); slowed from half; 0 turns it off', commands: S },
  { name: 'auth-failure-window', value: 'S', default: '300', help: 'window of --auth-failure-limit, in seconds; a refused address waits out the rest of it and one more', commands: S },
  // Process.
  { name: 'log-level', value: 'LEVEL', default: 'info', help: 'fatal, error, warn, info, debug, trace or silent', commands: ['serve', 'dev'] },
  { name: 'shutdown-timeout', value: 'S', default: '30', help: 'on SIGTERM or SIGINT the process ends within S seconds: requests in flight get S less a reserve (half, at most 5 s) for closing the stores', commands: S },
  // stratus dev.
  { name: 'config', value: 'FILE', default: './stratus.toml, ./wrangler.toml, ./wrangler.json or ./wrangler.jsonc', help: 'script config (TOML or JSON: main, compatibility_date, compatibility_flags, store_buckets)', commands: ['dev'], env: false },
  { name: 'account', value: 'ID', default: "the config's account_id, else the admin's", help: "the account whose buckets the script's bindings name (the buckets S3 and the v4 API show for it)", commands: ['dev'] },
  { name: 'timeout-ms', value: 'N', default: '30000', help: 'older name of --script-cpu-ms', commands: ['dev'], env: false },
  { name: 'memory-mb', value: 'N', default: '1024', help: 'older name of --script-memory-mb', commands: ['dev'], env: false },
  // stratus user add.
  { name: 'email', value: 'EMAIL', default: 'required', help: "the user's e-mail", commands: ['user'], env: false },
  { name: 'key', value: 'KEY', default: 'generated', help: "the user's global API key", commands: ['user'], env: false },
  // stratus credentials.
  { name: 'json', default: 'off', help: 'print them as one JSON object', commands: ['credentials'], env: false },
  { name: 'env', default: 'off', help: 'print them as export lines for the AWS CLI and wrangler (eval "$(stratus credentials --env)"); the URLs name --http and --s3', commands: ['credentials'], env: false },
  // stratus zone import / export: a client of a running Stratus, configured as wrangler is (docs/clients.md, "Zone files of any size").
  { name: 'zone', value: 'NAME', default: 'required', help: 'the zone (its name, e.g. example.com)', commands: ZONE, env: false },
  { name: 'api-url', value: 'URL', default: 'http://127.0.0.1:8787/client/v4', help: 'base URL of the v4 API of the running Stratus', commands: ZONE, env: 'CLOUDFLARE_API_BASE_URL' },
  { name: 'token', value: 'TOKEN', default: 'none', help: 'API token (Authorization: Bearer); wins over --api-email/--api-key', commands: ZONE, env: 'CLOUDFLARE_API_TOKEN' },
  { name: 'api-email', value: 'EMAIL', default: 'none', help: 'e-mail of the global API key (with --api-key), instead of a token', commands: ZONE, env: 'CLOUDFLARE_EMAIL' },
  { name: 'api-key', value: 'KEY', default: 'none', help: 'global API key (with --api-email), instead of a token', commands: ZONE, env: 'CLOUDFLARE_API_KEY' },
  { name: 'proxied', default: 'off', help: 'import proxiable records (A, AAAA, CNAME) proxied, except lines whose cf_tags say cf-proxied:false', commands: ['zone import'], env: false },
  { name: 'out', value: 'FILE', default: 'standard output', help: 'write the zone file here', commands: ['zone export'], env: false },
  // stratus backup, stratus restore (docs/operations.md, "Backups").
  { name: 'to', value: 'DIR', default: 'required', help: 'the backup folder: new or empty (blobs are hard-linked when it is on the same file system)', commands: ['backup'], env: false },
  { name: 'from', value: 'DIR', default: 'required', help: 'a folder written by stratus backup', commands: ['restore'], env: false },
];

/**
 * `STRATUS_*` variables that are not flags: read by the test suite, and `STRATUS_WORKERD_V8_FLAGS` (the edge's
 * workerd V8 flags, to measure or tune them: runtime/workerd/gc-flags.ts, docs/edge.md).
 */
export const OTHER_VARIABLES: readonly string[] = ['STRATUS_TEST_POSTGRES', 'STRATUS_PROPERTY_SEED', 'STRATUS_WRITE_DOCS', 'STRATUS_WORKERD_V8_FLAGS'];

/** The environment variable of a flag (`data-dir` -> `STRATUS_DATA_DIR`). */
export function envName(name: string): string {
  return `STRATUS_${name.toUpperCase().replace(/-/g, '_')}`;
}

/** The environment variable a row reads, if any (its own name when the row gives one, else `STRATUS_<NAME>`). */
export function flagEnv(f: FlagSpec): string | undefined {
  return f.env === false ? undefined : f.env ?? envName(f.name);
}

/** The flags `command` takes, in table order. */
export function flagsOf(command: FlagCommand): FlagSpec[] {
  return FLAGS.filter((f) => f.commands.includes(command));
}

/** The row of `name`, if any. */
export function flagSpec(name: string): FlagSpec | undefined {
  return FLAGS.find((f) => f.name === name);
}
