/**
 * Starts the nginx front door of an edge runtime (`edge-runtime.ts`): its private folder, the reader of the
 * access records nginx writes to a file there (`nginx-access.ts`), and nginx itself (`nginx-front.ts`) on the
 * held edge socket, forwarding to the runtime slots' sockets.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { Logger } from '../../shared/logger.js';
import type { EdgeAccessRecord } from '../control-service.js';
import type { HeldSocket } from '../workerd/socket-holder.js';
import { NginxAccessLog } from './nginx-access.js';
import { findNginx, NginxFront } from './nginx-front.js';

/** What {@link startNginxEdge} needs. */
export interface NginxEdgeOptions {
  /** The runtime's private folder (nginx gets `nginx/` in it). */
  dir: string;
  /** The held edge listener nginx accepts on. */
  socket: HeldSocket;
  /** Unix socket paths of the runtime slots, by slot. */
  slotSockets: string[];
  maxRequestBytes: number;
  workers: number | 'auto';
  /** Size past which the access records' file is rotated. */
  rotateBytes: number;
  /** Receives the access records nginx wrote, in order. */
  receive(records: EdgeAccessRecord[]): void;
  logger: Logger;
}

/** The running nginx front and the reader of its access records. */
export interface NginxEdge {
  nginx: NginxFront;
  access: NginxAccessLog;
}

/** Starts the access records' reader, then nginx. */
export async function startNginxEdge(o: NginxEdgeOptions): Promise<NginxEdge> {
  const dir = path.join(o.dir, 'nginx');
  const accessLog = path.join(dir, 'access.log');
  fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
  let nginx: NginxFront | undefined;
  const access = new NginxAccessLog({
    file: accessLog, rotateBytes: o.rotateBytes, logger: o.logger, receive: o.receive,
    reopen: () => nginx?.reopenLogs() ?? false,
    processes: () => nginx?.processes() ?? [],
  });
  try {
    nginx = await NginxFront.start({
      binary: findNginx() ?? 'nginx', edgeFd: o.socket.fd, dir, logger: o.logger, accessLog,
      listen: { host: o.socket.host, port: o.socket.port },
      slotSockets: o.slotSockets, maxRequestBytes: o.maxRequestBytes, colo: 'STR', workers: o.workers,
    });
  } catch (err) {
    access.close();
    throw err;
  }
  return { nginx, access };
}
