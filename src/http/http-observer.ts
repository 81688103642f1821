/**
 * One observation per HTTP request on a listener: when the response is finished (or the client went away),
 * one access-log line and the request metrics, with the route template and identity the application noted
 * (request-notes.ts). Timing runs from the request's arrival to the last byte written; bytes are the response
 * body bytes written (counted through `write`/`end`) and the request's declared Content-Length.
 */
import type { IncomingMessage, ServerResponse, Server } from 'node:http';
import type { Logger } from '../shared/logger.js';
import { attachNote, type RequestNote } from './request-notes.js';
import { httpInFlight, recordHttpRequest, type HttpListenerName, type HttpRequestRecord } from './http-metrics.js';

/** What a listener observes its requests for. */
export interface HttpObservation {
  listener: HttpListenerName;
  /** The root logger: access lines go to its `access` child, at info level. */
  logger: Logger;
}

/** Status of a request whose client went away before the response was complete (as nginx logs it). */
export const CLIENT_CLOSED = 499;

type Fetch = (req: Request, env?: unknown) => Response | Promise<Response>;

/** A listener's observer (see {@link observeHttp}). */
export interface HttpObserver {
  /** The application, wrapped so that each request gets a note linked to its Node request. */
  fetch: Fetch;
  /** Watches a request the listener answers itself, without the application (an `Expect: 100-continue` refusal). */
  watch(incoming: IncomingMessage, res: ServerResponse): void;
  /** Records a request Node's parser refused with `status` (no request line to speak of: method `other`, route `unparsed`). */
  refusedUnparsed(status: number, remote: string | undefined): void;
}

/**
 * Watches `server`'s requests and wraps the application so that each request gets a note linked to its Node
 * request; call before the server accepts connections.
 */
export function observeHttp(server: Server, fetch: Fetch, obs: HttpObservation): HttpObserver {
  const byIncoming = new WeakMap<IncomingMessage, RequestNote>();
  const access = obs.logger.child({ component: 'access', listener: obs.listener });
  const watchOne = (incoming: IncomingMessage, res: ServerResponse): void => watch(incoming, res, obs.listener, access, byIncoming);
  server.prependListener('request', watchOne);
  return {
    fetch: (req, env) => {
      const note: RequestNote = {};
      attachNote(req, note);
      const incoming = (env as { incoming?: IncomingMessage } | undefined)?.incoming;
      if (incoming) byIncoming.set(incoming, note);
      return fetch(req, env);
    },
    watch: watchOne,
    refusedUnparsed: (status, remote) => recordHttpAccess(access, { listener: obs.listener, route: 'unparsed', method: 'other', status, seconds: 0, bytesIn: 0, bytesOut: 0 }, {}, remote),
  };
}

function watch(incoming: IncomingMessage, res: ServerResponse, listener: HttpListenerName, access: Logger, notes: WeakMap<IncomingMessage, RequestNote>): void {
  const started = performance.now();
  const remote = incoming.socket?.remoteAddress;
  let bytes = 0;
  const write = res.write;
  const end = res.end;
  res.write = function (this: ServerResponse, chunk: unknown, ...rest: unknown[]) {
    bytes += byteLength(chunk, rest[0]);
    return (write as (...a: unknown[]) => boolean).call(this, chunk, ...rest);
  } as typeof res.write;
  res.end = function (this: ServerResponse, chunk?: unknown, ...rest: unknown[]) {
    if (typeof chunk !== 'function') bytes += byteLength(chunk, rest[0]);
    return (end as (...a: unknown[]) => ServerResponse).call(this, chunk, ...rest);
  } as typeof res.end;
  httpInFlight(listener, 1);
  res.once('close', () => {
    httpInFlight(listener, -1);
    const note = notes.get(incoming) ?? {};
    recordHttpAccess(access, {
      listener, route: note.route ?? 'unmatched', method: incoming.method ?? 'GET', status: res.writableFinished ? res.statusCode : CLIENT_CLOSED,
      seconds: (performance.now() - started) / 1000, bytesIn: Number(incoming.headers['content-length']) || 0, bytesOut: bytes,
    }, note, remote);
  });
}

/**
 * Records one finished request in the metrics and writes its access line to `access` (a logger with
 * `component: 'access'` and `listener` bound). For a listener Node does not serve itself (the edge's workerd).
 */
export function recordHttpAccess(access: Logger, r: HttpRequestRecord, note: RequestNote = {}, remote?: string): void {
  recordHttpRequest(r);
  if (!access.isLevelEnabled('info')) return;
  access.info({
    method: r.method, route: r.route, status: r.status, bytes: r.bytesOut, bytesIn: r.bytesIn, durationMs: Math.round(r.seconds * 1e6) / 1000,
    accountId: note.accountId, userId: note.userId, accessKeyId: note.accessKeyId, requestId: note.requestId, scheme: note.scheme, fast: note.fast, remote,
  }, `${r.method} ${r.route} ${r.status}`);
}

function byteLength(chunk: unknown, encoding: unknown): number {
  if (typeof chunk === 'string') return Buffer.byteLength(chunk, typeof encoding === 'string' ? (encoding as BufferEncoding) : 'utf8');
  if (chunk instanceof Uint8Array) return chunk.byteLength;
  return 0;
}
