/**
 * The authoritative DNS server: loads every zone, keeps it current with the changesets of the change feed
 * (and of the change log, polled for other nodes' writes), answers on UDP and TCP, serves AXFR to the
 * allow-list and sends NOTIFY when a zone's serial changes (at most once a second per zone).
 */
import type { Kysely } from 'kysely';
import type { Database } from '../db/schema.js';
import type { Logger } from '../shared/logger.js';
import type { ZoneChangeFeed } from '../zones/change-feed.js';
import { ZoneCache } from './zone-cache.js';
import { DnsHandler } from './handler.js';
import { startListeners } from './listeners.js';
import { notifyAll, parseNotifyTarget } from './notify.js';
import { NotifySchedule } from './notify-schedule.js';
import { startUdpWorkers, type UdpWorkers } from './udp-workers.js';
import os from 'node:os';
import { ConfigError, type LogFormat } from '../config/config.js';
import { QueryLog } from './query-log.js';
import { trackZoneCache } from '../ops/probes.js';
import { ZoneSigning } from './signing.js';
import { SecretBox } from '../scripts/secret-box.js';

/** What the DNS server needs. */
export interface DnsServerOptions {
  db: Kysely<Database>;
  changeFeed: ZoneChangeFeed;
  logger: Logger;
  listen: { host: string; port: number };
  edgeIpv4: readonly string[];
  edgeIpv6: readonly string[];
  transferAllow: readonly string[];
  notify: readonly string[];
  /** Serial poll interval for changes made by other nodes (ms; 0 disables). Default 2000. */
  pollMs?: number;
  /** TCP idle timeout (ms). Default 10000. */
  tcpIdleMs?: number;
  /**
   * UDP worker processes besides the main one (udp-workers.ts). Default: one per extra core, at most 3; they
   * only run from the compiled build (under a TypeScript test runner everything is answered in-process).
   */
  udpWorkers?: number;
  /** Query access lines per second and process (query-log.ts); default 100, 0: none. */
  logRate?: number;
  /** Format of the UDP worker processes' log lines (as the main process's). */
  logFormat?: LogFormat;
  /** The secrets key (scripts/secret-box.ts) zone signing keys are sealed with; without it no zone is signed. */
  secretsKey?: Buffer;
}

/** A running DNS server. */
export interface RunningDnsServer {
  host: string;
  port: number;
  cache: ZoneCache;
  close(): Promise<void>;
}

/** Starts the DNS server. */
export async function startDnsServer(opts: DnsServerOptions): Promise<RunningDnsServer> {
  const logger = opts.logger.child({ component: 'dns-server' });
  const targets = opts.notify.map((t) => {
    try {
      return parseNotifyTarget(t);
    } catch {
      throw new ConfigError(`--notify must list HOST, HOST:PORT or [IPV6]:PORT targets, got "${t}"`);
    }
  });
  let started = false;
  const notify = new NotifySchedule((zone) => notifyAll(zone, targets, logger));
  const cache = new ZoneCache(opts.db, { ipv4: opts.edgeIpv4, ipv6: opts.edgeIpv6 }, logger, (zone) => {
    if (started && targets.length) notify.changed(zone);
  });
  let workers: UdpWorkers | undefined;
  const unsubscribe = opts.changeFeed.subscribe((change) => {
    workers?.markStale();
    cache.apply(change);
  });
  try {
    await cache.loadAll();
    const logRate = opts.logRate ?? 100;
    const box = opts.secretsKey ? new SecretBox(opts.secretsKey) : undefined;
    const signing = new ZoneSigning((sealed, context) => {
      if (!box) throw new Error('no secrets key configured');
      return box.open(sealed, context);
    }, logger);
    const handler = new DnsHandler(cache, opts.transferAllow, logger, new QueryLog(opts.logger, logRate), signing);
    const listeners = await startListeners(handler, { host: opts.listen.host, port: opts.listen.port, tcpIdleMs: opts.tcpIdleMs ?? 10_000 }, logger);
    const workerCount = opts.udpWorkers ?? Math.min(3, Math.max(0, os.availableParallelism() - 1));
    workers = await startUdpWorkers({ socket: listeners.udp, count: workerCount, cache, handler, edge: { ipv4: opts.edgeIpv4, ipv6: opts.edgeIpv6 }, logger, logLevel: opts.logger.level, logRate, logFormat: opts.logFormat ?? 'json', secretsKey: opts.secretsKey });
    const untrack = trackZoneCache(cache);
    cache.startPolling(opts.pollMs ?? 2000);
    started = true;
    logger.info({ host: listeners.host, port: listeners.port, zones: cache.all().length, udpWorkers: workers?.count ?? 0 }, 'DNS server listening');
    return {
      host: listeners.host,
      port: listeners.port,
      cache,
      async close() {
        untrack();
        unsubscribe();
        notify.close();
        await workers?.close();
        await listeners.close();
        await cache.close();
      },
    };
  } catch (err) {
    unsubscribe();
    await cache.close();
    throw err;
  }
}
