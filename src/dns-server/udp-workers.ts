/**
 * The DNS thread: a `worker_threads` worker (udp-worker.ts) that owns the UDP socket and answers from its
 * own copy of the zones, so UDP answers do not wait for the main thread's event loop, which serves the v4
 * API, runs imports and writes the database (on a busy 2-core machine that loop stalls for tens to hundreds
 * of milliseconds; the thread's does not). TCP, AXFR and NOTIFY stay in the main thread.
 *
 * The copy is kept by replaying the zone cache's updates (a zone's records once when it is loaded, then only
 * changesets), posted on a MessagePort as soon as the cache emits them (at most {@link FLUSH_MS} of posting
 * per event-loop turn; a big zone's copy goes out over several turns). Freshness: after posting, the main
 * thread stores the batch's number in shared memory, and it keeps a shared "busy" flag raised while the zone
 * cache has work queued or updates are not posted yet; both are written synchronously inside the change
 * feed's listener, before the API call responds. The thread reads them before each query (see udp-worker.ts):
 * it takes missing batches off the port synchronously, and while busy it forwards the query here, where it is
 * answered after the zone work. One thread (Node 20 has no SO_REUSEPORT to share the port between several).
 */
import { Worker, MessageChannel, type MessagePort } from 'node:worker_threads';
import fs from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { Logger } from '../shared/logger.js';
import { COPY_SLICE, type ZoneCache, type ZoneUpdate } from './zone-cache.js';
import type { DnsHandler } from './handler.js';
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
  logLevel: string;
  logRate: number;
  logFormat: LogFormat;
}

/** Numbered zone updates posted to the thread. */
export interface UpdateBatch {
  seq: number;
  updates: ZoneUpdate[];
}

/** Commands to the thread. */
export type ThreadCommand =
  | { t: 'bind'; host: string; port: number }
  | { t: 'unbind' }
  | { t: 'answer'; out: Uint8Array[]; address: string; port: number };

/** Reports from the thread. */
export type ThreadReport =
  | { t: 'ready' }
  | { t: 'bound'; host: string; port: number }
  | { t: 'bind-failed'; message: string; code?: string }
  | { t: 'unbound' }
  | { t: 'query'; msg: Uint8Array; address: string; port: number }
  | { t: 'stats'; counts: QueryCounts };

/** A running DNS thread. */
export interface UdpWorkers {
  count: number;
  /** The UDP socket the thread owns, for the listeners (bind, close). */
  udp: ExternalUdp;
  /** Raises or lowers the busy flag after the zone cache took a change (call synchronously in the feed listener). */
  sync(): void;
  close(): Promise<void>;
}

/** Options of {@link startUdpWorkers}. */
export interface UdpWorkerOptions {
  /** 0: no thread (the main thread answers UDP); any other value starts the one DNS thread. */
  count: number;
  cache: ZoneCache;
  handler: DnsHandler;
  /** The edge addresses proxied records are answered with (the thread builds its zones with them). */
  edge: { ipv4: readonly string[]; ipv6: readonly string[] };
  logger: Logger;
  logLevel: string;
  /** Query access lines per second (query-log.ts). */
  logRate: number;
  logFormat: LogFormat;
}

/** Starts the DNS thread; undefined when it cannot run here (count 0, no compiled thread script). */
export async function startUdpWorkers(opts: UdpWorkerOptions): Promise<UdpWorkers | undefined> {
  if (opts.count <= 0) return undefined;
  const script = fileURLToPath(new URL('./udp-worker.js', import.meta.url));
  if (!fs.existsSync(script)) {
    opts.logger.info('DNS thread unavailable here (no compiled thread script); answering UDP in the main thread');
    return undefined;
  }
  const shared = new SharedArrayBuffer(8);
  const state = new Int32Array(shared);
  const channel = new MessageChannel();
  const init: ThreadInit = { updates: channel.port2, shared, logLevel: opts.logLevel, logRate: opts.logRate, logFormat: opts.logFormat };
  const worker = new Worker(script, { workerData: init, transferList: [channel.port2] });
  let closing = false;
  let exited = false;
  const waiting: Array<(m: ThreadReport) => boolean> = [];
  const answer = (m: Extract<ThreadReport, { t: 'query' }>) => {
    const msg = Buffer.from(m.msg.buffer, m.msg.byteOffset, m.msg.byteLength);
    const reply = (out: Buffer[]) => { if (!exited) worker.postMessage({ t: 'answer', out, address: m.address, port: m.port } satisfies ThreadCommand); };
    const out = opts.handler.handle(msg, { transport: 'udp', address: m.address });
    if (Array.isArray(out)) reply(out);
    else out.then(reply, (err: unknown) => opts.logger.error({ err }, 'forwarded answer failed'));
  };
  worker.on('message', (m: ThreadReport) => {
    try {
      if (m.t === 'query') answer(m);
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
  const setBusy = () => { Atomics.store(state, 1, unsent.length > 0 || opts.cache.busy ? 1 : 0); };
  const flush = () => {
    scheduled = false;
    const end = performance.now() + FLUSH_MS;
    let sent = 0;
    while (sent < unsent.length && (sent === 0 || performance.now() < end)) {
      channel.port1.postMessage({ seq: ++seq, updates: [unsent[sent++]!] } satisfies UpdateBatch);
      Atomics.store(state, 0, seq);
    }
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
  opts.cache.onIdle(setBusy);

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
    sync: setBusy,
    async close() {
      closing = true;
      channel.port1.close();
      await worker.terminate();
    },
  };
}
