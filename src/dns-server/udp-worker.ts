/**
 * Entry point of a UDP worker process (started by udp-workers.ts). It shares the main process's UDP socket
 * (file descriptor 4), keeps a copy of the zones by replaying the zone cache's updates sent over IPC, and
 * answers from it only while its copy is current: before each query it reads the shared epoch, and when that
 * differs from the epoch of its copy it forwards the query to the main process instead.
 */
import dgram from 'node:dgram';
import { EpochFile } from './epoch.js';
import { DnsHandler, type SnapshotSource } from './handler.js';
import { literalLookup } from './listeners.js';
import { createLogger } from '../shared/logger.js';
import { ZoneTree } from '../dns/zone-tree.js';
import { ZoneSet, type Invalidation } from './zone-set.js';
import type { ZoneUpdate } from './zone-cache.js';
import type { WorkerMessage } from './udp-workers.js';
import { QueryLog } from './query-log.js';
import { queryStats } from './query-stats.js';
import { ZoneSigning } from './signing.js';
import { SecretBox } from '../scripts/secret-box.js';

/** The worker's copy of the zones. */
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

  /** Replays one update of the main process's zone cache. */
  apply(u: ZoneUpdate): void {
    if (u.t === 'reset') { this.zones.put(new ZoneTree(u.zone, u.edge)); return; }
    if (u.t === 'remove') { this.zones.remove(u.zoneId); return; }
    const tree = this.zones.get(u.t === 'zone' ? u.zone.id : u.zoneId);
    if (!tree) return;
    const report = u.t === 'zone' ? tree.setZone(u.zone) : tree.apply(u.records, u.serial);
    this.zones.invalidate(report.wholeZone ? { zoneId: tree.zoneId } : { zoneId: tree.zoneId, names: report.names });
  }
}

const rootLogger = createLogger(process.argv[3] ?? 'warn', process.argv[6] === 'pretty' ? 'pretty' : 'json');
const logger = rootLogger.child({ component: 'dns-udp-worker', pid: process.pid });
const epochFile = EpochFile.open(process.argv[2]!);
const zones = new WorkerZones();
/** Opens zone keys once the main process has sent the secrets key (its first message, before any zone). */
let box: SecretBox | undefined;
const signing = new ZoneSigning((sealed, context) => {
  if (!box) throw new Error('no secrets key received');
  return box.open(sealed, context);
}, logger);
const handler = new DnsHandler(zones, [], logger, new QueryLog(rootLogger.child({ pid: process.pid }), Number(process.argv[5] ?? 100)), signing);
/** Counts of the queries answered here go to the main process, which exposes them (query-stats.ts). */
const STATS_EVERY_MS = 1000;
setInterval(() => { if (!queryStats.idle) process.send?.({ t: 'stats', counts: queryStats.drain() }); }, STATS_EVERY_MS).unref();
let epoch = -1;

process.on('message', (m: WorkerMessage) => {
  try {
    if (m.t === 'updates') {
      for (const u of m.updates) zones.apply(u);
    } else if (m.t === 'epoch') {
      epoch = m.epoch;
    } else if (m.t === 'secrets') {
      box = new SecretBox(Buffer.from(m.key, 'base64'));
    }
  } catch (err) {
    logger.error({ err }, 'bad message from the main process');
  }
});
process.on('disconnect', () => process.exit(0));
// Ctrl-C reaches the whole process group: the main process decides when workers stop (SIGTERM, or its exit,
// which disconnects the channel), so a worker does not die under it while it drains.
process.on('SIGINT', () => {});

const socket = dgram.createSocket({ type: process.argv[4] === 'udp6' ? 'udp6' : 'udp4', lookup: literalLookup as never });
socket.on('error', (err) => logger.error({ err }, 'udp socket error'));
socket.on('message', (msg, rinfo) => {
  try {
    if (epochFile.read() !== epoch) {
      process.send?.({ t: 'query', msg, address: rinfo.address, port: rinfo.port });
      return;
    }
    const out = handler.handle(msg, { transport: 'udp', address: rinfo.address });
    if (Array.isArray(out)) for (const r of out) socket.send(r, rinfo.port, rinfo.address);
  } catch (err) {
    logger.error({ err }, 'udp packet failed');
  }
});
socket.bind({ fd: 4 }, () => process.send?.({ t: 'ready' }));
