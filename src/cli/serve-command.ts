/** `stratus serve`: the server's start, its banner, and its stop on a signal within the shutdown timeout. */
import { ConfigError, loadConfig, type Config } from '../config/config.js';
import { createLogger } from '../shared/logger.js';
import type { RunningStratus } from '../main.js';
import { defaultLogFormat } from '../shared/log-format.js';
import { Banner } from '../ops/banner.js';
import { IncidentLog } from '../shared/incident-log.js';
import { preflight } from './preflight.js';
import { checkListeners, listenFailure } from './start-errors.js';
import { stopWithNpmParent } from './parent-watch.js';
import { readTlsMaterial, TlsFileError } from '../shared/tls-files.js';

/** `stratus serve`: checks the listeners' addresses and the stores, starts, prints the listeners (and generated credentials), stops on a signal. */
export async function serveCommand(flags: Record<string, string>): Promise<number> {
  const config = loadConfig(flags, process.env);
  const format = config.logFormat ?? defaultLogFormat(process.stdout.isTTY);
  const logger = createLogger(config.logLevel, format);
  // Every address is tried before anything is written (the data folder, the database, generated credentials).
  await checkListeners(config);
  await preflight(config);
  // The certificate and its key are read again by the start; checked here too, so that a bad file is refused
  // before the whole server is loaded.
  if (config.tls) {
    try {
      readTlsMaterial(config.tls);
    } catch (err) {
      throw err instanceof TlsFileError ? new ConfigError(err.message) : err;
    }
  }
  let running: RunningStratus;
  try {
    // Loaded once the checks pass: a refused start (a bad flag value, a port in use, a folder that is a file)
    // answers without loading the whole server first.
    const { startStratus } = await import('../main.js');
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
    const { requestsMs, deadlineMs } = stopBudget(config.shutdownTimeoutMs);
    banner.say(`${signal}, stopping within ${deadlineMs / 1000} s (requests in flight get up to ${requestsMs / 1000} s)`, { signal });
    // The stores' own close has no deadline of its own (a pool waits for a connection stuck in the database):
    // bound the whole stop. Nothing acknowledged is lost by exiting here: every store is crash-safe.
    setTimeout(() => { logger.error('stopping took too long; exiting'); process.exit(1); }, deadlineMs).unref();
    running.close(requestsMs).then(() => {
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

/** The most of `--shutdown-timeout` kept for stopping the DNS server, the edge and the stores after the requests. */
const STORE_CLOSE_RESERVE_MS = 5_000;

/**
 * How a stop spends `--shutdown-timeout`: the process ends within it (`deadlineMs`, at least 1 s); requests in
 * flight get all of it but the reserve for closing the stores (half of it, at most 5 s).
 */
export function stopBudget(shutdownTimeoutMs: number): { requestsMs: number; deadlineMs: number } {
  const deadlineMs = Math.max(shutdownTimeoutMs, 1_000);
  return { requestsMs: deadlineMs - Math.min(STORE_CLOSE_RESERVE_MS, Math.floor(deadlineMs / 2)), deadlineMs };
}

