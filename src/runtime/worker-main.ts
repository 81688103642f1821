/**
 * Entry point of the worker thread that runs one edge script. It opens its own BucketStore on the shared
 * data folder (several stores may open one folder at once), so binding calls run here without a round trip
 * to the main thread. Requests arrive as {@link FetchMessage}s; bodies stream over their own ports.
 * The host terminates this thread when a request overruns its time limit, so nothing here needs to guard
 * against runaway scripts.
 */
import { MessageChannel, parentPort, workerData, type MessagePort } from 'node:worker_threads';
import { FixedLengthStream, openBucketStore, withKnownLength, type BucketStore } from '../store/index.js';
import { receiveStream, sendStream } from './port-stream.js';
import type { FetchMessage, FromWorker, WorkerSetup } from './protocol.js';

/** The shape of a module script's default export. */
interface ScriptModule {
  fetch(request: Request, env: Record<string, unknown>, ctx: ExecutionContext): Response | Promise<Response>;
}

/** The third argument of the fetch handler. */
interface ExecutionContext {
  waitUntil(promise: Promise<unknown>): void;
  passThroughOnException(): void;
  readonly props: Record<string, unknown>;
}

const port = parentPort!;
const post = (msg: FromWorker, transfer: MessagePort[] = []) => port.postMessage(msg, transfer);

function describe(err: unknown): { message: string; stack: string | undefined } {
  if (err instanceof Error) return { message: `${err.name}: ${err.message}`, stack: err.stack };
  return { message: String(err), stack: undefined };
}

process.on('unhandledRejection', (err) => post({ type: 'log', level: 'error', msg: `unhandled rejection in script: ${describe(err).message}`, stack: describe(err).stack }));

async function load(setup: WorkerSetup): Promise<{ script: ScriptModule; env: Record<string, unknown>; store: BucketStore | undefined }> {
  (globalThis as Record<string, unknown>).FixedLengthStream = FixedLengthStream;
  const env: Record<string, unknown> = { ...setup.vars };
  let store: BucketStore | undefined;
  if (setup.buckets.length > 0) {
    store = await openBucketStore({ dataDir: setup.dataDir });
    for (const b of setup.buckets) {
      env[b.binding] = store.bucket(b.bucketName, {
        ...(setup.compatibilityDate !== undefined ? { compatibilityDate: setup.compatibilityDate } : {}),
        compatibilityFlags: setup.compatibilityFlags,
      });
    }
  }
  const mod = (await import(setup.scriptUrl)) as { default?: unknown };
  const script = mod.default as ScriptModule | undefined;
  if (typeof script !== 'object' || script === null || typeof script.fetch !== 'function') {
    throw new TypeError('the script has no fetch handler: it must `export default { async fetch(request, env, ctx) { ... } }`');
  }
  return { script, env, store };
}

async function handle(script: ScriptModule, env: Record<string, unknown>, msg: FetchMessage): Promise<void> {
  try {
    let body: ReadableStream<Uint8Array> | null = null;
    if (msg.body) {
      body = receiveStream(msg.body);
      if (msg.length !== undefined) withKnownLength(body, msg.length);
    }
    const request = new Request(msg.url, {
      method: msg.method,
      headers: msg.headers,
      ...(body ? { body, duplex: 'half' } : {}),
    } as RequestInit);
    const ctx: ExecutionContext = {
      waitUntil(promise) {
        Promise.resolve(promise).catch((err) => post({ type: 'log', level: 'warn', msg: `ctx.waitUntil promise rejected: ${describe(err).message}`, stack: describe(err).stack }));
      },
      // Dev has no origin to pass the request through to: the failure is answered with a 500 either way.
      passThroughOnException() {},
      props: {},
    };
    const response = await script.fetch(request, env, ctx);
    if (!(response instanceof Response)) {
      throw new TypeError(`the fetch handler must return a Response, got ${response === null ? 'null' : typeof response}`);
    }
    let bodyPort: MessagePort | null = null;
    if (response.body) {
      const channel = new MessageChannel();
      bodyPort = channel.port2;
      sendStream(response.body, channel.port1).catch((err) => post({ type: 'log', level: 'error', msg: `response body failed: ${describe(err).message}`, stack: describe(err).stack }));
    }
    post({
      type: 'response',
      id: msg.id,
      status: response.status,
      statusText: response.statusText,
      headers: [...response.headers],
      body: bodyPort,
    }, bodyPort ? [bodyPort] : []);
  } catch (err) {
    post({ type: 'script-error', id: msg.id, ...describe(err) });
  }
}

async function main(): Promise<void> {
  const setup = workerData as WorkerSetup;
  let loaded: Awaited<ReturnType<typeof load>>;
  try {
    loaded = await load(setup);
  } catch (err) {
    post({ type: 'load-error', ...describe(err) });
    return;
  }
  port.on('message', (msg: FetchMessage | { type: 'close' }) => {
    if (msg.type === 'fetch') void handle(loaded.script, loaded.env, msg);
    else if (msg.type === 'close') {
      void (loaded.store?.close() ?? Promise.resolve()).finally(() => port.close());
    }
  });
  post({ type: 'ready' });
}

void main();
