/**
 * Entry point of a UDP worker process (started by udp-workers.ts). It shares the main process's UDP socket
 * (file descriptor 4), keeps a copy of the zone snapshots sent over IPC, and answers from it only while its
 * copy is current: before each query it reads the shared epoch, and when that differs from the epoch of its
 * copy it forwards the query to the main process instead (which rebuilds the zone first when it is dirty).
 */
import { findZone } from './zone-find.js';
import dgram from 'node:dgram';
import { EpochFile } from './epoch.js';
import { DnsHandler, type SnapshotSource } from './handler.js';
import { literalLookup } from './listeners.js';
import { createLogger } from '../shared/logger.js';
import type { ZoneSnapshot } from '../dns/snapshot.js';
import type { WorkerMessage } from './udp-workers.js';

class WorkerZones implements SnapshotSource {
  readonly byName = new Map<string, ZoneSnapshot>();
  readonly byId = new Map<string, ZoneSnapshot>();
  generation = 0;

  find(qname: string): ZoneSnapshot | undefined {
    return findZone(this.byName, qname);
  }

  pendingFor(): undefined {
    return undefined;
  }

  apply(zoneId: string, snapshot: ZoneSnapshot | undefined): void {
    const old = this.byId.get(zoneId);
    if (old && this.byName.get(old.origin) === old) this.byName.delete(old.origin);
    this.byId.delete(zoneId);
    if (snapshot) {
      this.byId.set(zoneId, snapshot);
      this.byName.set(snapshot.origin, snapshot);
    }
    this.generation++;
  }
}

const logger = createLogger(process.argv[3] ?? 'warn').child({ component: 'dns-udp-worker', pid: process.pid });
const epochFile = EpochFile.open(process.argv[2]!);
const zones = new WorkerZones();
const handler = new DnsHandler(zones, [], logger);
let epoch = -1;

process.on('message', (m: WorkerMessage) => {
  try {
    if (m.t === 'zone') {
      zones.apply(m.zoneId, m.snapshot);
    } else if (m.t === 'epoch') {
      epoch = m.epoch;
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
