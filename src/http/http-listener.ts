/**
 * Starts a web-standard fetch handler on an HTTP listener (`@hono/node-server`), or HTTPS with `tls`
 * (`node:https`; its certificate replaceable for new connections, `shared/tls-files.ts`), and reports where it
 * listens.
 */
import type { AddressInfo, Socket } from 'node:net';
import https from 'node:https';
import type { SecureContextTarget } from '../shared/tls-files.js';
import { STATUS_CODES, type IncomingMessage, type Server, type ServerOptions, type ServerResponse } from 'node:http';
import { serve, type ServerType } from '@hono/node-server';
import { observeHttp, type HttpObservation, type HttpObserver } from './http-observer.js';

/** A running HTTP listener. */
export interface HttpListener {
  /** `http://host:port` or `https://host:port` (IPv6 hosts in brackets). */
  url: string;
  port: number;
  /** With TLS: replaces the certificate for new connections (open ones keep theirs). */
  tls?: SecureContextTarget;
  /**
   * Stops accepting connections and waits for the requests in flight; keep-alive connections are closed as
   * soon as they are idle. After `graceMs` (default: no limit) the connections still open are closed.
   */
  close(graceMs?: number): Promise<void>;
}

/** How often a closing listener closes the keep-alive connections that became idle. */
const IDLE_SWEEP_MS = 50;
/** The answer to a request Node's HTTP parser refused (bad bytes in a header, headers too large…). */
export interface ParserErrorAnswer {
  contentType: string;
  body: string;
}

/** What Node's parser refused, for an answer that names it (`code` HPE_…, `reason` the parser's message). */
export interface ParserErrorCause {
  code?: string;
  reason?: string;
  /** Node's raw header list (name, value, …) read from the bytes the parser refused, when they hold the whole head. */
  rawHeaders?: string[];
}

/** Options of {@link listenHttp}. */
export interface ListenOptions {
  serverOptions?: ServerOptions;
  /**
   * The body of the answer when Node's parser refuses a request (status 400, 431 for headers too large, 408
   * on a timeout), in the interface's format; the default is Node's bare status line. The request's bytes
   * are never echoed.
   */
  parserError?: (status: number, cause?: ParserErrorCause) => ParserErrorAnswer;
  /**
   * Decides a request that sent `Expect: 100-continue` before its body is sent: an answer refuses it (the
   * client never uploads the body); undefined lets it continue as usual (Node's default sends 100 Continue).
   */
  beforeContinue?: (req: IncomingMessage) => (ParserErrorAnswer & { status: number }) | undefined;
  /** Every request gets an access-log line and is counted in the metrics (http-observer.ts). */
  observe?: HttpObservation;
  /** Serve requests whose `Expect` is not `100-continue` as if it were absent (S3 does) instead of Node's 417. */
  ignoreUnknownExpect?: boolean;
  /** HTTPS with this certificate chain and key (PEM), checked beforehand (`shared/tls-files.ts`). */
  tls?: { cert: Buffer; key: Buffer };
}

/** The keys that tell {@link ListenOptions} from a bare `ServerOptions`. */
const LISTEN_OPTION_KEYS: readonly (keyof ListenOptions)[] = ['serverOptions', 'parserError', 'beforeContinue', 'observe', 'ignoreUnknownExpect', 'tls'];

/**
 * Listens on `host:port` (port 0 picks a free one); rejects when the address cannot be bound. With `observe`,
 * every request gets an access-log line and is counted in the metrics (http-observer.ts), including those
 * refused before the application sees them (parser errors, `Expect: 100-continue` refusals).
 */
export async function listenHttp(
  fetch: (req: Request, env?: unknown) => Response | Promise<Response>,
  listen: { host: string; port: number },
  options: ServerOptions | ListenOptions = {},
): Promise<HttpListener> {
  const opts: ListenOptions = LISTEN_OPTION_KEYS.some((k) => k in options)
    ? options as ListenOptions : { serverOptions: options as ServerOptions };
  let observer: HttpObserver | undefined;
  const server = await new Promise<ServerType>((resolve, reject) => {
    let handler = fetch;
    const base = { fetch: (req: Request, env: unknown) => handler(req, env), hostname: listen.host, port: listen.port };
    const s = opts.tls
      ? serve({ ...base, createServer: https.createServer, serverOptions: { ...opts.serverOptions, cert: opts.tls.cert, key: opts.tls.key } }, () => resolve(s))
      : serve({ ...base, ...(opts.serverOptions ? { serverOptions: opts.serverOptions } : {}) }, () => resolve(s));
    if (opts.observe) {
      observer = observeHttp(s as Server, fetch, opts.observe);
      handler = observer.fetch;
    }
    s.once('error', reject);
  });
  if (opts.ignoreUnknownExpect) server.on('checkExpectation', (req: IncomingMessage, res: ServerResponse) => server.emit('request', req, res));
  const answer = opts.parserError;
  if (answer) {
    const unfinished = watchEarlyAnswers(server as Server);
    server.on('clientError', (err: NodeJS.ErrnoException, socket: Socket) => {
      // The rest of a body answered early (a 501 before the upload) ended short: the request was answered and
      // counted; the client just stopped sending. Nothing to answer or count again.
      if (unfinished.has(socket)) {
        socket.destroy();
        return;
      }
      const status = answerParserError(err, socket, answer);
      if (status !== undefined) observer?.refusedUnparsed(status, socket.remoteAddress);
    });
  }
  if (answer) refuseBadTargets(server as Server, answer, (req, res) => observer?.watch(req, res));
  const decide = opts.beforeContinue;
  if (decide) {
    server.on('checkContinue', (req: IncomingMessage, res: ServerResponse) => {
      const refusal = decide(req);
      if (!refusal) {
        res.writeContinue();
        server.emit('request', req, res);
        return;
      }
      observer?.watch(req, res);
      res.writeHead(refusal.status, { 'content-type': refusal.contentType, 'content-length': Buffer.byteLength(refusal.body), connection: 'close' });
      res.end(refusal.body);
    });
  }
  const address = server.address() as AddressInfo;
  const host = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  let closing: Promise<void> | undefined;
  return {
    url: `${opts.tls ? 'https' : 'http'}://${host}:${address.port}`,
    port: address.port,
    ...(opts.tls ? { tls: server as https.Server } : {}),
    close: (graceMs) => (closing ??= closeGracefully(server as Server, graceMs)),
  };
}

/** server.close(), then idle connections closed as they appear, and every connection once `graceMs` is over. */
function closeGracefully(server: Server, graceMs: number | undefined): Promise<void> {
  return new Promise<void>((resolve) => {
    const sweep = setInterval(() => server.closeIdleConnections(), IDLE_SWEEP_MS);
    const deadline = graceMs === undefined ? undefined : setTimeout(() => server.closeAllConnections(), graceMs);
    server.close(() => {
      clearInterval(sweep);
      if (deadline) clearTimeout(deadline);
      resolve();
    });
    server.closeIdleConnections();
  });
}

/**
 * The connections whose last request was answered before its body had all arrived (Node then reads and drops
 * the rest): a parser error on such a connection is about that body's remainder, not a new request. A
 * connection leaves the set once the body has been read to its end.
 */
function watchEarlyAnswers(server: Server): WeakSet<Socket> {
  const unfinished = new WeakSet<Socket>();
  server.on('request', (req: IncomingMessage, res: ServerResponse) => {
    res.once('finish', () => {
      if (req.complete) return;
      unfinished.add(req.socket);
      req.once('end', () => unfinished.delete(req.socket));
    });
  });
  return unfinished;
}

/** Answers a request the parser refused as Node would (same statuses), with a body in the interface's format. */
function answerParserError(err: NodeJS.ErrnoException, socket: Socket, answer: NonNullable<ListenOptions['parserError']>): number | undefined {
  const started = (socket as Socket & { _httpMessage?: { headersSent?: boolean } })._httpMessage?.headersSent === true;
  if (err.code === 'ECONNRESET' || !socket.writable || started) {
    socket.destroy();
    return undefined;
  }
  const status = err.code === 'HPE_HEADER_OVERFLOW' ? 431 : err.code === 'ERR_HTTP_REQUEST_TIMEOUT' ? 408 : 400;
  const { contentType, body } = answer(status, { code: err.code, reason: (err as { reason?: string }).reason, rawHeaders: rawHeaderList((err as { rawPacket?: Buffer }).rawPacket) });
  socket.end(`HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\nContent-Type: ${contentType}\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`);
  return status;
}

/**
 * Requests Node's parser passes on that RFC 9112 says a server must refuse with 400 (§3.2, §3.2.3, §3.2.4): a
 * request target in neither origin-form (`/path`) nor absolute-form (`http://host/path`, which a server must
 * accept), other than `*` of an OPTIONS request (`GET *`, `GET ftp://…`, `GET host:80`, which the fetch handler
 * could not even turn into a URL), and more than one Host header. Answered 400 in the interface's format, and
 * the connection closed, before any 'request' listener sees them.
 */
function refuseBadTargets(server: Server, answer: (status: number) => ParserErrorAnswer, watch: (req: IncomingMessage, res: ServerResponse) => void): void {
  const listeners = server.listeners('request') as ((req: IncomingMessage, res: ServerResponse) => void)[];
  server.removeAllListeners('request');
  server.on('request', (req: IncomingMessage, res: ServerResponse) => {
    if (acceptableTarget(req) && !repeatsHost(req.rawHeaders)) {
      for (const listener of listeners) listener.call(server, req, res);
      return;
    }
    watch(req, res);
    const { contentType, body } = answer(400);
    res.writeHead(400, { 'content-type': contentType, 'content-length': Buffer.byteLength(body), connection: 'close' });
    res.end(body);
  });
}

/** True for a request target in origin-form, absolute-form with http(s), or `*` of OPTIONS. */
function acceptableTarget(req: IncomingMessage): boolean {
  const target = req.url ?? '';
  if (target.startsWith('/')) return true;
  if (target === '*') return req.method === 'OPTIONS';
  return /^https?:\/\/[^/?#]+/i.test(target);
}

/** True when the raw header list (name, value, …) holds Host more than once. */
function repeatsHost(rawHeaders: readonly string[]): boolean {
  let hosts = 0;
  for (let i = 0; i < rawHeaders.length; i += 2) if (rawHeaders[i]!.toLowerCase() === 'host' && ++hosts > 1) return true;
  return false;
}

/** The header lines of a refused request's bytes as a raw header list (name, value, …), if the whole head is there. */
function rawHeaderList(packet: Buffer | undefined): string[] | undefined {
  if (!Buffer.isBuffer(packet)) return undefined;
  const end = packet.indexOf('\r\n\r\n');
  if (end < 0) return undefined;
  const out: string[] = [];
  for (const line of packet.subarray(0, end).toString('latin1').split('\r\n').slice(1)) {
    const colon = line.indexOf(':');
    if (colon > 0) out.push(line.slice(0, colon).trim(), line.slice(colon + 1).trim());
  }
  return out;
}
