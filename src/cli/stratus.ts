/**
 * The `stratus` command (loaded by src/cli.ts once the Node.js version is known to be supported): `stratus <command> [flags]`. Flags are `--name value` or `--name=value`, checked
 * against the flag table (config/flags.ts: an unknown flag stops the command); each also reads
 * `STRATUS_<NAME>` from the environment (the `zone` client commands read wrangler's `CLOUDFLARE_*` variables).
 * `--help` on any command lists its flags; `--version`.
 */
import { ConfigError, loadConfig } from '../config/config.js';
import { parseArgs, closest, unknownVariables } from '../config/args.js';
import { COMMANDS, commandHelp, mainHelp } from '../config/help.js';
import type { FlagCommand } from '../config/flags.js';
import { createLogger } from '../shared/logger.js';
import { startStratus, type RunningStratus } from '../main.js';
import { defaultLogFormat } from '../shared/log-format.js';
import { Banner } from '../ops/banner.js';
import type { Config } from '../config/config.js';
import { openDatabase } from '../db/database.js';
import { upsertUser } from '../accounts/users.js';
import { AppError } from '../shared/errors.js';
import { IncidentLog } from '../shared/incident-log.js';
import { devCommand } from '../runtime/dev-command.js';
import { preflight } from './preflight.js';
import { checkListeners, listenFailure } from './start-errors.js';
import { formatCredentials, readSavedCredentials } from './credentials-command.js';
import { formatEnv } from './credentials-env.js';
import { packageVersion } from './version.js';
import { stopWithNpmParent } from './parent-watch.js';
import { zoneCommand, zoneHelp } from './zone-command.js';
import { backupCommand, restoreCommand } from './backup-command.js';
import { localRoot } from '../certs/local-ca.js';
import { resolveSecretsKey, SecretBox } from '../scripts/secret-box.js';
import { systemClock } from '../shared/clock.js';

async function main(argv: string[]): Promise<number> {
  const first = argv[0] !== undefined && !argv[0].startsWith('-') ? argv[0] : undefined;
  const names = [...new Set(COMMANDS.map((c) => c.name.split(' ')[0]!))];
  if (first !== undefined && first !== 'help' && !names.includes(first)) {
    const near = closest(first, names);
    throw new ConfigError(`unknown command "${first}"${near ? ` (did you mean ${near}?)` : ''}; see stratus --help`);
  }
  if (first === 'zone') return zoneCommand(argv.slice(1));
  const command = first === undefined || first === 'help' ? undefined : first as FlagCommand;
  const args = parseArgs(argv.slice(first === undefined ? 0 : 1), command);
  if (args.version) { process.stdout.write(`${packageVersion()}\n`); return 0; }
  if (command === undefined) {
    const topic = first === 'help' ? args.positional[0] : undefined;
    if (topic === 'zone') { process.stdout.write(zoneHelp()); return 0; }
    if (topic !== undefined && names.includes(topic)) { process.stdout.write(commandHelp(topic as FlagCommand)); return 0; }
    const help = mainHelp(packageVersion());
    if (args.help || first === 'help') { process.stdout.write(help); return 0; }
    process.stderr.write(help);
    return 2;
  }
  if (args.help) { process.stdout.write(commandHelp(command)); return 0; }
  for (const warning of unknownVariables(process.env)) process.stderr.write(`stratus: warning: ${warning}\n`);
  const { positional, flags } = args;
  if (command === 'user') return userCommand(positional, flags);
  if (command === 'dev') return devCommand(positional, flags);
  if (command === 'credentials') return credentialsCommand(positional, flags);
  if (command === 'backup') return backupCommand(positional, flags);
  if (command === 'restore') return restoreCommand(positional, flags);
  if (command === 'ca') return caCommand(positional, flags);
  if (positional.length > 0) throw new ConfigError(`stratus serve takes no arguments, got "${positional.join(' ')}"; see stratus serve --help`);
  return serveCommand(flags);
}

/** `stratus serve`: checks the listeners' addresses and the stores, starts, prints the listeners (and generated credentials), stops on a signal. */
async function serveCommand(flags: Record<string, string>): Promise<number> {
  const config = loadConfig(flags, process.env);
  const format = config.logFormat ?? defaultLogFormat(process.stdout.isTTY);
  const logger = createLogger(config.logLevel, format);
  // Every address is tried before anything is written (the data folder, the database, generated credentials).
  await checkListeners(config);
  await preflight(config);
  let running: RunningStratus;
  try {
    running = await startStratus({ ...config, logFormat: format }, logger);
  } catch (err) {
    const line = listenFailure(err, config);
    if (line !== undefined) throw new ConfigError(line);
    throw err;
  }
  // A promise nobody awaited must not stop DNS, the v4 API and S3 together: log it (once per incident) instead.
  const stray = new IncidentLog(logger);
  process.on('unhandledRejection', (reason) => stray.failure(`unhandled promise rejection: ${reason instanceof Error ? reason.message : String(reason)}`, reason, 'unhandled promise rejection (a bug: please report it)'));
  const banner = new Banner(format, logger);
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
  // SIGHUP (the terminal closed) stops as SIGINT does; with TLS it reloads the certificate instead (docs/operations.md).
  process.on('SIGHUP', () => (config.tls ? reloadCertificate(running, banner, logger) : stop('SIGHUP')));
  process.on('SIGINT', () => stop('SIGINT'));
  process.on('SIGTERM', () => stop('SIGTERM'));
  stopWithNpmParent(process.env, () => stop('parent process (npm) exited'));
  // Announced once the signals are handled: whoever reads the addresses may signal at once.
  printListeners(banner, running, config);
  return -1;
}

/** SIGHUP: the v4 API and S3 listeners take the certificate files again; a bad file keeps the current one. */
function reloadCertificate(running: RunningStratus, banner: Banner, logger: ReturnType<typeof createLogger>): void {
  try {
    const tls = running.reloadTls();
    banner.say(`SIGHUP: TLS certificate reloaded (serial ${tls.serial}, valid until ${tls.validTo}); open connections keep the previous one`, { signal: 'SIGHUP', serial: tls.serial });
  } catch (err) {
    logger.error({ signal: 'SIGHUP' }, `SIGHUP: TLS certificate not reloaded, still serving the previous one: ${(err as Error).message}`);
  }
}

/** The listeners' addresses and any credentials generated at this start. */
function printListeners(banner: Banner, running: RunningStratus, config: Config): void {
  const scheme = running.tls ? `HTTPS, certificate serial ${running.tls.serial}` : 'HTTP';
  banner.say(`v4 API listening on ${running.httpUrl}/client/v4 (${scheme})`, { listener: 'v4', url: `${running.httpUrl}/client/v4` });
  const dnsHost = running.dnsHost.includes(':') ? `[${running.dnsHost}]` : running.dnsHost;
  const udp = running.dnsUdp.udp === 'native' ? 'UDP on the native batched path' : `UDP in JavaScript: ${running.dnsUdp.why ?? 'native path off'}`;
  banner.say(`DNS listening on ${dnsHost}:${running.dnsPort} (UDP and TCP; ${udp})`, { listener: 'dns', host: running.dnsHost, port: running.dnsPort, udp: running.dnsUdp.udp });
  if (running.s3Url) banner.say(`S3 API listening on ${running.s3Url} (${config.s3Domain ? `path-style, or virtual-hosted as BUCKET.${config.s3Domain}` : 'path-style addressing'})`, { listener: 's3', url: running.s3Url });
  if (running.edgeUrl) banner.say(`edge listening on ${running.edgeUrl} (scripts and proxied hostnames, in workerd)`, { listener: 'edge', url: running.edgeUrl });
  if (running.adminUrl) banner.say(`admin listening on ${running.adminUrl} (/healthz, /readyz, /metrics)`, { listener: 'admin', url: running.adminUrl });
  const generated = running.generatedCredentials;
  if (generated) {
    banner.secret(`generated admin credentials (saved in ${generated.file}; stratus credentials prints them again)`,
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
  if (args[0] !== 'add' || args.length > 1 || flags.email === undefined) {
    process.stderr.write(`stratus: usage: stratus user add --email E [--key K] [--data-dir DIR]\n`);
    return 2;
  }
  const config = loadConfig(flags, process.env);
  await preflight({ dataDir: config.dataDir, databaseUrl: config.databaseUrl, blobsS3: undefined });
  const database = await openDatabase({ dataDir: config.dataDir, url: config.databaseUrl });
  try {
    const user = await upsertUser(database.db, { email: flags.email, ...(flags.key !== undefined ? { key: flags.key } : {}) });
    process.stdout.write(`${user.created ? 'created' : 'updated'} user ${user.email}\n  X-Auth-Key: ${user.key}\n  account id: ${user.accountId}\n`);
    return 0;
  } finally {
    await database.close();
  }
}

/** `stratus ca export`: prints the local CA's root certificate (made and stored on first use). */
async function caCommand(args: string[], flags: Record<string, string>): Promise<number> {
  if (args[0] !== 'export' || args.length > 1) throw new ConfigError('usage: stratus ca export [--data-dir DIR] [--database-url URL]; see stratus ca --help');
  const config = loadConfig(flags, process.env);
  await preflight({ dataDir: config.dataDir, databaseUrl: config.databaseUrl, blobsS3: undefined });
  const database = await openDatabase({ dataDir: config.dataDir, url: config.databaseUrl });
  try {
    const key = resolveSecretsKey({ dataDir: config.dataDir, configured: config.secretsKey });
    const root = await localRoot(database.db, new SecretBox(key.key), systemClock);
    process.stdout.write(root.certificatePem.endsWith('\n') ? root.certificatePem : `${root.certificatePem}\n`);
    return 0;
  } finally {
    await database.close();
  }
}

/** `stratus credentials [--data-dir DIR] [--json | --env]`. */
async function credentialsCommand(args: string[], flags: Record<string, string>): Promise<number> {
  if (args.length > 0) throw new ConfigError(`stratus credentials takes no arguments, got "${args.join(' ')}"; see stratus credentials --help`);
  if (flags.json === 'true' && flags.env === 'true') throw new ConfigError('stratus credentials takes --json or --env, not both');
  const config = loadConfig({ ...flags }, process.env);
  const saved = readSavedCredentials(config.dataDir);
  process.stdout.write(flags.env === 'true' ? await formatEnv(saved, config) : formatCredentials(saved, flags.json === 'true'));
  return 0;
}

main(process.argv.slice(2)).then(
  (code) => { if (code >= 0) process.exit(code); },
  (err: unknown) => {
    if (err instanceof ConfigError || err instanceof AppError) { process.stderr.write(`stratus: ${err.message}\n`); process.exit(2); }
    process.stderr.write(`stratus: ${err instanceof Error ? err.stack : String(err)}\n`);
    process.exit(1);
  },
);
