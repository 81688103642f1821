/**
 * Starts the nginx front door of an edge runtime (`edge-runtime.ts`): its private folder, the reader of its
 * access records, the `--edge-tls` socket it ends TLS on (held here, when nginx has its stream module), and
 * nginx itself on the held sockets.
 */
import fs from 'node:fs';
import path from 'node:path';
import type { Logger } from '../../shared/logger.js';
import type { EdgeAccessRecord } from '../control-service.js';
import { holdListeningSocket, type HeldSocket } from '../workerd/socket-holder.js';
import { NginxAccessLog } from './nginx-access.js';
import { findNginx, findStreamModule, NginxFront, type NginxFrontOptions } from './nginx-front.js';

/** What {@link startNginxDoor} needs besides nginx's own settings. */
export interface NginxDoorOptions extends Omit<NginxFrontOptions, 'binary' | 'dir' | 'accessLog' | 'tls'> {
  /** The runtime's private folder (nginx gets a folder of its own inside). */
  runtimeDir: string;
  rotateBytes: number;
  /** Receives the access records nginx wrote. */
  receive(records: EdgeAccessRecord[]): void;
  /** `--edge-tls`, which nginx ends TLS on when it has its stream module. */
  tls: { host: string; port: number } | undefined;
}

/** A started nginx door. */
export interface NginxDoor {
  nginx: NginxFront;
  access: NginxAccessLog;
  /** The held `--edge-tls` socket when nginx ends TLS on it. */
  tlsSocket: HeldSocket | undefined;
}

/** Starts nginx with its access log reader (and the `--edge-tls` socket when it can end TLS). */
export async function startNginxDoor(o: NginxDoorOptions): Promise<NginxDoor> {
  const dir = path.join(o.runtimeDir, 'nginx');
  const accessLog = path.join(dir, 'access.log');
  fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
  let nginx: NginxFront | undefined;
  const access = new NginxAccessLog({
    file: accessLog, rotateBytes: o.rotateBytes, logger: o.logger, receive: o.receive,
    reopen: () => nginx?.reopenLogs() ?? false,
    processes: () => nginx?.processes() ?? [],
  });
  const streamModule = o.tls ? findStreamModule() : undefined;
  if (o.tls && !streamModule) o.logger.warn('nginx has no stream module (Debian: libnginx-mod-stream): Node ends TLS for --edge-tls');
  const tlsSocket = o.tls && streamModule ? await holdListeningSocket(o.tls.host, o.tls.port) : undefined;
  try {
    nginx = await NginxFront.start({
      ...o, binary: findNginx() ?? 'nginx', dir, accessLog,
      tls: tlsSocket && streamModule
        ? { fd: tlsSocket.fd, listen: { host: tlsSocket.host, port: tlsSocket.port }, module: streamModule, nodeSocket: path.join(dir, 'tls-node.sock') } : undefined,
    });
  } catch (err) {
    access.close();
    await tlsSocket?.close();
    throw err;
  }
  return { nginx, access, tlsSocket };
}
