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
import { ZoneTree } from '../dns/zone-tree.js';
import { DnsHandler } from './handler.js';
import { startListeners } from './listeners.js';
import { notifyAll, parseNotifyTarget } from './notify.js';
import { NotifySchedule } from './notify-schedule.js';
import { dnsThreadAvailable, startUdpWorkers, type UdpPath, type UdpWorkers } from './udp-workers.js';
import { ConfigError } from '../config/config.js';
import type { LogFormat } from '../shared/log-format.js';
import { QueryLog } from './query-log.js';
import { recordDnsUdpPath, trackZoneCache } from '../shared/probes.js';
import { signingWith } from './signing.js';
import type { ZoneSnapshot } from '../dns/snapshot.js';
import type { NotifyTarget } from './notify.js';
import { SecretBox } from '../shared/secret-box.js';
import { TransferPolicyStore } from '../secondary-dns/transfer-policy-store.js';
import { findKey, type TransferPolicies } from '../secondary-dns/transfer-policy.js';
import { onNotifyRequest, requestPull, transferredOut } from '../secondary-dns/change-signal.js';
import { recordOutgoingTransfers } from '../secondary-dns/outgoing-transfer-times.js';
import { JournalStore } from './journal-store.js';
import type { QueryOrigin, Responses } from './query-types.js';
import { peerAddressRefusal, type PeerAddressPolicy } from '../secondary-dns/peer-address.js';

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
  /** Versions of each zone kept for IXFR (zone-journal.ts); default 100. */
  ixfrHistory?: number;
  /** Serial poll interval for changes made by other nodes (ms; 0 disables). Default 2000. */
  pollMs?: number;
  /** TCP idle timeout (ms). Default 10000. */
  tcpIdleMs?: number;
  /**
   * 0: UDP is answered on the main thread; otherwise (the default) by the DNS thread (udp-workers.ts), which
   * only runs from the compiled build (under a TypeScript test runner everything is answered on the main thread).
   */
  udpWorkers?: number;
  /** Query access lines per second and process (query-log.ts); default 100, 0: none. */
  logRate?: number;
  /** Format of the DNS thread's log lines (as the main thread's). */
  logFormat?: LogFormat;
  /** The secrets key (shared/secret-box.ts) zone signing keys are sealed with; without it no zone is signed. */
  secretsKey?: Buffer;
  /**
   * Decides the addresses of zones' peers before a NOTIFY goes to them (`--transfer-peer-allow`;
   * secondary-dns/peer-address.ts); the instance's `--notify` targets are the operator's and not checked.
   * Absent: every peer address is refused.
   */
  peerPolicy?: PeerAddressPolicy;
  /** False: the DNS thread serves UDP in JavaScript even when the native addon loads (native-udp.ts). Default true. */
  nativeUdp?: boolean;
}

/** A running DNS server. */
export interface RunningDnsServer {
  host: string;
  port: number;
  cache: ZoneCache;
  /** Whether the DNS thread answers (always ok without one): not while it is restarted after a crash. */
  threadStatus(): { ok: boolean; detail?: string };
  /** Which path answers UDP: `native` (the DNS thread's addon) or `js`, and why not native. */
  udpPath: UdpPath;
  /** Answers one DNS message as the listeners do (DNS-over-HTTPS, api/dns-query.ts, sends its queries here). */
  query(message: Buffer, from: QueryOrigin): Responses | Promise<Responses>;
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
  ZoneTree.setJournalVersions(opts.ixfrHistory ?? 100);
  // IXFR history kept in the database across restarts (journal-store.ts): the cache's trees and the DNS thread's report their entries.
  const journals = new JournalStore(opts.db, opts.ixfrHistory ?? 100, logger);
  const stopping = new AbortController();
  // Zones with outgoing settings (secondary-dns/) NOTIFY their peers (signed with the peer's key), or nobody
  // while disabled; the others the instance's --notify targets.
  let policies: TransferPolicies = {};
  const peerPermitted = (zone: ZoneSnapshot, ip: string): boolean => {
    const refused = opts.peerPolicy ? peerAddressRefusal(opts.peerPolicy, ip) : `peer address ${ip} is not allowed (no peer address policy)`;
    if (refused) logger.warn({ zone: zone.origin, peer: ip, reason: refused }, 'NOTIFY not sent to a peer');
    return refused === undefined;
  };
  const targetsFor = (zone: ZoneSnapshot): NotifyTarget[] => {
    const p = policies[zone.zoneId];
    if (!p || p.defaults === true) return targets;
    if (!p.enabled) return [];
    return p.peers.filter((peer) => peer.ip !== undefined && peerPermitted(zone, peer.ip)).map((peer) => {
      const key = peer.keyName ? findKey(p, peer.keyName) : undefined;
      return { host: peer.ip!, port: peer.port, ...(key ? { key } : {}) };
    });
  };
  const notify = new NotifySchedule((zone) => notifyAll(zone, targetsFor(zone), logger, stopping.signal));
  // With the DNS thread, the zones' records live in the thread only; this thread keeps their fields (mirrors).
  const threaded = dnsThreadAvailable(opts.udpWorkers ?? 1);
  const cache = new ZoneCache(opts.db, { ipv4: opts.edgeIpv4, ipv6: opts.edgeIpv6 }, logger, (zone) => {
    if (started && targetsFor(zone).length) notify.changed(zone);
  }, { mirror: threaded, journal: journals });
  let workers: UdpWorkers | undefined;
  let policyStore: TransferPolicyStore | undefined;
  let stopNotifyRequests: (() => void) | undefined;
  // last_transferred_time of zones with outgoing settings, from the transfers the handler reports.
  const stopTransferTimes = recordOutgoingTransfers(opts.db, logger);
  const unsubscribe = opts.changeFeed.subscribe((change) => {
    cache.apply(change);
    workers?.sync();
  });
  try {
    const logRate = opts.logRate ?? 100;
    if (threaded) {
      workers = await startUdpWorkers({ count: 1, cache, transferAllow: opts.transferAllow, ixfrHistory: opts.ixfrHistory ?? 100, edge: { ipv4: opts.edgeIpv4, ipv6: opts.edgeIpv6 }, logger, logLevel: opts.logger.level, logRate, logFormat: opts.logFormat ?? 'json', secretsKey: opts.secretsKey, nativeUdp: opts.nativeUdp !== false });
      if (!workers) throw new Error('the DNS thread failed to start');
    }
    await cache.loadAll();
    let handler: DnsHandler | UdpWorkers | undefined = workers;
    if (!handler) {
      const own = new DnsHandler(cache, opts.transferAllow, logger, new QueryLog(opts.logger, logRate), signingWith(opts.secretsKey, logger));
      own.onNotify = requestPull;
      own.onTransferred = transferredOut;
      handler = own;
    }
    const answering = handler;
    policyStore = new TransferPolicyStore(opts.db, opts.secretsKey ? new SecretBox(opts.secretsKey) : undefined, logger, (p) => {
      policies = p;
      answering.setTransferPolicies(p);
    });
    await policyStore.reload();
    policyStore.startPolling(opts.pollMs ?? 2000);
    stopNotifyRequests = onNotifyRequest((zoneId) => {
      const zone = cache.get(zoneId);
      if (zone) notifyAll(zone, targetsFor(zone), logger, stopping.signal);
    });
    // last_transferred_time: TCP transfers are reported by the listener once their last message is taken.
    const listeners = await startListeners(handler, { host: opts.listen.host, port: opts.listen.port, tcpIdleMs: opts.tcpIdleMs ?? 10_000, onTransferred: transferredOut }, logger, workers?.udp);
    const untrack = trackZoneCache(cache);
    cache.startPolling(opts.pollMs ?? 2000);
    started = true;
    const udpPath: UdpPath = workers?.udpPath() ?? { udp: 'js', why: 'no DNS thread (--dns-workers 0)' };
    recordDnsUdpPath(udpPath.udp);
    logger.info({ host: listeners.host, port: listeners.port, zones: cache.all().length, dnsThread: workers !== undefined, udp: udpPath.udp, why: udpPath.why }, 'DNS server listening');
    return {
      host: listeners.host,
      port: listeners.port,
      cache,
      get udpPath() { return workers?.udpPath() ?? udpPath; },
      threadStatus: () => workers?.status() ?? { ok: true },
      query: (message, from) => answering.handle(message, from),
      async close() {
        untrack();
        unsubscribe();
        notify.close();
        stopping.abort();
        policyStore?.close();
        stopNotifyRequests?.();
        await listeners.close();
        await workers?.close();
        await stopTransferTimes();
        await cache.close();
        await journals.flush();
      },
    };
  } catch (err) {
    unsubscribe();
    stopping.abort();
    policyStore?.close();
    stopNotifyRequests?.();
    await stopTransferTimes();
    await cache.close();
    await workers?.close();
    throw err;
  }
}
