/**
 * Digests computed in worker threads, so a large put hashes on another core while the main thread reads the
 * value and the thread pool writes it. MD5 runs at about 650 MB/s on one core and cannot be split across
 * cores (each block depends on the previous one), so on the main thread it added up with reading and writing.
 *
 * A job owns a small ring of shared-memory slots (RING_SLOTS x SLOT_BYTES): `update` copies a piece into the
 * next free slot and posts its position; the worker hashes the slot in order and frees it. Memory per job is
 * bounded by the ring, and the caller waits when the hasher falls behind. Workers are shared by the process,
 * started on first use, and referenced only while they have jobs (an idle pool never keeps a process alive).
 */
import { Worker } from 'node:worker_threads';
import { availableParallelism } from 'node:os';
import { StoreInvariantError } from './errors.js';

/** The largest piece one `update` takes. */
export const SLOT_BYTES = 2 * 1024 * 1024;
const RING_SLOTS = 4;

// CommonJS, evaluated in the worker: one Hash list per job id; each `data` message is hashed then acknowledged.
const WORKER_SOURCE = `
const { parentPort } = require('node:worker_threads');
const { createHash } = require('node:crypto');
const jobs = new Map();
parentPort.on('message', (m) => {
  try {
    if (m.t === 'start') {
      jobs.set(m.id, { ring: new Uint8Array(m.sab), hashes: m.algs.map((a) => createHash(a)) });
    } else if (m.t === 'data') {
      const job = jobs.get(m.id);
      if (!job) return;
      const view = job.ring.subarray(m.off, m.off + m.len);
      for (const h of job.hashes) h.update(view);
      parentPort.postMessage({ t: 'done', id: m.id });
    } else if (m.t === 'end') {
      const job = jobs.get(m.id);
      jobs.delete(m.id);
      if (job) parentPort.postMessage({ t: 'digest', id: m.id, hex: job.hashes.map((h) => h.digest('hex')) });
    } else if (m.t === 'drop') {
      jobs.delete(m.id);
    }
  } catch (err) {
    jobs.delete(m.id);
    parentPort.postMessage({ t: 'fail', id: m.id, message: String((err && err.message) || err) });
  }
});
`;

interface Deferred<T> {
  promise: Promise<T>;
  resolve: (value: T) => void;
  reject: (err: Error) => void;
}

function deferred<T>(): Deferred<T> {
  let resolve!: (value: T) => void;
  let reject!: (err: Error) => void;
  const promise = new Promise<T>((res, rej) => ((resolve = res), (reject = rej)));
  promise.catch(() => undefined); // a rejection nobody waits for is not unhandled; waiters still see it
  return { promise, resolve, reject };
}

interface Message {
  t: 'done' | 'digest' | 'fail';
  id: number;
  hex?: string[];
  message?: string;
}

/** One digest computation in a worker: feed pieces in order, then read the hex digests. */
export class HashJob {
  private readonly ring = new SharedArrayBuffer(RING_SLOTS * SLOT_BYTES);
  private readonly bytes = new Uint8Array(this.ring);
  /** Acknowledgements still expected, oldest first (the worker answers in order). */
  private readonly acks: Deferred<void>[] = [];
  private final: Deferred<string[]> | undefined;
  private next = 0;
  /** Bytes copied into the current slot and not yet posted. */
  private fill = 0;
  private error: Error | undefined;
  private ended = false;

  constructor(
    private readonly host: PoolWorker,
    readonly id: number,
    algorithms: readonly string[],
  ) {
    host.worker.postMessage({ t: 'start', id, algs: algorithms, sab: this.ring });
  }

  /**
   * Hashes `piece` (at most SLOT_BYTES) after the previous ones; resolves once it is copied (the caller may
   * then reuse it). Pieces are packed into a slot until it is full, so the worker wakes once per slot.
   */
  async update(piece: Uint8Array): Promise<void> {
    if (piece.byteLength > SLOT_BYTES) throw new StoreInvariantError('hash piece larger than a slot');
    if (this.fill + piece.byteLength > SLOT_BYTES) this.post();
    // A new slot reuses the oldest one still being hashed: wait for it.
    if (this.fill === 0 && this.acks.length >= RING_SLOTS) await this.acks[0]!.promise;
    if (this.error) throw this.error;
    this.bytes.set(piece, (this.next % RING_SLOTS) * SLOT_BYTES + this.fill);
    this.fill += piece.byteLength;
    if (this.fill === SLOT_BYTES) this.post();
  }

  private post(): void {
    if (this.fill === 0) return;
    this.acks.push(deferred<void>());
    this.host.worker.postMessage({ t: 'data', id: this.id, off: (this.next++ % RING_SLOTS) * SLOT_BYTES, len: this.fill });
    this.fill = 0;
  }

  /** Waits for every piece and returns the digests in hex, in the order of the algorithms. */
  async digest(): Promise<string[]> {
    if (this.error) throw this.error;
    this.post();
    this.ended = true;
    this.final = deferred<string[]>();
    this.host.worker.postMessage({ t: 'end', id: this.id });
    return this.final.promise;
  }

  /** Abandons an unfinished job (the worker drops its state). Safe to call more than once or after `digest`. */
  close(): void {
    if (this.host.jobs.delete(this.id)) {
      if (!this.ended) this.host.worker.postMessage({ t: 'drop', id: this.id });
      this.host.pool.released(this.host);
    }
  }

  /** Routes a worker message. */
  receive(m: Message): void {
    if (m.t === 'done') this.acks.shift()?.resolve();
    else if (m.t === 'digest') this.final?.resolve(m.hex ?? []);
    else this.fail(new StoreInvariantError(`hashing failed: ${m.message}`));
  }

  /** Fails every waiter (worker error or exit). */
  fail(err: Error): void {
    this.error ??= err;
    for (const a of this.acks.splice(0)) a.reject(err);
    this.final?.reject(err);
  }
}

interface PoolWorker {
  pool: HashPool;
  worker: Worker;
  jobs: Map<number, HashJob>;
}

/** A few hashing workers shared by every store of the process. */
export class HashPool {
  private readonly workers: PoolWorker[] = [];
  private nextId = 1;

  constructor(private readonly size: number) {}

  /** Starts a job hashing with the given Node algorithm names, on the least busy worker. */
  open(algorithms: readonly string[]): HashJob {
    let slot = this.workers.reduce<PoolWorker | undefined>((best, w) => (!best || w.jobs.size < best.jobs.size ? w : best), undefined);
    if (!slot || (slot.jobs.size > 0 && this.workers.length < this.size)) slot = this.spawn();
    const job = new HashJob(slot, this.nextId++, algorithms);
    if (slot.jobs.size === 0) slot.worker.ref();
    slot.jobs.set(job.id, job);
    return job;
  }

  /** Called when a job leaves a worker: an idle worker stops holding the process open. */
  released(slot: PoolWorker): void {
    if (slot.jobs.size === 0) slot.worker.unref();
  }

  private spawn(): PoolWorker {
    const worker = new Worker(WORKER_SOURCE, { eval: true });
    worker.unref();
    const slot: PoolWorker = { pool: this, worker, jobs: new Map() };
    const die = (err: Error): void => {
      const i = this.workers.indexOf(slot);
      if (i >= 0) this.workers.splice(i, 1);
      for (const job of slot.jobs.values()) job.fail(err);
      slot.jobs.clear();
    };
    worker.on('message', (m: Message) => slot.jobs.get(m.id)?.receive(m));
    worker.on('error', (err) => die(new StoreInvariantError(`hashing worker failed: ${err.message}`)));
    worker.on('exit', (code) => die(new StoreInvariantError(`hashing worker exited with code ${code}`)));
    this.workers.push(slot);
    return slot;
  }
}

/** Whether offloading can help: there is a core to spare. */
export const OFFLOAD_HASHING = availableParallelism() > 1;

/** The process's hashing workers (at most 2: each large put uses one core for its digest). */
export const hashPool = new HashPool(Math.min(2, Math.max(1, availableParallelism() - 1)));
