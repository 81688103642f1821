/**
 * UDP worker processes: Node answers one datagram per event-loop turn, so on a machine with several cores
 * Stratus forks workers that read from the same UDP socket (the main process's descriptor, inherited) and
 * answer from their own copy of the zones, kept by replaying the zone cache's updates (a zone's records once
 * when it is loaded, then only changesets), sent over IPC with v8 serialization, batched once per event-loop turn.
 *
 * Freshness across processes: a shared epoch counter (epoch.ts). The main process bumps it synchronously when
 * the change feed fires (before the API responds) and whenever it applies an update the workers have not had;
 * it tells the workers the counter's value ("your copy is current") right after sending them every update so
 * far, when no zone has work queued. A worker whose copy's epoch differs from the file forwards the query to
 * the main process, which answers through the same socket (after its own zone work when some is queued). So
 * no worker answers from a copy older than an API call that has returned.
 */
import { fork, type ChildProcess } from 'node:child_process';
import type dgram from 'node:dgram';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Logger } from '../shared/logger.js';
import { COPY_SLICE, type ZoneCache, type ZoneUpdate } from './zone-cache.js';
import type { DnsHandler } from './handler.js';
import { EpochFile } from './epoch.js';
import { queryStats, type QueryCounts } from './query-stats.js';
import type { LogFormat } from '../config/config.js';

/** Longest run of update serialization per event-loop turn (ms). */
const FLUSH_MS = 4;

/** Messages to a worker. */
export type WorkerMessage =
  | { t: 'updates'; updates: ZoneUpdate[] }
  | { t: 'epoch'; epoch: number }
  /** The secrets key (base64), sent first: zone keys arrive sealed with it (signing.ts). */
  | { t: 'secrets'; key: string };

/** Messages from a worker. */
export type WorkerReport = { t: 'ready' } | { t: 'query'; msg: Uint8Array; address: string; port: number } | { t: 'stats'; counts: QueryCounts };

/** Running workers. */
export interface UdpWorkers {
  count: number;
  /** Marks every worker's copy stale (call synchronously when a change is announced). */
  markStale(): void;
  close(): Promise<void>;
}

/** Options of {@link startUdpWorkers}. */
export interface UdpWorkerOptions {
  socket: dgram.Socket;
  count: number;
  cache: ZoneCache;
  handler: DnsHandler;
  /** The edge addresses proxied records are answered with (the workers build their zones with them). */
  edge: { ipv4: readonly string[]; ipv6: readonly string[] };
  logger: Logger;
  logLevel: string;
  /** Query access lines per second and worker (query-log.ts). */
  logRate: number;
  logFormat: LogFormat;
  /** The secrets key that opens zone signing keys (sent to each worker over its IPC channel, never in argv). */
  secretsKey?: Buffer | undefined;
}

/** Starts the workers; undefined when none can run here (count 0, no compiled worker script, no descriptor). */
export async function startUdpWorkers(opts: UdpWorkerOptions): Promise<UdpWorkers | undefined> {
  if (opts.count <= 0) return undefined;
  const script = fileURLToPath(new URL('./udp-worker.js', import.meta.url));
  const fd = socketDescriptor(opts.socket);
  if (!fs.existsSync(script) || typeof fd !== 'number' || fd < 0) {
    opts.logger.info('UDP workers unavailable here (no compiled worker script or socket descriptor); answering in one process');
    return undefined;
  }
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'stratus-dns-epoch-'));
  const epoch = EpochFile.create(path.join(dir, 'epoch'));
  const type = opts.socket.address().family === 'IPv6' ? 'udp6' : 'udp4';
  const workers = new Set<ChildProcess>();
  let closing = false;

  const broadcast = (m: WorkerMessage) => {
    for (const w of workers) if (w.connected) w.send(m, (err) => { if (err && !closing) opts.logger.warn({ err }, 'worker IPC failed'); });
  };
  const answerForwarded = (m: WorkerReport) => {
    if (m.t !== 'query') return;
    const msg = Buffer.from(m.msg.buffer, m.msg.byteOffset, m.msg.byteLength);
    const send = (out: Buffer[]) => { for (const r of out) opts.socket.send(r, m.port, m.address); };
    const out = opts.handler.handle(msg, { transport: 'udp', address: m.address });
    if (Array.isArray(out)) send(out);
    else out.then(send, (err: unknown) => opts.logger.error({ err }, 'forwarded answer failed'));
  };

  const ready: Promise<void>[] = [];
  for (let i = 0; i < opts.count; i++) {
    const child = fork(script, [epoch.path, opts.logLevel, type, String(opts.logRate), opts.logFormat], { stdio: ['ignore', 'inherit', 'inherit', 'ipc', fd], serialization: 'advanced' });
    workers.add(child);
    if (opts.secretsKey) child.send({ t: 'secrets', key: opts.secretsKey.toString('base64') } satisfies WorkerMessage);
    ready.push(new Promise<void>((resolve, reject) => {
      child.once('error', reject);
      child.on('message', (m: WorkerReport) => {
        if (m.t === 'ready') resolve();
        else if (m.t === 'stats') queryStats.add(m.counts);
        else { try { answerForwarded(m); } catch (err) { opts.logger.error({ err }, 'forwarded query failed'); } }
      });
      child.once('exit', (code) => {
        workers.delete(child);
        if (!closing) opts.logger.error({ code }, 'DNS UDP worker exited');
        reject(new Error(`worker exited with ${code}`));
      });
    }));
  }
  try {
    await Promise.all(ready);
  } catch (err) {
    closing = true;
    for (const w of workers) w.kill('SIGKILL');
    epoch.close();
    fs.rmSync(dir, { recursive: true, force: true });
    opts.logger.error({ err }, 'DNS UDP workers failed to start; answering in one process');
    return undefined;
  }

  // The last epoch the workers were told is current. Once the file differs from it, every worker copy is stale
  // already, so later changes need not write the file again (one write per burst of writes, not per write).
  let told = epoch.current;
  // Workers start at no epoch: the first flush tells them the current one even when there is nothing to send.
  let announced = false;
  const stale = () => { if (epoch.current === told) epoch.bump(); };
  // Updates not sent yet: sent once per event-loop turn, for at most FLUSH_MS of serialization per turn (a big
  // zone's copy goes out over several turns), then the epoch, once all are sent and no zone has work queued.
  let unsent: ZoneUpdate[] = [];
  let flushing = false;
  const flush = () => {
    flushing = false;
    const end = performance.now() + FLUSH_MS;
    let sent = 0;
    while (sent < unsent.length && performance.now() < end) broadcast({ t: 'updates', updates: [unsent[sent++]!] });
    unsent = unsent.slice(sent);
    if (unsent.length) { schedule(); return; }
    if (opts.cache.busy || (announced && told === epoch.current)) return;
    announced = true;
    told = epoch.current;
    broadcast({ t: 'epoch', epoch: told });
  };
  const schedule = () => {
    if (flushing) return;
    flushing = true;
    setImmediate(flush);
  };
  for (const tree of opts.cache.all()) {
    unsent.push({ t: 'reset', zone: tree.zoneFields, edge: opts.edge });
    const records = [...tree.records()].map((r) => ({ id: r.id, before: null, after: r }));
    for (let i = 0; i < records.length; i += COPY_SLICE) unsent.push({ t: 'changes', zoneId: tree.zoneId, serial: tree.serial, records: records.slice(i, i + COPY_SLICE) });
    stale();
  }
  schedule();
  opts.cache.onUpdate((u) => {
    stale();
    unsent.push(u);
    schedule();
  });
  opts.cache.onIdle(schedule);

  return {
    count: workers.size,
    markStale: stale,
    async close() {
      closing = true;
      await Promise.all([...workers].map((w) => new Promise<void>((resolve) => {
        if (w.exitCode !== null) { resolve(); return; }
        w.once('exit', () => resolve());
        w.kill('SIGTERM');
      })));
      epoch.close();
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}

/**
 * The OS descriptor of a bound UDP socket, or undefined. Node has no public accessor: the socket's internal
 * state object (keyed by a symbol) holds the handle. Read there rather than through the `_handle` getter, which
 * prints a deprecation warning (DEP0112) in every server start.
 */
function socketDescriptor(socket: dgram.Socket): number | undefined {
  const holder = socket as unknown as Record<symbol, unknown>;
  for (const key of Object.getOwnPropertySymbols(socket)) {
    const state = holder[key] as { handle?: { fd?: unknown } } | undefined;
    if (state && typeof state === 'object' && 'handle' in state && typeof state.handle?.fd === 'number') return state.handle.fd;
  }
  return undefined;
}
