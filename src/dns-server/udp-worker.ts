/**
 * Entry point of the DNS thread (a `worker_threads` worker started by udp-workers.ts). It owns the UDP
 * socket, keeps its own copy of the zones by replaying the zone cache's updates, and answers from it, so UDP
 * answers never wait for the main thread's event loop (which serves the v4 API and writes the database).
 *
 * It also answers the TCP queries the main thread hands it (TCP connections and AXFR stay there), since the
 * main thread keeps no records (zone-mirror.ts).
 *
 * Freshness: updates arrive on a MessagePort, numbered; the main thread stores the number of the last one it
 * posted in shared memory right after posting it (synchronously, before the API call that caused it
 * responds). Batches also carry which zones have work queued in the main thread (a big changeset, a load).
 * Before each query the thread takes the missing updates off the port synchronously (`receiveMessageOnPort`)
 * and answers, unless the query's zone has work queued: then the query is held until the updates finishing
 * that work arrive. So no answer is older than an API call that returned before the query.
 *
 * The UDP socket is the native addon's when it is built (native-udp.ts: batches, packet-cache hits answered
 * natively after the same freshness check, the rest handed here once per batch), else Node's `dgram`.
 */
import dgram from 'node:dgram';
import net from 'node:net';
import { parentPort, receiveMessageOnPort, workerData, type MessagePort } from 'node:worker_threads';
import { DnsHandler, type Responses, type SnapshotSource } from './handler.js';
import { literalLookup } from './listeners.js';
import { createLogger } from '../shared/logger.js';
import { ZoneTree } from '../dns/zone-tree.js';
import type { EdgeAddresses, SnapshotZone } from '../dns/snapshot-types.js';
import type { JournalEntry } from '../dns/zone-journal.js';
import { ZoneSet, type Invalidation } from './zone-set.js';
import type { ZoneUpdate } from './zone-update.js';
import type { ThreadCommand, ThreadInit, UpdateBatch } from './udp-workers.js';
import { QueryLog } from './query-log.js';
import { queryStats } from './query-stats.js';
import { signingWith } from './signing.js';
import { loadNativeUdp, NativeUdp, type NativeMiss } from './native-udp.js';
import { framedRuns, sharedChunks, transferList } from './framed-parts.js';

/** A zone tree of this thread; its IXFR journal entries go to the main thread, which keeps them (journal-store.ts). */
function newTree(zone: SnapshotZone, edge: EdgeAddresses): ZoneTree {
  return Object.assign(new ZoneTree(zone, edge), { onJournal: (zoneId: string, entry: JournalEntry) => parentPort!.postMessage({ t: 'journal', zoneId, entry }) });
}

/** The thread's copy of the zones, and the trees of zones being loaded (staged until their `reset`). */
class WorkerZones implements SnapshotSource {
  private readonly zones = new ZoneSet<ZoneTree>();
  private readonly staged = new Map<string, ZoneTree>();

  find(qname: string): ZoneTree | undefined {
    return this.zones.find(qname);
  }

  /** The zones served. */
  all(): ZoneTree[] {
    return this.zones.all();
  }

  pendingFor(): undefined {
    return undefined;
  }

  onInvalidate(listener: (inv: Invalidation) => void): void {
    this.zones.onInvalidate(listener);
  }

  /** Replays one update of the main thread's zone cache. */
  apply(u: ZoneUpdate): void {
    if (u.t === 'stage') { this.staged.set(u.zone.id, newTree(u.zone, u.edge)); return; }
    if (u.t === 'reset') {
      const staged = this.staged.get(u.zone.id);
      this.staged.delete(u.zone.id);
      if (staged) for (const s of staged.skipped) logger.warn({ zoneId: u.zone.id, recordId: s.id, reason: s.reason }, 'record not served');
      this.zones.put(staged ?? newTree(u.zone, u.edge));
      return;
    }
    if (u.t === 'remove') { this.staged.delete(u.zoneId); this.zones.remove(u.zoneId); return; }
    if (u.t === 'journal') {
      const t = this.zones.get(u.zoneId);
      if (t && t.serial === u.serial) t.journal.seed(u.entries);
      return;
    }
    const id = u.t === 'zone' ? u.zone.id : u.zoneId;
    if (u.staged) {
      const tree = this.staged.get(id);
      if (tree && u.t === 'zone') tree.setZone(u.zone);
      else if (tree && u.t === 'changes') tree.apply(u.records, u.serial);
      return;
    }
    const tree = this.zones.get(id);
    if (!tree) return;
    const report = u.t === 'zone' ? tree.setZone(u.zone) : tree.apply(u.records, u.serial);
    this.zones.invalidate(report.wholeZone ? { zoneId: tree.zoneId } : { zoneId: tree.zoneId, names: report.names });
  }
}

const init = workerData as ThreadInit;
const parent = parentPort!;
const updates: MessagePort = init.updates;
/** [0]: number of the last update batch posted; [1]: 1 while updates wait to be posted (every query waits). */
const state = new Int32Array(init.shared);
const rootLogger = createLogger(init.logLevel, init.logFormat);
const logger = rootLogger.child({ component: 'dns-thread' });
ZoneTree.setJournalVersions(init.ixfrHistory);
const zones = new WorkerZones();
const queryLog = new QueryLog(rootLogger.child({ thread: 'dns' }), init.logRate);
const handler = new DnsHandler(zones, init.transferAllow, logger, queryLog, signingWith(init.secretsKey, logger));
handler.onNotify = (zoneId) => parent.postMessage({ t: 'notified', zoneId });
handler.onTransferred = (zoneId) => parent.postMessage({ t: 'transferred', zoneId });
/** Counts of the queries answered here go to the main thread, which exposes them (query-stats.ts). */
const STATS_EVERY_MS = 1000;
setInterval(() => {
  native?.drainInto(queryStats);
  if (!queryStats.idle) parent.postMessage({ t: 'stats', counts: queryStats.drain() });
}, STATS_EVERY_MS).unref();
/** Queries held while their zone has work queued in the main thread, at most this many (UDP ones beyond are dropped). */
const MAX_WAITING = 10_000;
/** How often held queries are looked at again (ms), besides whenever an update arrives. */
const RECHECK_MS = 2;

let applied = 0;
/** Zones whose queries wait (work queued in the main thread), and whether names in no zone wait. */
let blocking: { ids: Set<string>; unborn: boolean } = { ids: new Set(), unborn: false };
function take(batch: UpdateBatch): void {
  try {
    for (const u of batch.updates) zones.apply(u);
  } catch (err) {
    logger.error({ err }, 'zone update failed in the DNS thread');
  }
  if (batch.blocking) blocking = { ids: new Set(batch.blocking.zoneIds), unborn: batch.blocking.unborn };
  applied = batch.seq;
  native?.applied(applied, blocking.ids.size > 0 || blocking.unborn);
}
updates.on('message', (batch: UpdateBatch) => {
  take(batch);
  if (waiting.length) answerWaiting();
});

/** Takes every update posted so far (synchronously); false when some are not posted yet. */
function catchUp(): boolean {
  if (Atomics.load(state, 1) !== 0) return false;
  const target = Atomics.load(state, 0);
  while (applied < target) {
    const next = receiveMessageOnPort(updates);
    if (!next) return false;
    take(next.message as UpdateBatch);
  }
  return true;
}

/** The question name of a query, lowercase, without the trailing dot ('' when unreadable). */
function questionName(msg: Uint8Array): string {
  const labels: string[] = [];
  let o = 12;
  while (o < msg.length) {
    const len = msg[o]!;
    if (len === 0 || len > 63 || o + 1 + len > msg.length) break;
    labels.push(Buffer.from(msg.buffer, msg.byteOffset + o + 1, len).toString('latin1').toLowerCase());
    o += 1 + len;
  }
  return labels.join('.');
}

/** True when the copy is current for this query: every update taken, and its zone has no work queued. */
function current(msg: Uint8Array): boolean {
  if (!catchUp()) return false;
  if (blocking.ids.size === 0 && !blocking.unborn) return true;
  const zone = zones.find(questionName(msg));
  return zone ? !blocking.ids.has(zone.zoneId) : !blocking.unborn;
}

interface Waiting { msg: Uint8Array; address: string; transport: 'udp' | 'tcp'; reply: (out: Uint8Array[]) => void }
let waiting: Waiting[] = [];
let recheck: NodeJS.Timeout | undefined;

function answer(q: Waiting): void {
  const out = handler.handle(q.msg, { transport: q.transport, address: q.address });
  if (Array.isArray(out)) q.reply(out);
  else out.then(q.reply, (err: unknown) => logger.error({ err }, 'answer failed'));
}

function answerWaiting(): void {
  const still: Waiting[] = [];
  for (const q of waiting) {
    try {
      if (current(q.msg)) answer(q);
      else still.push(q);
    } catch (err) {
      logger.error({ err }, 'held query failed');
    }
  }
  waiting = still;
  if (waiting.length && !recheck) recheck = setTimeout(() => { recheck = undefined; answerWaiting(); }, RECHECK_MS);
}

/**
 * Tests only: a query for this name (STRATUS_TEST_CRASH_DNS_THREAD, unset in production) throws in the thread
 * outside any handler, as a bug would, so tests see the thread restarted (udp-workers.ts).
 */
const CRASH_NAME = process.env.STRATUS_TEST_CRASH_DNS_THREAD?.toLowerCase().replace(/\.$/, '');

/** Answers a query now, or holds it until its zone is current. */
function query(q: Waiting): void {
  if (CRASH_NAME && questionName(q.msg) === CRASH_NAME) setImmediate(() => { throw new Error('DNS thread crash asked for by STRATUS_TEST_CRASH_DNS_THREAD'); });
  if (waiting.length === 0 && current(q.msg)) { answer(q); return; }
  if (waiting.length >= MAX_WAITING && q.transport === 'udp') return;
  waiting.push(q);
  answerWaiting();
}

/** A streamed transfer is dropped when the main thread has not asked for its next part for this long (ms). */
const STREAM_IDLE_MS = 60_000;
/** Streamed zone transfers (axfr.ts) whose next parts the main thread asks for, by the id of their query. */
const streams = new Map<number, { more: NonNullable<Responses['more']>; timer: NodeJS.Timeout }>();

/**
 * A reply or part as posted: its messages, or (laid out framed, framed-parts.ts) a view of each run of them,
 * the TCP stream's bytes; a part's `release` stays here (the main thread gives its chunks back by number).
 */
function posted(out: readonly Uint8Array[]): { out: Uint8Array[]; framed?: true } {
  const runs = out.length > 1 ? framedRuns(out) : undefined;
  return runs ? { out: runs, framed: true } : { out: [...out] };
}

/** Posts a TCP query's reply; a streamed transfer's next parts wait for the main thread's `more`. */
function replyStreaming(id: number, out: Uint8Array[] & Pick<Responses, 'more' | 'transferOf'>): void {
  if (out.more) keepStream(id, out.more);
  parent.postMessage({ t: 'reply', id, ...posted(out), more: out.more !== undefined, ...(out.transferOf !== undefined ? { transferOf: out.transferOf } : {}) }, transferList(out));
}

function keepStream(id: number, more: NonNullable<Responses['more']>): void {
  clearTimeout(streams.get(id)?.timer);
  streams.set(id, { more, timer: setTimeout(() => streams.delete(id), STREAM_IDLE_MS).unref() });
}

/** Makes and posts the next part of a streamed transfer (no more parts once it returns none). */
function morePart(id: number): void {
  const s = streams.get(id);
  if (!s) { parent.postMessage({ t: 'part', id, out: [], more: false, failed: true }); return; }
  keepStream(id, s.more);
  Promise.resolve(s.more()).then((out) => {
    if (!out) { clearTimeout(s.timer); streams.delete(id); }
    parent.postMessage({ t: 'part', id, ...posted(out ?? []), more: out !== undefined }, transferList(out ?? []));
  }, (err: unknown) => {
    logger.error({ err }, 'zone transfer failed');
    streams.delete(id);
    parent.postMessage({ t: 'part', id, out: [], more: false, failed: true });
  });
}

/** Reports `synced` once every update posted is applied and no zone has work queued (udp-workers.ts: readiness). */
function reportSynced(): void {
  if (catchUp() && blocking.ids.size === 0 && !blocking.unborn) parent.postMessage({ t: 'synced', names: zones.all().reduce((n, z) => n + z.nodes.size, 0) });
  else setTimeout(reportSynced, RECHECK_MS);
}

/** The UDP socket: Node's `dgram`, or the native batched path (native-udp.ts) unless --dns-native-udp off. */
let socket: dgram.Socket | undefined;
let native: NativeUdp | undefined;

function send(out: readonly Uint8Array[], port: number, address: string): void {
  for (const r of out) socket?.send(r, port, address);
}

function bound(host: string, port: number, udp: 'native' | 'js', why?: string): void {
  parent.postMessage({ t: 'bound', host, port, udp, ...(why ? { why } : {}) });
}

function bind(host: string, port: number): void {
  const loaded = init.nativeUdp ? loadNativeUdp() : { why: 'native UDP path off (--dns-native-udp off)' };
  if (loaded.addon && net.isIP(host)) {
    try {
      bindNative(new NativeUdp(loaded.addon, host, port, state, {
        onMisses: nativeMisses,
        onLogged: (q, address, answer, seconds) => queryLog.offer(q, [answer], { transport: 'udp', address }, seconds),
        log: queryLog.active ? { state: queryLog.state, perSecond: queryLog.perSecond } : undefined,
      }));
    } catch (err) {
      const e = err as NodeJS.ErrnoException;
      parent.postMessage({ t: 'bind-failed', message: e.message, code: e.code });
    }
    return;
  }
  bindDgram(host, port, loaded.why ?? 'the DNS address is a host name, not an IP address');
}

function bindNative(s: NativeUdp): void {
  native = s;
  s.applied(applied, blocking.ids.size > 0 || blocking.unborn);
  handler.onCachedAnswer = (q, answer, zoneId, expiresAt) => s.install(q, answer, zoneId, expiresAt);
  const a = s.address();
  bound(a.address, a.port, 'native');
}

/** Queries the native path hands over: answered as `dgram`'s are, the answers sent back natively. */
function nativeMisses(misses: NativeMiss[]): void {
  const s = native;
  for (const m of misses) {
    try {
      query({ msg: m.msg, address: m.address, transport: 'udp', reply: (out) => { for (const r of out) if (native === s) s?.send(m.sockaddr, r); } });
    } catch (err) {
      logger.error({ err }, 'udp packet failed');
    }
  }
}

zones.onInvalidate((inv) => native?.invalidate(inv.zoneId));

function bindDgram(host: string, port: number, why: string): void {
  const s = dgram.createSocket({ type: host.includes(':') ? 'udp6' : 'udp4', lookup: literalLookup as never });
  s.once('error', (err: NodeJS.ErrnoException) => parent.postMessage({ t: 'bind-failed', message: err.message, code: err.code }));
  s.bind(port, host, () => {
    s.removeAllListeners('error');
    s.on('error', (err) => logger.error({ err }, 'udp socket error'));
    socket = s;
    const a = s.address();
    bound(a.address, a.port, 'js', why);
  });
  s.on('message', (msg, rinfo) => {
    try {
      query({ msg, address: rinfo.address, transport: 'udp', reply: (out) => send(out, rinfo.port, rinfo.address) });
    } catch (err) {
      logger.error({ err }, 'udp packet failed');
    }
  });
}

function unbind(): void {
  const s = socket;
  socket = undefined;
  if (native) {
    native.close();
    native = undefined;
    handler.onCachedAnswer = undefined;
  }
  if (!s) parent.postMessage({ t: 'unbound' });
  else s.close(() => parent.postMessage({ t: 'unbound' }));
}

parent.on('message', (m: ThreadCommand) => {
  try {
    if (m.t === 'ask') query({ msg: m.msg, address: m.address, transport: 'tcp', reply: (out) => replyStreaming(m.id, out) });
    else if (m.t === 'more') morePart(m.id);
    else if (m.t === 'release') sharedChunks.give(m.chunks);
    else if (m.t === 'sync') reportSynced();
    else if (m.t === 'bind') bind(m.host, m.port);
    else if (m.t === 'unbind') unbind();
    else if (m.t === 'policies') handler.setTransferPolicies(m.policies);
  } catch (err) {
    logger.error({ err }, 'bad message from the main thread');
  }
});
parent.postMessage({ t: 'ready' });
