#!/usr/bin/env node
/**
 * The `stratus` command: `stratus serve [flags]` runs the service. Flags are `--name value` or
 * `--name=value`; each also reads `STRATUS_<NAME>` from the environment.
 */
import { ConfigError, loadConfig } from './config/config.js';
import { createLogger } from './shared/logger.js';
import { startStratus, type RunningStratus } from './main.js';
import { defaultLogFormat } from './shared/log-format.js';
import { Banner } from './ops/banner.js';
import type { Config } from './config/config.js';
import { openDatabase } from './db/database.js';
import { upsertUser } from './accounts/users.js';
import { AppError } from './shared/errors.js';
import { IncidentLog } from './shared/incident-log.js';
import { DEV_USAGE, devCommand } from './runtime/dev-command.js';

const USAGE = `usage: stratus <command> [flags]

commands:
  serve     run the DNS API, the DNS server and the buckets on the configured stores
  user add --email E [--key K]
            create a user with an account of its own (or set the key of an existing user) in the
            data folder's store; prints the e-mail, key and account id. The key is generated when omitted.
${DEV_USAGE}
flags of serve (each also an environment variable STRATUS_<NAME>):
  --data-dir DIR         data folder of the embedded store (default ./.stratus)
  --http HOST:PORT       HTTP listener (default 127.0.0.1:8787; port 0 picks a free port)
  --dns HOST:PORT        DNS listener, UDP and TCP (default 127.0.0.1:1053)
  --api-date YYYY-MM-DD  the date requests without an api-version header are served as of (default today)
  --auth-email E, --auth-key K
                         the admin user's e-mail and global API key (default: generated on first start into
                         DATA_DIR/credentials.json)
  --api-token T          an API token (Authorization: Bearer) with every permission on the admin's accounts
                         (default: generated on first start with the admin credentials)
  --database-url URL     PostgreSQL connection string instead of the embedded SQLite database (zones, records
                         and bucket metadata)
  --blobs-dir DIR        folder of object bodies (default DATA_DIR/blobs; shared by nodes on one PostgreSQL)
  --blobs-s3-bucket NAME object bodies in an S3-compatible store instead; with --blobs-s3-endpoint URL,
                         --blobs-s3-region (auto), --blobs-s3-prefix (blobs/), --blobs-s3-access-key-id and
                         --blobs-s3-secret-access-key (default: the AWS credential chain)
  --dns-workers N        extra processes answering DNS over UDP (default: one per extra core, at most 3)
  --edge HOST:PORT|off   edge listener: deployed scripts and proxied hostnames by Host (default 127.0.0.1:8080)
  --origin-port N        port of the origins proxied hostnames are forwarded to (default 80)
  --script-outbound CIDRS
                         address ranges scripts may fetch besides public addresses (default none: loopback,
                         private, link-local ranges and this host's addresses are refused)
  --script-cpu-ms N      longest a script may keep the runtime busy before it is restarted (default 30000)
  --script-memory-mb N   memory limit of the script runtime process (default 1024)
  --s3 HOST:PORT|off     S3-compatible API listener (default 127.0.0.1:8788)
  --s3-access-key-id ID, --s3-secret-access-key SECRET
                         the S3 key pair (default: generated on first start into DATA_DIR/s3-credentials.json)
  --s3-region NAME       region the S3 API reports (default auto; requests may be signed for any region)
  --s3-domain DOMAIN     also address buckets virtual-hosted style: Host BUCKET.DOMAIN (default: path-style only)
  --zone-name-allow N,…  let tenants add these names and the names below them even when they are public
                         suffixes or the instance's own (name servers' domain, S3 domain); docs/security.md
  --shutdown-timeout S   on SIGTERM or SIGINT, requests in flight get S seconds to finish (default 30)
  --database-timeout S   a PostgreSQL query without an answer for S seconds fails and its connection is
                         replaced (default 30)
  --admin HOST:PORT|off  admin listener: GET /healthz, /readyz, /metrics (default 127.0.0.1:9464; keep it private)
  --log-format json|pretty
                         log lines as JSON objects or human-readable text (default: pretty on a terminal, json
                         otherwise); the startup lines follow it
  --log-level LEVEL      trace, debug, info (default; one access line per request), warn, error, silent
  --dns-log-rate N       DNS queries given an access line per second and process (default 100; 0: none; the
                         rest are counted in /metrics)
  --api-body-limit BYTES largest v4 request body; larger ones are refused with 413 before they are read
                         (default 104857600, production's 100 MB)
  --workers-domain DOMAIN
                         domain of workers subdomains: SCRIPT.ACCOUNT-SUBDOMAIN.DOMAIN runs a Worker whose
                         subdomain is enabled (default workers.localhost)
  --public-domain DOMAIN
                         domain of buckets' public development hostnames: pub-ID.DOMAIN serves a bucket's
                         objects on --edge once enabled (default r2.localhost)
  --secrets-key KEY      32 bytes (base64 or 64 hex digits) that encrypt Worker secrets at rest; nodes sharing
                         one PostgreSQL need the same key (default: generated on first start into
                         DATA_DIR/edge-secrets-key.json)
`;

/** Splits `--name value` / `--name=value` flags from positional arguments. */
export function parseArgs(argv: string[]): { positional: string[]; flags: Record<string, string> } {
  const positional: string[] = [];
  const flags: Record<string, string> = {};
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (!arg.startsWith('--')) { positional.push(arg); continue; }
    const eq = arg.indexOf('=');
    if (eq > 0) { flags[arg.slice(2, eq)] = arg.slice(eq + 1); continue; }
    const next = argv[i + 1];
    if (next === undefined || next.startsWith('--')) { flags[arg.slice(2)] = 'true'; continue; }
    flags[arg.slice(2)] = next;
    i++;
  }
  return { positional, flags };
}

async function main(argv: string[]): Promise<number> {
  const { positional, flags } = parseArgs(argv);
  const command = positional[0];
  if (command === undefined || flags.help !== undefined || command === 'help') {
    process.stdout.write(USAGE);
    return command === undefined ? 2 : 0;
  }
  if (command === 'user') return userCommand(positional.slice(1), flags);
  if (command === 'dev') return devCommand(positional.slice(1), flags);
  if (command !== 'serve') {
    process.stderr.write(`stratus: unknown command "${command}"\n\n${USAGE}`);
    return 2;
  }
  const config = loadConfig(flags, process.env);
  const format = config.logFormat ?? defaultLogFormat(process.stdout.isTTY);
  const logger = createLogger(config.logLevel, format);
  const running = await startStratus({ ...config, logFormat: format }, logger);
  // A promise nobody awaited must not stop DNS, the v4 API and S3 together: log it (once per incident) instead.
  const stray = new IncidentLog(logger);
  process.on('unhandledRejection', (reason) => stray.failure(`unhandled promise rejection: ${reason instanceof Error ? reason.message : String(reason)}`, reason, 'unhandled promise rejection (a bug: please report it)'));
  const banner = new Banner(format, logger);
  printListeners(banner, running, config);
  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) {
      banner.say(`${signal} again, exiting without waiting`, { signal });
      process.exit(1);
    }
    stopping = true;
    banner.say(`${signal}, stopping (requests in flight get up to ${config.shutdownTimeoutMs / 1000} s)`, { signal });
    // The stores' own close has no deadline of its own: bound the whole stop.
    setTimeout(() => { logger.error('stopping took too long; exiting'); process.exit(1); }, config.shutdownTimeoutMs + STORE_CLOSE_MS).unref();
    running.close().then(() => {
      banner.say('stopped');
      process.exit(0);
    }, (err) => { logger.error({ err }, 'error while stopping'); process.exit(1); });
  };
  process.on('SIGINT', () => stop('SIGINT'));
  process.on('SIGTERM', () => stop('SIGTERM'));
  return -1;
}

/** The listeners' addresses and any credentials generated at this start. */
function printListeners(banner: Banner, running: RunningStratus, config: Config): void {
  banner.say(`v4 API listening on ${running.httpUrl}/client/v4 (HTTP)`, { listener: 'v4', url: `${running.httpUrl}/client/v4` });
  const dnsHost = running.dnsHost.includes(':') ? `[${running.dnsHost}]` : running.dnsHost;
  banner.say(`DNS listening on ${dnsHost}:${running.dnsPort} (UDP and TCP)`, { listener: 'dns', host: running.dnsHost, port: running.dnsPort });
  if (running.s3Url) banner.say(`S3 API listening on ${running.s3Url} (${config.s3Domain ? `path-style, or virtual-hosted as BUCKET.${config.s3Domain}` : 'path-style addressing'})`, { listener: 's3', url: running.s3Url });
  if (running.edgeUrl) banner.say(`edge listening on ${running.edgeUrl} (scripts and proxied hostnames, in workerd)`, { listener: 'edge', url: running.edgeUrl });
  if (running.adminUrl) banner.say(`admin listening on ${running.adminUrl} (/healthz, /readyz, /metrics)`, { listener: 'admin', url: running.adminUrl });
  const generated = running.generatedCredentials;
  if (generated) {
    banner.secret(`generated admin credentials (shown once; saved in ${generated.file})`,
      [`X-Auth-Email: ${generated.email}`, `X-Auth-Key:   ${generated.key}`, `Authorization: Bearer ${generated.apiToken}`],
      { file: generated.file, email: generated.email });
  }
  const s3Generated = running.generatedS3Credentials;
  if (s3Generated) {
    banner.secret(`generated S3 credentials (shown once; saved in ${s3Generated.file})`,
      [`access key id:     ${s3Generated.accessKeyId}`, `secret access key: ${s3Generated.secretAccessKey}`],
      { file: s3Generated.file, accessKeyId: s3Generated.accessKeyId });
  }
  if (running.generatedSecretsKeyFile) {
    banner.say(`generated the key that encrypts Worker secrets into ${running.generatedSecretsKeyFile}; other nodes on this database need it as --secrets-key`,
      { file: running.generatedSecretsKeyFile });
  }
}

/** Time the stores get to close after the listeners stopped, on top of the shutdown timeout. */
const STORE_CLOSE_MS = 15_000;

/** `stratus user add --email E [--key K] [--data-dir DIR]`. */
async function userCommand(args: string[], flags: Record<string, string>): Promise<number> {
  if (args[0] !== 'add' || flags.email === undefined || flags.email === 'true') {
    process.stderr.write(`stratus: usage: stratus user add --email E [--key K] [--data-dir DIR]\n`);
    return 2;
  }
  const config = loadConfig(flags, process.env);
  const database = await openDatabase({ dataDir: config.dataDir, url: config.databaseUrl });
  try {
    const user = await upsertUser(database.db, { email: flags.email, ...(flags.key !== undefined ? { key: flags.key } : {}) });
    process.stdout.write(`${user.created ? 'created' : 'updated'} user ${user.email}\n  X-Auth-Key: ${user.key}\n  account id: ${user.accountId}\n`);
    return 0;
  } finally {
    await database.close();
  }
}

main(process.argv.slice(2)).then(
  (code) => { if (code >= 0) process.exit(code); },
  (err: unknown) => {
    if (err instanceof ConfigError || err instanceof AppError) { process.stderr.write(`stratus: ${err.message}\n`); process.exit(2); }
    process.stderr.write(`stratus: ${err instanceof Error ? err.stack : String(err)}\n`);
    process.exit(1);
  },
);
