/**
 * The store service's HTTP/1.1 on the wire: the requests workerd's bucket binding sends, and nothing more.
 * Every bucket operation of every script is one request here, so Node's general HTTP server (an
 * IncomingMessage and a ServerResponse stream per request, their events and header objects) cost more CPU than
 * the store operation itself; this reads a request head from the socket's bytes, hands its body on as the
 * bytes arrive, and writes each answer with one socket write.
 *
 * What it accepts, as workerd sends it (../shared/reference/workerd-bucket-protocol.md): a request line, headers
 * (names lowercased, values read as latin1 as Node does), and a body of exactly `Content-Length` bytes (none
 * without it); never chunked (a `Transfer-Encoding` is refused with 501 and the connection closed). Requests on
 * one connection are answered in order (keep-alive; `Connection: close` ends it after the answer).
 *
 * Invariants:
 * - A body is never buffered whole: it is handed on chunk by chunk, and the socket is paused while more than
 *   {@link BODY_BUFFER} bytes wait for the handler. A body cut short (the client went away) ends the handler's
 *   iteration with an error, never with a short end.
 * - A body the handler did not read is read and dropped before the next request on the connection is parsed.
 * - A request head larger than `maxHeaderBytes` is answered 431 and the connection closed.
 */
import net from 'node:net';

/** One request, as the handler gets it. */
export interface WireRequest {
  method: string;
  /** Header names lowercased; a repeated header's values joined with ", ". */
  headers: Record<string, string>;
  /** The body's bytes as they arrive: exactly `Content-Length` of them, or an error when the client went away first. */
  body: AsyncIterator<Buffer>;
  contentLength: number;
}

/** How a handler answers: once, with the whole body or a stream of it. */
export interface WireResponse {
  /** Sends the answer with `body`, given whole or in parts (Content-Length set from it), in one write. */
  send(status: number, headers: Record<string, string>, body?: Uint8Array | Uint8Array[]): void;
  /** Sends the head with `contentLength`, then streams `body` (exactly that many bytes), waiting on the socket. */
  stream(status: number, headers: Record<string, string>, contentLength: number, body: AsyncIterable<Uint8Array>): Promise<void>;
  /** True once the answer has started. */
  readonly started: boolean;
  /** Closes the connection at once (an answer that cannot be completed). */
  abort(): void;
}

/** Handles one request; the connection moves to the next request when the answer is sent and the body read. */
export type WireHandler = (req: WireRequest, res: WireResponse) => Promise<void>;

/** Options of {@link createWireServer}. */
export interface WireServerOptions {
  /** Largest request head (bytes). */
  maxHeaderBytes: number;
  /** A connection with no request in flight is closed after this long (ms). */
  idleTimeoutMs: number;
}

/** Bytes of a body held while the handler has not taken them, before the socket is paused. */
const BODY_BUFFER = 1024 * 1024;
const HEAD_END = Buffer.from('\r\n\r\n');
const EMPTY = Buffer.alloc(0);
const REASONS: Record<number, string> = { 200: 'OK', 206: 'Partial Content', 304: 'Not Modified', 400: 'Bad Request', 403: 'Forbidden', 404: 'Not Found', 412: 'Precondition Failed', 416: 'Range Not Satisfiable', 431: 'Request Header Fields Too Large', 500: 'Internal Server Error', 501: 'Not Implemented' };

class BadRequest extends Error {
  constructor(readonly status: number, message: string) {
    super(message);
  }
}

const REQUEST_LINE = /^([A-Z]+) \S+ HTTP\/1\.[01]$/;

/** Parses a request head (without its final blank line). */
function parseHead(head: string): { method: string; headers: Record<string, string> } {
  let lineEnd = head.indexOf('\r\n');
  if (lineEnd < 0) lineEnd = head.length;
  const requestLine = REQUEST_LINE.exec(head.slice(0, lineEnd));
  if (!requestLine) throw new BadRequest(400, 'bad request line');
  const headers: Record<string, string> = {};
  for (let start = lineEnd + 2; start < head.length; start = lineEnd + 2) {
    lineEnd = head.indexOf('\r\n', start);
    if (lineEnd < 0) lineEnd = head.length;
    const colon = head.indexOf(':', start);
    if (colon <= start || colon > lineEnd) throw new BadRequest(400, 'bad header line');
    const name = head.slice(start, colon).trim().toLowerCase();
    const value = head.slice(colon + 1, lineEnd).trim();
    headers[name] = headers[name] === undefined ? value : `${headers[name]}, ${value}`;
  }
  return { method: requestLine[1]!, headers };
}

/** Resolves when `socket` can take more writes (or has closed). */
function writable(socket: net.Socket): Promise<void> {
  return new Promise<void>((resolve) => {
    const done = (): void => {
      socket.off('drain', done);
      socket.off('close', done);
      resolve();
    };
    socket.on('drain', done);
    socket.on('close', done);
  });
}

/** The answer to one request: its head and body written with one socket write, or its body streamed. */
class Answer implements WireResponse {
  started = false;

  constructor(private readonly socket: net.Socket, private readonly keepAlive: boolean) {}

  private head(status: number, headers: Record<string, string>, contentLength: number): string {
    let text = `HTTP/1.1 ${status} ${REASONS[status] ?? 'Status'}\r\n`;
    for (const name in headers) text += `${name}: ${headers[name]}\r\n`;
    return `${text}content-length: ${contentLength}\r\n${this.keepAlive ? '' : 'connection: close\r\n'}\r\n`;
  }

  private start(): void {
    if (this.started) throw new Error('the answer was already sent');
    this.started = true;
  }

  send(status: number, headers: Record<string, string>, body?: Uint8Array | Uint8Array[]): void {
    this.start();
    const parts = body === undefined ? [] : Array.isArray(body) ? body : [body];
    let length = 0;
    for (const part of parts) length += part.byteLength;
    const head = this.head(status, headers, length);
    const out = Buffer.allocUnsafe(head.length + length);
    let at = out.write(head, 0, 'latin1');
    for (const part of parts) {
      out.set(part, at);
      at += part.byteLength;
    }
    this.socket.write(out);
  }

  async stream(status: number, headers: Record<string, string>, contentLength: number, body: AsyncIterable<Uint8Array>): Promise<void> {
    this.start();
    const socket = this.socket;
    socket.write(Buffer.from(this.head(status, headers, contentLength), 'latin1'));
    let sent = 0;
    for await (const chunk of body) {
      if (socket.destroyed) throw new Error('the connection closed while the answer was sent');
      sent += chunk.byteLength;
      if (!socket.write(chunk)) await writable(socket);
    }
    if (sent !== contentLength) throw new Error(`the answer's body had ${sent} of ${contentLength} bytes`);
  }

  abort(): void {
    this.socket.destroy();
  }
}

/** Serves one connection: parses requests in order and runs the handler on each. */
class Connection {
  private buffered: Buffer = EMPTY;
  /** The body in progress: bytes left to arrive, chunks not yet taken, and the waiting reader. */
  private bodyLeft = 0;
  private bodyChunks: Buffer[] = [];
  private bodyQueued = 0;
  private bodyWaiter: ((r: IteratorResult<Buffer> | Error) => void) | undefined;
  private dropBody = false;
  private busy = false;
  private closed = false;

  constructor(private readonly socket: net.Socket, private readonly handler: WireHandler, private readonly opts: WireServerOptions) {
    socket.setNoDelay(true);
    // One timer for the connection's life: every read and write restarts it (and re-arms it after it fired while a
    // request was busy). The listener stays: `setTimeout`'s own callback would be a `once` listener.
    socket.setTimeout(opts.idleTimeoutMs);
    socket.on('timeout', () => {
      if (!this.busy) socket.destroy();
    });
    socket.on('data', (chunk: Buffer) => this.onData(chunk));
    socket.on('close', () => this.onClose());
    socket.on('error', () => undefined); // 'close' follows
  }

  private onData(chunk: Buffer): void {
    if (this.bodyLeft > 0) {
      const take = Math.min(this.bodyLeft, chunk.length);
      this.takeBody(chunk.subarray(0, take));
      if (take < chunk.length) this.buffered = Buffer.concat([this.buffered, chunk.subarray(take)]);
    } else {
      this.buffered = this.buffered.length === 0 ? chunk : Buffer.concat([this.buffered, chunk]);
    }
    this.next();
  }

  private takeBody(bytes: Buffer): void {
    this.bodyLeft -= bytes.length;
    if (this.dropBody) return;
    const waiter = this.bodyWaiter;
    if (waiter) {
      this.bodyWaiter = undefined;
      waiter({ done: false, value: bytes });
      return;
    }
    this.bodyChunks.push(bytes);
    this.bodyQueued += bytes.length;
    if (this.bodyQueued > BODY_BUFFER) this.socket.pause();
  }

  private onClose(): void {
    this.closed = true;
    const waiter = this.bodyWaiter;
    this.bodyWaiter = undefined;
    if (waiter && this.bodyLeft > 0) waiter(new Error(`the request body ended with ${this.bodyLeft} bytes not received`));
  }

  /** Starts the next request when none is in flight and its head has arrived. */
  private next(): void {
    if (this.busy || this.closed || this.bodyLeft > 0) return;
    const end = this.buffered.indexOf(HEAD_END);
    if (end < 0) {
      if (this.buffered.length > this.opts.maxHeaderBytes) this.fail(431);
      return;
    }
    if (end > this.opts.maxHeaderBytes) return this.fail(431);
    let head: { method: string; headers: Record<string, string> };
    try {
      head = parseHead(this.buffered.toString('latin1', 0, end));
      if (head.headers['transfer-encoding'] !== undefined) throw new BadRequest(501, 'chunked bodies are not accepted');
    } catch (err) {
      return this.fail(err instanceof BadRequest ? err.status : 400);
    }
    const lengthHeader = head.headers['content-length'];
    if (lengthHeader !== undefined && !/^\d{1,15}$/.test(lengthHeader)) return this.fail(400);
    const contentLength = lengthHeader === undefined ? 0 : Number(lengthHeader);
    const restAt = end + HEAD_END.length;
    const rest = restAt < this.buffered.length ? this.buffered.subarray(restAt) : EMPTY;
    this.buffered = EMPTY;
    this.busy = true;
    this.dropBody = false;
    this.bodyLeft = contentLength;
    this.bodyChunks.length = 0;
    this.bodyQueued = 0;
    const take = Math.min(contentLength, rest.length);
    if (take > 0) this.takeBody(rest.subarray(0, take));
    if (take < rest.length) this.buffered = rest.subarray(take);
    const keepAlive = head.headers.connection?.toLowerCase() !== 'close';
    void this.serve({ method: head.method, headers: head.headers, body: this.bodyIterator(), contentLength }, new Answer(this.socket, keepAlive), keepAlive);
  }

  /** Runs the handler on one request; a handler that fails gets a 500 (or the connection closed mid-answer). */
  private async serve(request: WireRequest, answer: Answer, keepAlive: boolean): Promise<void> {
    try {
      await this.handler(request, answer);
    } catch {
      if (!answer.started) answer.send(500, {});
      else this.socket.destroy();
    }
    this.finished(keepAlive);
  }

  private bodyIterator(): AsyncIterator<Buffer> {
    return {
      next: () => {
        const chunk = this.bodyChunks.shift();
        if (chunk) {
          this.bodyQueued -= chunk.length;
          if (this.socket.isPaused() && this.bodyQueued <= BODY_BUFFER) this.socket.resume();
          return Promise.resolve({ done: false, value: chunk });
        }
        if (this.bodyLeft === 0) return Promise.resolve({ done: true, value: undefined });
        if (this.closed) return Promise.reject(new Error(`the request body ended with ${this.bodyLeft} bytes not received`));
        if (this.socket.isPaused()) this.socket.resume();
        return new Promise<IteratorResult<Buffer>>((resolve, reject) => {
          this.bodyWaiter = (r) => (r instanceof Error ? reject(r) : resolve(r));
        });
      },
      return: () => {
        this.dropRest();
        return Promise.resolve({ done: true, value: undefined });
      },
    };
  }

  /** Drops what is left of the current body (read from the socket and discarded). */
  private dropRest(): void {
    this.dropBody = true;
    this.bodyChunks = [];
    this.bodyQueued = 0;
    if (this.socket.isPaused()) this.socket.resume();
  }

  private finished(keepAlive: boolean): void {
    if (!keepAlive) {
      this.socket.end();
      return;
    }
    // The next request starts after this one's body has been read to its end (dropped if the handler left it).
    if (this.bodyLeft > 0) this.dropRest();
    this.busy = false;
    // Idle from the answer's last write on (the write restarted the connection's timer).
    this.next();
  }

  private fail(status: number): void {
    this.busy = true;
    this.socket.end(`HTTP/1.1 ${status} ${REASONS[status] ?? 'Status'}\r\ncontent-length: 0\r\nconnection: close\r\n\r\n`);
  }
}

/** A server of {@link createWireServer}. */
export interface WireServer extends net.Server {
  /** Closes every connection at once (with `close()`, as `node:http`'s server offers). */
  closeAllConnections(): void;
}

/** A server speaking {@link WireHandler}'s HTTP/1.1 on whatever it listens on. */
export function createWireServer(handler: WireHandler, opts: WireServerOptions): WireServer {
  const sockets = new Set<net.Socket>();
  const server = net.createServer((socket) => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
    new Connection(socket, handler, opts);
  });
  return Object.assign(server, { closeAllConnections: () => { for (const socket of sockets) socket.destroy(); } });
}
