/**
 * Holds the edge listener's socket for the lifetime of the runtime, so successive workerd generations can
 * accept on the same socket (`workerd serve --socket-fd edge=3`) and a deploy never closes the port.
 *
 * Node has no public API for a listening socket that Node itself does not accept on: `net.Server.listen()`
 * starts accepting in the event loop at once. So a worker thread binds and listens with the raw TCP handle,
 * publishes the descriptor through shared memory and then blocks in `Atomics.wait` for the rest of its life:
 * its event loop never runs, so it never accepts, and the descriptor stays open for every child to inherit.
 * Closing the holder terminates the thread, which closes Stratus's copy of the socket.
 */
import { Worker } from 'node:worker_threads';
import net from 'node:net';
import { getSystemErrorName } from 'node:util';

/** A listening socket owned by Stratus and served by children. */
export interface HeldSocket {
  /** The file descriptor, to be passed to children in `stdio`. */
  fd: number;
  host: string;
  port: number;
  close(): Promise<void>;
}

const HOLDER_SOURCE = `
const { workerData, parentPort } = require('node:worker_threads');
const state = new Int32Array(workerData.shared);
let result;
try {
  let handle;
  let err;
  const port = [];
  if (workerData.path) {
    const { Pipe, constants } = process.binding('pipe_wrap');
    handle = new Pipe(constants.SERVER);
    err = handle.bind(workerData.path);
    if (!err) err = handle.listen(511);
  } else {
    const { TCP, constants } = process.binding('tcp_wrap');
    handle = new TCP(constants.SERVER);
    err = workerData.ipv6 ? handle.bind6(workerData.host, workerData.port, 0) : handle.bind(workerData.host, workerData.port);
    if (!err) err = handle.listen(511);
    if (!err) { const out = {}; err = handle.getsockname(out); port.push(out.port); }
  }
  state[1] = err ? err : handle.fd;
  state[2] = port[0] || 0;
  result = err ? 2 : 1;
} catch (e) { state[1] = -1; result = 2; }
Atomics.store(state, 0, result);
parentPort.postMessage(result);
// Never return to the event loop: a listening handle polled here would accept connections.
Atomics.wait(state, 0, result);
`;

/**
 * Binds and listens on `host:port` (0 picks a free port), or on the Unix socket `unix:<path>` given as host
 * (port 0); rejects with EADDRINUSE-style errors.
 */
export async function holdListeningSocket(host: string, port: number): Promise<HeldSocket> {
  const shared = new SharedArrayBuffer(12);
  const state = new Int32Array(shared);
  const unixPath = host.startsWith('unix:') ? host.slice('unix:'.length) : undefined;
  const worker = new Worker(HOLDER_SOURCE, { eval: true, workerData: { shared, host, port, ipv6: net.isIPv6(host), path: unixPath } });
  const outcome = await new Promise<string>((resolve) => {
    const timer = setTimeout(() => resolve('timed-out'), 10_000);
    worker.once('message', () => { clearTimeout(timer); resolve('ok'); });
    worker.once('error', () => { clearTimeout(timer); resolve('error'); });
  });
  worker.unref();
  if (outcome !== 'ok' || state[0] !== 1) {
    await worker.terminate();
    const code = state[1];
    const name = code < 0 ? describeUvError(code) : 'timed out';
    const err = new Error(`cannot listen on ${host}:${port}: ${name}`) as NodeJS.ErrnoException;
    err.code = name;
    throw err;
  }
  return {
    fd: state[1]!,
    host,
    port: state[2]!,
    close: async () => { await worker.terminate(); },
  };
}

function describeUvError(code: number): string {
  try {
    return getSystemErrorName(code);
  } catch {
    return `error ${code}`;
  }
}
