/**
 * Entry point of the DNS thread (a `worker_threads` worker started by udp-workers.ts). It owns the UDP
 * socket, keeps its own copy of the zones by replaying the zone cache's updates, and answers from it, so UDP
 * answers never wait for the main thread's event loop (which serves the v4 API and writes the database).
 *
 * Freshness: updates arrive on a MessagePort, numbered; the main thread stores the number of the last one it
 * posted in shared memory right after posting it (synchronously, before the API call that caused it
 * responds), and raises a shared "busy" flag while it has zone work queued (a big changeset, a load). Before
 * each query the thread reads both: when busy, it forwards the query to the main thread (which answers after
 * its zone work); when its copy is behind, it takes the missing updates off the port synchronously
 * (`receiveMessageOnPort`) and answers. So no answer is older than an API call that returned before the query.
 */
import dgram from 'node:dgram';
import { parentPort, receiveMessageOnPort, workerData, type MessagePort } from 'node:worker_threads';
import { DnsHandler, type SnapshotSource } from './handler.js';
import { literalLookup } from './listeners.js';
import { createLogger } from '../shared/logger.js';
import { ZoneTree } from '../dns/zone-tree.js';
import { ZoneSet, type Invalidation } from './zone-set.js';
import type { ZoneUpdate } from './zone-cache.js';
import type { ThreadCommand, ThreadInit, UpdateBatch } from './udp-workers.js';
import { QueryLog } from './query-log.js';
import { queryStats } from './query-stats.js';

/** The thread's copy of the zones. */
class WorkerZones implements SnapshotSource {
  private readonly zones = new ZoneSet<ZoneTree>();

  find(qname: string): ZoneTree | undefined {
    return this.zones.find(qname);
  }

  pendingFor(): undefined {
    return undefined;
  }

  onInvalidate(listener: (inv: Invalidation) => void): void {
    this.zones.onInvalidate(listener);
  }

  /** Replays one update of the main thread's zone cache. */
  apply(u: ZoneUpdate): void {
    if (u.t === 'reset') { this.zones.put(new ZoneTree(u.zone, u.edge)); return; }
    if (u.t === 'remove') { this.zones.remove(u.zoneId); return; }
    const tree = this.zones.get(u.t === 'zone' ? u.zone.id : u.zoneId);
    if (!tree) return;
    const report = u.t === 'zone' ? tree.setZone(u.zone) : tree.apply(u.records, u.serial);
    this.zones.invalidate(report.wholeZone ? { zoneId: tree.zoneId } : { zoneId: tree.zoneId, names: report.names });
  }
}

const init = workerData as ThreadInit;
const parent = parentPort!;
const updates: MessagePort = init.updates;
/** [0]: number of the last update batch posted; [1]: 1 while the main thread has zone work queued. */
const state = new Int32Array(init.shared);
const rootLogger = createLogger(init.logLevel, init.logFormat);
const logger = rootLogger.child({ component: 'dns-thread' });
const zones = new WorkerZones();
const handler = new DnsHandler(zones, [], logger, new QueryLog(rootLogger.child({ thread: 'dns' }), init.logRate));
/** Counts of the queries answered here go to the main thread, which exposes them (query-stats.ts). */
const STATS_EVERY_MS = 1000;
setInterval(() => { if (!queryStats.idle) parent.postMessage({ t: 'stats', counts: queryStats.drain() }); }, STATS_EVERY_MS).unref();

let applied = 0;
function take(batch: UpdateBatch): void {
  try {
    for (const u of batch.updates) zones.apply(u);
  } catch (err) {
    logger.error({ err }, 'zone update failed in the DNS thread');
  }
  applied = batch.seq;
}
updates.on('message', take);

/** True when the copy holds every update posted so far (taking the missing ones now) and no zone work is queued. */
function current(): boolean {
  if (Atomics.load(state, 1) !== 0) return false;
  const target = Atomics.load(state, 0);
  while (applied < target) {
    const next = receiveMessageOnPort(updates);
    if (!next) return false;
    take(next.message as UpdateBatch);
  }
  return true;
}

let socket: dgram.Socket | undefined;

function send(out: readonly Uint8Array[], port: number, address: string): void {
  for (const r of out) socket?.send(r, port, address);
}

function bind(host: string, port: number): void {
  const s = dgram.createSocket({ type: host.includes(':') ? 'udp6' : 'udp4', lookup: literalLookup as never });
  s.once('error', (err: NodeJS.ErrnoException) => parent.postMessage({ t: 'bind-failed', message: err.message, code: err.code }));
  s.bind(port, host, () => {
    s.removeAllListeners('error');
    s.on('error', (err) => logger.error({ err }, 'udp socket error'));
    socket = s;
    const a = s.address();
    parent.postMessage({ t: 'bound', host: a.address, port: a.port });
  });
  s.on('message', (msg, rinfo) => {
    try {
      if (!current()) {
        parent.postMessage({ t: 'query', msg, address: rinfo.address, port: rinfo.port });
        return;
      }
      const out = handler.handle(msg, { transport: 'udp', address: rinfo.address });
      if (Array.isArray(out)) send(out, rinfo.port, rinfo.address);
      else out.then((r) => send(r, rinfo.port, rinfo.address), (err: unknown) => logger.error({ err }, 'udp answer failed'));
    } catch (err) {
      logger.error({ err }, 'udp packet failed');
    }
  });
}

parent.on('message', (m: ThreadCommand) => {
  try {
    if (m.t === 'answer') send(m.out, m.port, m.address);
    else if (m.t === 'bind') bind(m.host, m.port);
    else if (m.t === 'unbind') {
      const s = socket;
      socket = undefined;
      if (!s) parent.postMessage({ t: 'unbound' });
      else s.close(() => parent.postMessage({ t: 'unbound' }));
    }
  } catch (err) {
    logger.error({ err }, 'bad message from the main thread');
  }
});
parent.postMessage({ t: 'ready' });
