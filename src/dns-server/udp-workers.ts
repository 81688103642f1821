/**
 * The DNS thread: a `worker_threads` worker (udp-worker.ts) that owns the UDP socket, answers every query
 * (UDP, and the TCP queries and AXFR the main thread's listener hands it) and holds the zones' records, once:
 * the main thread keeps only their fields (zone-mirror.ts). So answers do not wait for the main thread's event
 * loop, which serves the v4 API, runs imports and writes the database (on a busy 2-core machine that loop
 * stalls for tens to hundreds of milliseconds; the thread's does not), and a zone costs its memory once.
 *
 * The thread's zones are built by replaying the zone cache's updates (a zone's load as staged changes, then
 * changesets), posted on a MessagePort as soon as the cache emits them (at most {@link FLUSH_MS} of posting per
 * event-loop turn; a backlog goes out over the next turns). Freshness: after posting, the main thread stores
 * the batch's number in shared memory, and batches carry which zones have work queued (`ZoneCache.blocking`);
 * both are done synchronously inside the change feed's listener, before the API call responds. The thread
 * takes missing batches off the port synchronously before each query and holds the queries of zones with work
 * queued until it is done (see udp-worker.ts). One thread (Node 20 has no SO_REUSEPORT to share the port).
 *
 * The thread signs the answers of DNSSEC zones itself (signing.ts): zone keys reach it sealed, in the zone
 * fields of its updates, and the secrets key that opens them is given at its start (workerData, never argv).
 *
 * A thread that ends unasked (an exception, out of memory) is started again: logged once, counted
 * (`stratus_dns_thread_restarts_total`), not ready on /readyz until back; the new thread binds the same UDP
 * address and the zone cache loads every zone again from the database ({@link ZoneCache.reloadAll}), queries
 * of not yet loaded zones waiting meanwhile. Restarts in quick succession back off up to {@link MAX_BACKOFF_MS}.
 */
import fs from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { Logger } from '../shared/logger.js';
import { COPY_SLICE, type ZoneCache } from './zone-cache.js';
import type { QueryOrigin, Responses } from './handler.js';
import type { ExternalUdp } from './listeners.js';
import type { LogFormat } from '../shared/log-format.js';
import type { RecordChange } from '../dns/zone-tree.js';
import type { TransferPolicies } from '../secondary-dns/transfer-policy.js';
import { DnsThread } from './dns-thread.js';
import { recordDnsThreadRestart } from '../shared/probes.js';
import type { ThreadCommand, ThreadInit, ThreadReport, UdpPath, UpdateBatch } from './dns-thread-protocol.js';

export type { ThreadCommand, ThreadInit, ThreadReport, UdpPath, UpdateBatch } from './dns-thread-protocol.js';

/** Wait before starting a thread again after one that ran less than {@link STABLE_MS}, doubling up to this (ms). */
const MAX_BACKOFF_MS = 5_000;
const FIRST_BACKOFF_MS = 100;
/** A thread that ran this long restarts without waiting (ms). */
const STABLE_MS = 60_000;

/** A running DNS thread. */
export interface UdpWorkers {
  count: number;
  /** The UDP socket the thread owns, for the listeners (bind, close). */
  udp: ExternalUdp;
  /** Answers a query (TCP, AXFR) in the thread. */
  handle(msg: Buffer, origin: QueryOrigin): Promise<Responses>;
  /** Tells the thread which zones wait after the zone cache took a change (call synchronously in the feed listener). */
  sync(): void;
  /** Whether the thread answers (false from its unasked end until it is back with its zones loaded), for /readyz. */
  status(): { ok: boolean; detail?: string };
  /** The UDP path of the bound socket (undefined before the first bind). */
  udpPath(): UdpPath | undefined;
  /** Gives the thread (and any restarted one) the transfer policies of zones with outgoing settings. */
  setTransferPolicies(policies: TransferPolicies): void;
  close(): Promise<void>;
}

/** Options of {@link startUdpWorkers}. */
export interface UdpWorkerOptions {
  /** 0: no thread (the main thread answers UDP); any other value starts the one DNS thread. */
  count: number;
  cache: ZoneCache;
  /** AXFR allow-list (the thread answers transfers too). */
  transferAllow: readonly string[];
  /** Versions of each zone kept for IXFR. */
  ixfrHistory: number;
  /** The edge addresses proxied records are answered with (the thread builds its zones with them). */
  edge: { ipv4: readonly string[]; ipv6: readonly string[] };
  logger: Logger;
  logLevel: string;
  /** Query access lines per second (query-log.ts). */
  logRate: number;
  logFormat: LogFormat;
  /** The secrets key that opens zone signing keys (given to the thread at its start, never in argv). */
  secretsKey?: Buffer | undefined;
  /** False: UDP through `dgram` even when the native addon is built (--dns-native-udp off). Default true. */
  nativeUdp?: boolean;
}

const SCRIPT = fileURLToPath(new URL('./udp-worker.js', import.meta.url));

/** True when the DNS thread can run here (count above 0 and the compiled thread script present). */
export function dnsThreadAvailable(count: number): boolean {
  return count > 0 && fs.existsSync(SCRIPT);
}

/** Starts the DNS thread; undefined when it cannot run here (see {@link dnsThreadAvailable}) or fails to start. */
export async function startUdpWorkers(opts: UdpWorkerOptions): Promise<UdpWorkers | undefined> {
  if (!dnsThreadAvailable(opts.count)) {
    if (opts.count > 0) opts.logger.info('DNS thread unavailable here (no compiled thread script); answering in the main thread');
    return undefined;
  }
  const init = { transferAllow: opts.transferAllow, ixfrHistory: opts.ixfrHistory, logLevel: opts.logLevel, logRate: opts.logRate, logFormat: opts.logFormat, secretsKey: opts.secretsKey ? new Uint8Array(opts.secretsKey) : undefined, nativeUdp: opts.nativeUdp !== false };
  let closing = false;
  /** Set once the first thread answered: a thread that fails to start is not restarted (the main thread answers). */
  let live = false;
  /** The address the listeners bound (bound again by a restarted thread). */
  let address: { host: string; port: number } | undefined;
  let path: UdpPath | undefined;
  /** Why the thread does not answer now (undefined: it does). */
  let down: string | undefined;
  let backoff = 0;
  let startedAt = 0;
  /** Resolves when the current thread answers (restarts replace it). */
  let up: Promise<void> = Promise.resolve();
  let policies: TransferPolicies = {};

  const spawn = (): DnsThread => {
    startedAt = Date.now();
    const made = new DnsThread(SCRIPT, init, opts.cache, opts.logger, (code, err) => {
      if (closing || !live) return;
      down = `the DNS thread ended (${err ? err.message : `exit code ${code}`}); restarting`;
      opts.logger.error({ code, err }, 'DNS thread ended; starting it again and reloading its zones');
      recordDnsThreadRestart();
      backoff = Date.now() - startedAt >= STABLE_MS ? 0 : Math.min(MAX_BACKOFF_MS, Math.max(FIRST_BACKOFF_MS, backoff * 2));
      up = restart();
    });
    made.setPolicies(policies);
    return made;
  };

  const restart = async (): Promise<void> => {
    for (;;) {
      if (backoff > 0) await new Promise((resolve) => setTimeout(resolve, backoff).unref());
      if (closing) return;
      const next = spawn();
      thread = next;
      if (!(await next.started()) || closing) return; // its exit handler started the next attempt
      try {
        if (address) path = await next.bind(address.host, address.port);
        down = `the DNS thread restarted; reloading its ${opts.cache.all().length} zones`;
        next.flush();
        await opts.cache.reloadAll();
        // Ready once the thread itself holds every zone (the reload's updates are posted over several turns).
        const names = await next.synced();
        if (names === undefined || thread !== next || next.exited) return;
        down = undefined;
        opts.logger.info({ zones: opts.cache.all().length, names }, 'DNS thread answering again');
        return;
      } catch (err) {
        opts.logger.error({ err }, 'the restarted DNS thread could not bind its UDP address; trying again');
        await next.terminate(); // its exit handler starts the next attempt, after a longer wait
        return;
      }
    }
  };

  let thread = spawn();
  if (!(await thread.started())) {
    closing = true;
    opts.logger.error('DNS thread failed to start; answering UDP in the main thread');
    return undefined;
  }
  live = true;
  // Zones the cache already holds as trees (not mirrors) are copied in; mirrors' loads stream to the thread.
  for (const tree of opts.cache.all()) {
    if (tree.streamed) continue;
    thread.push({ t: 'reset', zone: tree.zoneFields, edge: opts.edge });
    let slice: RecordChange[] = [];
    for (const r of tree.records()) {
      slice.push({ id: r.id, before: null, after: r });
      if (slice.length === COPY_SLICE) { thread.push({ t: 'changes', zoneId: tree.zoneId, serial: tree.serial, records: slice }); slice = []; }
    }
    if (slice.length) thread.push({ t: 'changes', zoneId: tree.zoneId, serial: tree.serial, records: slice });
  }
  thread.flush();
  opts.cache.onUpdate((u) => thread.push(u));
  opts.cache.onDrained(() => thread.setBusy());

  const udp: ExternalUdp = {
    async bind(host, port) {
      const b = await thread.bind(host, port);
      address = { host: b.host, port: b.port };
      path = { udp: b.udp, ...(b.why ? { why: b.why } : {}) };
      return address;
    },
    async close() {
      address = undefined;
      await thread.unbind();
    },
  };
  return {
    count: 1,
    udp,
    async handle(msg, origin) {
      if (thread.exited) await up;
      return thread.ask(msg, origin);
    },
    sync: () => thread.setBusy(),
    status: () => (down ? { ok: false, detail: down } : { ok: true }),
    udpPath: () => path,
    setTransferPolicies(p) {
      policies = p;
      thread.setPolicies(p);
    },
    async close() {
      closing = true;
      await thread.terminate();
    },
  };
}
