/**
 * The watchdog's ping of a workerd generation: one fixed HTTP/1.1 request over one kept-alive TCP connection to
 * its internal socket, its answer read by hand (any complete answer means the thread is free).
 *
 * Why not `fetch`: the watchdog pings every generation ten times a second, too rarely for undici's code to be
 * compiled, so each ping cost about 1.5 ms of Node's main thread (4-5% of a core on an idle edge with three
 * generations) and made objects that lived past two young collections (docs/edge-performance.md, "Session 20").
 */
import net from 'node:net';

/** A ping that got no complete answer: the connection failed or closed before it (not its deadline). */
export class PingLost extends Error {
  override name = 'PingLost';
}

/** What an answer's head says about the body that follows it. */
interface Framing {
  /** Bytes of the head, its blank line included. */
  headBytes: number;
  /** The body's length, or 'chunked' (complete at its last chunk), or 'close' (complete at the end). */
  body: number | 'chunked' | 'close';
  /** Whether the generation closes the connection after this answer. */
  closes: boolean;
}

const HEAD_END = Buffer.from('\r\n\r\n');
const LAST_CHUNK = Buffer.from('0\r\n\r\n');

/** The framing of the answer whose head is in `buf`, or undefined while the head is incomplete. */
function framing(buf: Buffer): Framing | undefined {
  const end = buf.indexOf(HEAD_END);
  if (end < 0) return undefined;
  const head = buf.toString('latin1', 0, end).toLowerCase();
  const length = /\r\ncontent-length:\s*(\d+)/.exec(head);
  const closes = /\r\nconnection:\s*close/.test(head);
  const body = length ? Number(length[1]) : /\r\ntransfer-encoding:[^\r]*chunked/.test(head) ? 'chunked' : 'close';
  return { headBytes: end + HEAD_END.length, body, closes: closes || body === 'close' };
}

/** Pings of one generation's internal port (one at a time). */
export class PingClient {
  private socket: net.Socket | undefined;
  private readonly request: Buffer;

  constructor(private readonly port: number, secret: string) {
    this.request = Buffer.from(`GET / HTTP/1.1\r\nhost: 127.0.0.1\r\nx-stratus-internal: ${secret}\r\nx-stratus-op: ping\r\n\r\n`);
  }

  /**
   * Resolves once the generation answered; rejects with `signal`'s reason when it aborts first (the connection is
   * then dropped: its late answer must not be taken for the next ping's), or with {@link PingLost}.
   */
  ping(signal: AbortSignal): Promise<void> {
    if (signal.aborted) return Promise.reject(signal.reason);
    const socket = this.socket && !this.socket.destroyed ? this.socket : this.connect();
    return new Promise<void>((resolve, reject) => {
      let buf: Buffer = Buffer.alloc(0);
      let frame: Framing | undefined;
      const finish = (err?: unknown): void => {
        socket.off('data', onData).off('close', onClose).off('error', onError);
        signal.removeEventListener('abort', onAbort);
        if (err !== undefined || frame?.closes) this.drop(socket);
        if (err === undefined) resolve(); else reject(err);
      };
      const complete = (): boolean => {
        frame ??= framing(buf);
        if (!frame || frame.body === 'close') return false;
        if (frame.body === 'chunked') return buf.length >= frame.headBytes + LAST_CHUNK.length && buf.subarray(buf.length - LAST_CHUNK.length).equals(LAST_CHUNK);
        return buf.length >= frame.headBytes + frame.body;
      };
      const onData = (chunk: Buffer): void => {
        buf = buf.length === 0 ? chunk : Buffer.concat([buf, chunk]);
        if (complete()) finish();
      };
      const onClose = (): void => {
        frame ??= framing(buf);
        if (frame?.body === 'close') finish();
        else finish(new PingLost('the connection closed before the answer'));
      };
      const onError = (err: Error): void => finish(new PingLost(err.message));
      const onAbort = (): void => finish(signal.reason);
      socket.on('data', onData).on('close', onClose).on('error', onError);
      signal.addEventListener('abort', onAbort, { once: true });
      socket.write(this.request);
    });
  }

  /** Closes the connection. */
  close(): void {
    if (this.socket) this.drop(this.socket);
  }

  private connect(): net.Socket {
    const socket = net.connect({ port: this.port, host: '127.0.0.1', noDelay: true });
    socket.unref();
    // an error with no ping waiting (the generation went away between pings) is the next ping's to meet
    socket.on('error', () => undefined);
    this.socket = socket;
    return socket;
  }

  private drop(socket: net.Socket): void {
    socket.destroy();
    if (this.socket === socket) this.socket = undefined;
  }
}
