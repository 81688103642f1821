/**
 * Runs one edge script in a `worker_threads` Worker and dispatches web-standard Requests to it.
 *
 * Invariants:
 * - A script that throws answers 500 (logged with its stack); the worker keeps serving.
 * - A request whose handler has not returned within `timeoutMs`, or whose response body stalls for
 *   `timeoutMs`, gets the worker terminated (a synchronous infinite loop cannot be interrupted any other
 *   way). Every request in flight on that worker then answers 503 and a fresh worker is started at once.
 * - A worker that dies (out of memory, crash) is replaced the same way.
 */
import { MessageChannel, Worker } from 'node:worker_threads';
import type { Logger } from '../shared/logger.js';
import { receiveStream, sendStream } from './port-stream.js';
import type { FetchMessage, FromWorker, WorkerSetup } from './protocol.js';

/** Options of {@link ScriptHost}. */
export interface ScriptHostOptions {
  setup: WorkerSetup;
  logger: Logger;
  /** Time limit of one request, in ms (handler return, and each wait for the next response chunk). Default 30000. */
  timeoutMs?: number;
  /** Heap limit of the worker in MiB. Default 512. */
  memoryLimitMb?: number;
  /** The worker entry module; default `worker-main.js` beside this file (tests pass a bundled build). */
  workerUrl?: URL;
}

/** The script could not be loaded (syntax error, missing file, no fetch handler, bucket store failure). */
export class ScriptLoadError extends Error {
  override name = 'ScriptLoadError';
}

interface Pending {
  resolve(response: Response): void;
  timer: NodeJS.Timeout | undefined;
}

interface Slot {
  worker: Worker;
  ready: Promise<void>;
  dead: boolean;
  /** True once the script loaded; only loaded workers are replaced eagerly (no respawn loop on a broken script). */
  loaded: boolean;
  pending: Map<number, Pending>;
  /** Response bodies still streaming, errored if the worker dies. */
  bodies: Set<{ kill(): void }>;
}

const DEFAULT_TIMEOUT_MS = 30_000;

/** One edge script in its own thread, restarted when it overruns or dies. */
export class ScriptHost {
  private slot: Slot | undefined;
  private nextId = 1;
  private closed = false;
  private readonly timeoutMs: number;
  /** How many times the worker was replaced (timeouts and crashes). */
  restarts = 0;

  constructor(private readonly opts: ScriptHostOptions) {
    this.timeoutMs = opts.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  }

  /** Starts the worker; rejects with {@link ScriptLoadError} when the script cannot be loaded. */
  async start(): Promise<void> {
    this.slot = this.spawn();
    await this.slot.ready;
  }

  /** Runs the script's fetch handler for `request`. Never rejects: failures become 5xx responses. */
  async fetch(request: Request): Promise<Response> {
    if (this.closed) return plain(503, 'the script host is closed');
    if (!this.slot || this.slot.dead) this.slot = this.spawn();
    const slot = this.slot;
    try {
      await slot.ready;
    } catch (err) {
      return plain(500, `the script failed to load: ${(err as Error).message}`);
    }
    if (slot.dead) return plain(503, 'the script was restarted; try again');
    const id = this.nextId++;
    let bodyPort = null;
    if (request.body) {
      const channel = new MessageChannel();
      bodyPort = channel.port2;
      sendStream(request.body, channel.port1).catch(() => { /* the client went away; the script sees a body error */ });
    }
    const declared = request.headers.get('content-length');
    const length = declared !== null && /^\d+$/.test(declared) ? Number(declared) : undefined;
    const msg: FetchMessage = {
      type: 'fetch', id, method: request.method, url: request.url, headers: [...request.headers], body: bodyPort,
      length: request.body ? length : undefined,
    };
    return new Promise<Response>((resolve) => {
      const timer = setTimeout(() => {
        this.opts.logger.error({ url: request.url, timeoutMs: this.timeoutMs }, 'script exceeded its time limit; restarting its worker');
        this.kill(slot, id, `the script exceeded its time limit of ${this.timeoutMs} ms`);
      }, this.timeoutMs);
      slot.pending.set(id, { resolve, timer });
      slot.worker.postMessage(msg, bodyPort ? [bodyPort] : []);
    });
  }

  /** Stops the worker (letting it close its store); in-flight requests answer 503. */
  async close(): Promise<void> {
    this.closed = true;
    const slot = this.slot;
    if (!slot || slot.dead) return;
    slot.dead = true;
    for (const [id, p] of slot.pending) { clearTimeout(p.timer); p.resolve(plain(503, 'the server is stopping')); slot.pending.delete(id); }
    const exited = new Promise<void>((resolve) => slot.worker.once('exit', () => resolve()));
    slot.worker.postMessage({ type: 'close' });
    const forced = setTimeout(() => void slot.worker.terminate(), 5000);
    await exited;
    clearTimeout(forced);
  }

  private spawn(): Slot {
    const { setup, logger } = this.opts;
    const worker = new Worker(this.opts.workerUrl ?? new URL('./worker-main.js', import.meta.url), {
      workerData: setup,
      resourceLimits: { maxOldGenerationSizeMb: this.opts.memoryLimitMb ?? 512 },
    });
    let readyResolve!: () => void;
    let readyReject!: (err: Error) => void;
    const ready = new Promise<void>((res, rej) => { readyResolve = res; readyReject = rej; });
    ready.catch(() => {});
    const slot: Slot = { worker, ready, dead: false, loaded: false, pending: new Map(), bodies: new Set() };
    worker.on('message', (msg: FromWorker) => this.onMessage(slot, msg, readyResolve, readyReject));
    worker.on('error', (err) => {
      logger.error({ err }, 'script worker crashed; restarting it');
      readyReject(new ScriptLoadError(err.message));
      this.kill(slot, undefined, `the script's worker crashed: ${err.message}`);
    });
    worker.on('exit', (code) => {
      readyReject(new ScriptLoadError(`the worker exited with code ${code} before the script loaded`));
      if (!slot.dead) this.kill(slot, undefined, `the script's worker exited (code ${code})`);
    });
    return slot;
  }

  private onMessage(slot: Slot, msg: FromWorker, readyResolve: () => void, readyReject: (err: Error) => void): void {
    const { logger } = this.opts;
    switch (msg.type) {
      case 'ready': slot.loaded = true; readyResolve(); return;
      case 'load-error':
        logger.error({ stack: msg.stack }, `script failed to load: ${msg.message}`);
        readyReject(new ScriptLoadError(msg.message));
        return;
      case 'log':
        logger[msg.level]({ stack: msg.stack }, msg.msg);
        return;
      case 'script-error': {
        const p = this.take(slot, msg.id);
        logger.error({ stack: msg.stack }, `script threw: ${msg.message}`);
        p?.resolve(plain(500, `Worker threw exception: ${msg.message}`));
        return;
      }
      case 'response': {
        const p = this.take(slot, msg.id);
        if (!p) { msg.body?.close(); return; }
        let body: ReadableStream<Uint8Array> | null = null;
        if (msg.body) {
          let stall: NodeJS.Timeout | undefined;
          const port = msg.body;
          const entry = { kill: () => port.close() };
          slot.bodies.add(entry);
          body = receiveStream(port, {
            onWait: () => {
              stall = setTimeout(() => {
                logger.error({ timeoutMs: this.timeoutMs }, 'script response body stalled past its time limit; restarting its worker');
                this.kill(slot, undefined, 'the script stalled while sending a response body');
              }, this.timeoutMs);
            },
            onData: () => clearTimeout(stall),
            onEnd: () => { clearTimeout(stall); slot.bodies.delete(entry); },
          });
        }
        const nullBody = msg.status === 101 || msg.status === 204 || msg.status === 205 || msg.status === 304;
        p.resolve(new Response(nullBody ? null : body, { status: msg.status, statusText: msg.statusText, headers: msg.headers }));
        return;
      }
    }
  }

  private take(slot: Slot, id: number): Pending | undefined {
    const p = slot.pending.get(id);
    if (!p) return undefined;
    slot.pending.delete(id);
    clearTimeout(p.timer);
    return p;
  }

  /**
   * Terminates a worker. Request `culprit` (or, when the worker itself failed, every request in flight) answers
   * 503 with `reason`; other requests in flight answer 503 saying they were caught in the restart.
   */
  private kill(slot: Slot, culprit: number | undefined, reason: string): void {
    if (slot.dead) return;
    slot.dead = true;
    this.restarts++;
    for (const [id, p] of slot.pending) {
      clearTimeout(p.timer);
      p.resolve(plain(503, culprit === undefined || id === culprit ? reason : 'the script was restarted while this request was in flight'));
    }
    slot.pending.clear();
    for (const b of slot.bodies) b.kill();
    slot.bodies.clear();
    void slot.worker.terminate();
    if (!this.closed && this.slot === slot && slot.loaded) this.slot = this.spawn();
  }
}

function plain(status: number, text: string): Response {
  return new Response(`${text}\n`, { status, headers: { 'content-type': 'text/plain; charset=utf-8' } });
}
