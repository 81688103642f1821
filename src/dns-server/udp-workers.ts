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
 */
import { Worker, MessageChannel, type MessagePort } from 'node:worker_threads';
import fs from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { Logger } from '../shared/logger.js';
import { COPY_SLICE, type ZoneCache, type ZoneUpdate } from './zone-cache.js';
import type { QueryOrigin, Responses } from './handler.js';
import type { ExternalUdp } from './listeners.js';
import { queryStats, type QueryCounts } from './query-stats.js';
import type { LogFormat } from '../config/config.js';
import type { RecordChange } from '../dns/zone-tree.js';

/** Longest run of update posting per event-loop turn (ms). */
const FLUSH_MS = 4;

/** What the DNS thread is started with. */
export interface ThreadInit {
  updates: MessagePort;
  shared: SharedArrayBuffer;
  transferAllow: readonly string[];
  logLevel: string;
  logRate: number;
  logFormat: LogFormat;
}

/** Numbered zone updates posted to the thread, with the zones whose queries wait when that changed. */
export interface UpdateBatch {
  seq: number;
  updates: ZoneUpdate[];
  blocking?: { zoneIds: string[]; unborn: boolean };
}

/** Commands to the thread. */
export type ThreadCommand =
  | { t: 'bind'; host: string; port: number }
  | { t: 'unbind' }
  | { t: 'ask'; id: number; msg: Uint8Array; address: string };

/** Reports from the thread. */
export type ThreadReport =
  | { t: 'ready' }
  | { t: 'bound'; host: string; port: number }
  | { t: 'bind-failed'; message: string; code?: string }
  | { t: 'unbound' }
  | { t: 'reply'; id: number; out: Uint8Array[] }
  | { t: 'stats'; counts: QueryCounts };

/** A running DNS thread. */
export interface UdpWorkers {
  count: number;
  /** The UDP socket the thread owns, for the listeners (bind, close). */
  udp: ExternalUdp;
  /** Answers a query (TCP, AXFR) in the thread. */
  handle(msg: Buffer, origin: QueryOrigin): Promise<Responses>;
  /** Tells the thread which zones wait after the zone cache took a change (call synchronously in the feed listener). */
  sync(): void;
  close(): Promise<void>;
}

/** Options of {@link startUdpWorkers}. */
export interface UdpWorkerOptions {
  /** 0: no thread (the main thread answers UDP); any other value starts the one DNS thread. */
  count: number;
  cache: ZoneCache;
  /** AXFR allow-list (the thread answers transfers too). */
  transferAllow: readonly string[];
  /** The edge addresses proxied records are answered with (the thread builds its zones with them). */
  edge: { ipv4: readonly string[]; ipv6: readonly string[] };
  logger: Logger;
  logLevel: string;
  /** Query access lines per second (query-log.ts). */
  logRate: number;
  logFormat: LogFormat;
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
  const script = SCRIPT;
  const shared = new SharedArrayBuffer(8);
  const state = new Int32Array(shared);
  const channel = new MessageChannel();
  const init: ThreadInit = { updates: channel.port2, shared, transferAllow: opts.transferAllow, logLevel: opts.logLevel, logRate: opts.logRate, logFormat: opts.logFormat };
  const worker = new Worker(script, { workerData: init, transferList: [channel.port2] });
  let closing = false;
  let exited = false;
  const waiting: Array<(m: ThreadReport) => boolean> = [];
  const asks = new Map<number, (out: Responses) => void>();
  let askId = 0;
  worker.on('message', (m: ThreadReport) => {
    try {
      if (m.t === 'reply') {
        const done = asks.get(m.id);
        asks.delete(m.id);
        done?.(m.out.map((r) => Buffer.from(r.buffer, r.byteOffset, r.byteLength)));
      }
      else if (m.t === 'stats') queryStats.add(m.counts);
      else {
        const i = waiting.findIndex((w) => w(m));
        if (i >= 0) waiting.splice(i, 1);
      }
    } catch (err) {
      opts.logger.error({ err }, 'DNS thread message failed');
    }
  });
  worker.on('error', (err) => opts.logger.error({ err }, 'DNS thread failed'));
  worker.once('exit', (code) => {
    exited = true;
    for (const w of waiting.splice(0)) w({ t: 'bind-failed', message: `DNS thread exited with ${code}` });
    for (const done of asks.values()) done([]);
    asks.clear();
    if (!closing) opts.logger.error({ code }, 'DNS thread exited; UDP queries are no longer answered');
  });
  /** Resolves with the first report `pick` accepts (or a bind failure when the thread exits). */
  const next = <T extends ThreadReport>(pick: (m: ThreadReport) => m is T): Promise<T | Extract<ThreadReport, { t: 'bind-failed' }>> => new Promise((resolve) => {
    if (exited) { resolve({ t: 'bind-failed', message: 'DNS thread exited' }); return; }
    waiting.push((m) => {
      if (pick(m)) { resolve(m); return true; }
      if (m.t === 'bind-failed') { resolve(m); return true; }
      return false;
    });
  });
  const ready = await next((m): m is Extract<ThreadReport, { t: 'ready' }> => m.t === 'ready');
  if (ready.t !== 'ready') {
    opts.logger.error({ reason: ready.message }, 'DNS thread failed to start; answering UDP in the main thread');
    return undefined;
  }

  let seq = 0;
  let unsent: ZoneUpdate[] = [];
  let scheduled = false;
  let told = '';
  const post = (batch: Omit<UpdateBatch, 'seq'>) => {
    channel.port1.postMessage({ seq: ++seq, ...batch } satisfies UpdateBatch);
    Atomics.store(state, 0, seq);
  };
  /** Flags unposted updates (every query waits), and tells the thread which zones wait when that changed. */
  const setBusy = () => {
    Atomics.store(state, 1, unsent.length > 0 ? 1 : 0);
    const blocking = opts.cache.blocking();
    const key = `${blocking.unborn} ${blocking.zoneIds.join(' ')}`;
    if (key === told) return;
    told = key;
    post({ updates: [], blocking });
  };
  const flush = () => {
    scheduled = false;
    const end = performance.now() + FLUSH_MS;
    let sent = 0;
    while (sent < unsent.length && (sent === 0 || performance.now() < end)) post({ updates: [unsent[sent++]!] });
    unsent = sent === unsent.length ? [] : unsent.slice(sent);
    if (unsent.length && !scheduled) {
      scheduled = true;
      setImmediate(flush);
    }
    setBusy();
  };
  for (const tree of opts.cache.all()) {
    unsent.push({ t: 'reset', zone: tree.zoneFields, edge: opts.edge });
    let slice: RecordChange[] = [];
    for (const r of tree.records()) {
      slice.push({ id: r.id, before: null, after: r });
      if (slice.length === COPY_SLICE) { unsent.push({ t: 'changes', zoneId: tree.zoneId, serial: tree.serial, records: slice }); slice = []; }
    }
    if (slice.length) unsent.push({ t: 'changes', zoneId: tree.zoneId, serial: tree.serial, records: slice });
  }
  setBusy();
  flush();
  opts.cache.onUpdate((u) => {
    unsent.push(u);
    if (!scheduled) flush();
    else setBusy();
  });
  opts.cache.onDrained(setBusy);

  const udp: ExternalUdp = {
    async bind(host, port) {
      const bound = next((m): m is Extract<ThreadReport, { t: 'bound' }> => m.t === 'bound');
      worker.postMessage({ t: 'bind', host, port } satisfies ThreadCommand);
      const r = await bound;
      if (r.t === 'bound') return { host: r.host, port: r.port };
      throw Object.assign(new Error(r.message), { code: r.code });
    },
    async close() {
      if (exited) return;
      const done = next((m): m is Extract<ThreadReport, { t: 'unbound' }> => m.t === 'unbound');
      worker.postMessage({ t: 'unbind' } satisfies ThreadCommand);
      await done;
    },
  };
  return {
    count: 1,
    udp,
    handle(msg, origin) {
      if (exited) return Promise.resolve([]);
      const id = ++askId;
      return new Promise<Responses>((resolve) => {
        asks.set(id, resolve);
        worker.postMessage({ t: 'ask', id, msg, address: origin.address } satisfies ThreadCommand);
      });
    },
    sync: setBusy,
    async close() {
      closing = true;
      channel.port1.close();
      await worker.terminate();
    },
  };
}
