/**
 * UDP worker processes: Node answers one datagram per event-loop turn, so on a machine with several cores
 * Stratus forks workers that read from the same UDP socket (the main process's descriptor, inherited) and
 * answer from their own copy of the snapshots, sent over IPC with v8 serialization.
 *
 * Freshness across processes: a shared epoch counter (epoch.ts). The main process bumps it synchronously when
 * the change feed fires (before the API responds) and on every snapshot swap; it tells the workers the
 * counter's value ("your copy is current") only when no zone is dirty or rebuilding, right after sending the
 * latest snapshot of every zone swapped since the last time (one copy per quiet period, not one per rebuild). A worker whose copy's epoch differs from the file forwards the query to the main process, which
 * answers through the same socket after rebuilding the zone if it is dirty. So no worker answers from a copy older than
 * an API call that has returned.
 */
import { fork, type ChildProcess } from 'node:child_process';
import type dgram from 'node:dgram';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Logger } from '../shared/logger.js';
import type { ZoneSnapshot } from '../dns/snapshot.js';
import type { ZoneCache } from './zone-cache.js';
import type { DnsHandler } from './handler.js';
import { EpochFile } from './epoch.js';
import { queryStats, type QueryCounts } from './query-stats.js';
import type { LogFormat } from '../config/config.js';

/** Messages to a worker. */
export type WorkerMessage =
  | { t: 'zone'; zoneId: string; snapshot: ZoneSnapshot | undefined }
  | { t: 'epoch'; epoch: number };

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
  logger: Logger;
  logLevel: string;
  /** Query access lines per second and worker (query-log.ts). */
  logRate: number;
  logFormat: LogFormat;
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
  // Snapshots swapped since the workers were last told they are current, sent when the cache is idle: under
  // constant writes a zone is rebuilt again and again, and only the last copy is worth serializing to every
  // worker (meanwhile the workers forward that zone's queries, as their copy is stale).
  const unsent = new Map<string, ZoneSnapshot | undefined>();
  const tellCurrent = () => {
    for (const [zoneId, snapshot] of unsent) broadcast({ t: 'zone', zoneId, snapshot });
    unsent.clear();
    told = epoch.current;
    broadcast({ t: 'epoch', epoch: told });
  };
  for (const s of opts.cache.all()) unsent.set(s.zoneId, s);
  tellCurrent();
  opts.cache.onSwap((zoneId, snapshot) => {
    epoch.bump();
    unsent.set(zoneId, snapshot);
  });
  opts.cache.onIdle(tellCurrent);

  return {
    count: workers.size,
    markStale() {
      if (epoch.current === told) epoch.bump();
    },
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
