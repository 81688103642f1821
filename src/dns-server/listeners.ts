/**
 * UDP and TCP listeners on one address and port (RFC 1035 §4.2, RFC 7766). TCP: 2-byte length framing,
 * pipelined queries answered as they complete (possibly out of order, RFC 7766 §7), an idle timeout, and a
 * cap on one connection's unread bytes. Every packet is handled inside a try/catch: nothing a client sends can
 * stop the listeners.
 */
import dgram from 'node:dgram';
import net from 'node:net';
import dns from 'node:dns';
import type { AddressInfo } from 'node:net';
import type { Logger } from '../shared/logger.js';
import type { DnsHandler, Responses } from './handler.js';
import type { TransferPart } from './query-types.js';
import { framedRuns } from './framed-parts.js';

/** Options of {@link startListeners}. */
export interface ListenerOptions {
  host: string;
  port: number;
  /** Close TCP connections idle this long (ms). */
  tcpIdleMs: number;
  /**
   * Told when a TCP transfer marked with its zone ({@link Responses.transferOf}) has reached its end: its last
   * message taken by the connection (handed to the kernel), the connection still open.
   */
  onTransferred?: (zoneId: string) => void;
}

/** Running listeners. */
export interface Listeners {
  host: string;
  port: number;
  close(): Promise<void>;
}

/** What answers the queries (the DNS handler of this thread, or the DNS thread). */
export type QueryHandler = Pick<DnsHandler, 'handle'>;

/** A UDP socket bound and served elsewhere (the DNS thread, udp-workers.ts). */
export interface ExternalUdp {
  bind(host: string, port: number): Promise<{ host: string; port: number }>;
  close(): Promise<void>;
}

function isThenable(v: Responses | Promise<Responses>): v is Promise<Responses> {
  return typeof (v as Promise<Responses>).then === 'function';
}

/**
 * Resolves IP literals synchronously. `dgram` otherwise runs every `send` through `dns.lookup`, which defers
 * the send by a tick even for an address literal; replies always go to the literal address of the query, so
 * this roughly halves the cost of a reply (measured with dnsperf: an echo server went from ~60k to ~88k qps).
 */
export function literalLookup(address: string, family: unknown, callback: (err: NodeJS.ErrnoException | null, address: string, family: number) => void): void {
  const kind = net.isIP(address);
  if (kind !== 0) { callback(null, address, kind); return; }
  dns.lookup(address, family as number, callback);
}

function bindUdp(host: string, port: number): Promise<dgram.Socket> {
  return new Promise((resolve, reject) => {
    const socket = dgram.createSocket({ type: net.isIPv6(host) ? 'udp6' : 'udp4', lookup: literalLookup as never });
    socket.once('error', reject);
    socket.bind(port, host, () => {
      socket.off('error', reject);
      resolve(socket);
    });
  });
}

function listenTcp(server: net.Server, host: string, port: number): Promise<void> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
}

/** Resolves once the connection has taken what was written, or closed (no listener is left behind). */
function drained(conn: net.Socket): Promise<void> {
  return new Promise<void>((resolve) => {
    const done = () => { conn.off('drain', done); conn.off('close', done); resolve(); };
    conn.on('drain', done);
    conn.on('close', done);
  });
}

function serveTcpConnection(conn: net.Socket, handler: QueryHandler, opts: ListenerOptions, logger: Logger): void {
  let pending: Buffer = Buffer.alloc(0);
  conn.setNoDelay(true);
  conn.setTimeout(opts.tcpIdleMs, () => conn.destroy());
  conn.on('error', () => conn.destroy());
  const address = conn.remoteAddress ?? '';
  // One write per answer or transfer part: every message behind its two-byte length, in one buffer; `taken` is
  // called once the connection has taken it (with an error when it closed first).
  const write = (responses: TransferPart, taken?: (err?: Error | null) => void): boolean => {
    if (responses.length === 0) { taken?.(); return true; }
    // A transfer's messages come framed already (framed-parts.ts): written as slices, without a copy (from the
    // DNS thread, as those slices).
    const runs = responses.framed ? responses : framedRuns(responses);
    if (runs) {
      if (runs.length === 1) return conn.write(runs[0]!, taken);
      conn.cork();
      for (let i = 0; i < runs.length - 1; i++) conn.write(runs[i]!);
      const ok = conn.write(runs[runs.length - 1]!, taken);
      conn.uncork();
      return ok;
    }
    let total = 0;
    for (const r of responses) total += 2 + r.length;
    const framed = Buffer.allocUnsafe(total);
    let at = 0;
    for (const r of responses) {
      framed.writeUInt16BE(r.length, at);
      framed.set(r, at + 2);
      at += 2 + r.length;
    }
    return conn.write(framed, taken);
  };
  // A marked transfer reached its end when its last write has been taken (no error: the connection was open).
  const ended = (zoneId: string) => (err?: Error | null) => {
    if (!err) opts.onTransferred?.(zoneId);
  };
  const send = (responses: Responses) => {
    if (conn.destroyed) { responses.release?.(); return; }
    const { more, transferOf } = responses;
    if (!more) {
      const end = transferOf !== undefined ? ended(transferOf) : undefined;
      write(responses, responses.release || end ? (err) => { responses.release?.(); end?.(err); } : undefined);
      return;
    }
    let last = writeTaken(responses);
    // A streamed transfer: the next part is asked for as soon as one is written (the DNS thread makes it while
    // the connection sends), and written once the connection has taken the previous ones (at most a part waits
    // here). It has ended when `more` has no more and the last part written has been taken.
    const stream = async () => {
      for (;;) {
        // Queries of other connections go first (an in-process `more` makes its part synchronously).
        await new Promise<void>((resolve) => setImmediate(resolve));
        // Closed: a marked transfer still learns whether what was written was its end (a client closes once
        // it has the last message).
        if (conn.destroyed && transferOf === undefined) return;
        const next = await more();
        if (!next) {
          if (transferOf !== undefined) ended(transferOf)(await last);
          return;
        }
        if (conn.destroyed) { next.release?.(); return; }
        // Whether the connection still owes a drain now (it may have drained while the part was made: waiting
        // for a drain already past held the transfer until the idle timeout).
        if (conn.writableNeedDrain) await drained(conn);
        if (conn.destroyed) { next.release?.(); return; }
        last = writeTaken(next);
      }
    };
    void stream().catch((err: unknown) => { logger.error({ err }, 'zone transfer failed'); conn.destroy(); });
  };
  /** A write; resolves when it is taken (with an error when the connection closed first), its memory given back then. */
  const writeTaken = (responses: TransferPart): Promise<Error | null | undefined> =>
    new Promise((resolve) => { write(responses, (err) => { responses.release?.(); resolve(err); }); });
  conn.on('data', (chunk: Buffer) => {
    pending = pending.length ? Buffer.concat([pending, chunk]) : chunk;
    if (pending.length > 2 * 65_537) { conn.destroy(); return; }
    while (pending.length >= 2) {
      const len = pending.readUInt16BE(0);
      if (pending.length < 2 + len) break;
      const msg = pending.subarray(2, 2 + len);
      pending = pending.subarray(2 + len);
      try {
        const out = handler.handle(msg, { transport: 'tcp', address });
        if (isThenable(out)) out.then(send, (err: unknown) => logger.error({ err }, 'tcp answer failed'));
        else send(out);
      } catch (err) {
        logger.error({ err }, 'tcp packet failed');
      }
    }
  });
}

/** Serves UDP on a socket of this thread. */
function serveUdp(socket: dgram.Socket, handler: QueryHandler, logger: Logger): void {
  socket.on('error', (err) => logger.error({ err }, 'udp socket error'));
  const sendAll = (responses: Responses, port: number, address: string) => {
    for (const r of responses) socket.send(r, port, address);
  };
  socket.on('message', (msg, rinfo) => {
    try {
      const out = handler.handle(msg, { transport: 'udp', address: rinfo.address });
      if (Array.isArray(out)) {
        if (out.length === 1) socket.send(out[0]!, rinfo.port, rinfo.address);
        else if (out.length > 1) sendAll(out, rinfo.port, rinfo.address);
      } else {
        out.then((r) => sendAll(r, rinfo.port, rinfo.address), (err: unknown) => logger.error({ err }, 'udp answer failed'));
      }
    } catch (err) {
      logger.error({ err }, 'udp packet failed');
    }
  });
}

/**
 * Binds UDP and TCP on the same port (port 0: a free port both can use). UDP is served here, or by `external`
 * (the DNS thread) when given.
 */
export async function startListeners(handler: QueryHandler, opts: ListenerOptions, logger: Logger, external?: ExternalUdp): Promise<Listeners> {
  let own: dgram.Socket | undefined;
  const udp: ExternalUdp = external ?? {
    async bind(host, port) {
      own = await bindUdp(host, port);
      const a = own.address() as AddressInfo;
      return { host: a.address, port: a.port };
    },
    async close() {
      const s = own;
      own = undefined;
      if (s) await new Promise<void>((resolve) => s.close(() => resolve()));
    },
  };
  const tcp = net.createServer((conn) => serveTcpConnection(conn, handler, opts, logger));
  let address: { host: string; port: number };
  for (let attempt = 0; ; attempt++) {
    address = await udp.bind(opts.host, opts.port);
    try {
      await listenTcp(tcp, opts.host, address.port);
      break;
    } catch (err) {
      await udp.close();
      if (opts.port !== 0 || attempt > 20) throw err;
    }
  }
  if (own) serveUdp(own, handler, logger);
  const connections = new Set<net.Socket>();
  tcp.on('connection', (c) => { connections.add(c); c.on('close', () => connections.delete(c)); });
  return {
    host: address.host,
    port: address.port,
    async close() {
      await udp.close();
      for (const c of connections) c.destroy();
      await new Promise<void>((resolve) => tcp.close(() => resolve()));
    },
  };
}
