/**
 * WAL checkpoints of the embedded SQLite file off the main thread. By default SQLite checkpoints inside the
 * commit that grows the write-ahead log past 1,000 pages: that commit copies the log's pages into the database
 * file and syncs both (synchronous=NORMAL syncs at checkpoints, not at commits), on the thread serving the v4
 * API, so one write in a few hundred paid tens to hundreds of milliseconds, and every big import paid for the
 * copy of its own pages. Here the connection that writes never checkpoints (`wal_autocheckpoint = 0`); a
 * worker thread with its own connection runs a PASSIVE checkpoint every {@link INTERVAL_MS} while the database is
 * written to (less and less often, down to every {@link IDLE_INTERVAL_MS}, while it is not), which copies what
 * it can without taking any lock a reader or writer waits for (https://www.sqlite.org/wal.html#ckpt). The next
 * writer after a complete checkpoint starts the log over. The log file is not truncated (no `journal_size_limit`,
 * SQLite's default): the commit that starts the log over would truncate it on the thread serving the API, and
 * freeing a big import's log took hundreds of milliseconds there; the file keeps its largest size instead.
 *
 * Durability is SQLite's own and unchanged: a commit is in the log when the call returns, the checkpoint only
 * moves it. If the thread cannot start or ends, the connection goes back to checkpointing itself.
 */
import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';
import type SQLite from 'better-sqlite3';

/** Time between two background checkpoints while the database is written to (ms). */
const INTERVAL_MS = 250;
/** Longest wait of an idle database: the wait doubles from {@link INTERVAL_MS} while nothing new is written (ms). */
const IDLE_INTERVAL_MS = 4000;
/** SQLite's default auto-checkpoint threshold (pages), restored when the thread is gone. */
const AUTO_CHECKPOINT_PAGES = 1000;

/**
 * The thread's code (plain JavaScript, evaluated: it runs the same under a TypeScript test runner). It checkpoints
 * when another connection committed since its last pass (`data_version` moved) or its last checkpoint was not
 * complete (a reader held frames back); otherwise it only waits longer, so an idle server is not woken four
 * times a second.
 */
const THREAD_CODE = `
const { parentPort, workerData } = require('node:worker_threads');
const Database = require(workerData.module);
const db = new Database(workerData.file);
db.pragma('cache_size = -2048');
let timer;
let failing = false;
let seenVersion = -1;
let complete = false;
let interval = workerData.intervalMs;
const tick = () => {
  try {
    const version = db.pragma('data_version', { simple: true });
    if (version !== seenVersion || !complete) {
      seenVersion = version;
      const r = db.pragma('wal_checkpoint(PASSIVE)')[0];
      complete = r.busy === 0 && r.checkpointed === r.log;
      interval = workerData.intervalMs;
    } else {
      interval = Math.min(interval * 2, workerData.idleMs);
    }
    failing = false;
  } catch (err) {
    if (!failing) parentPort.postMessage({ t: 'error', message: String(err && err.message) });
    failing = true;
    interval = workerData.intervalMs;
  }
  timer = setTimeout(tick, interval);
};
timer = setTimeout(tick, workerData.intervalMs);
parentPort.on('message', () => { clearTimeout(timer); db.close(); parentPort.postMessage({ t: 'stopped' }); parentPort.close(); });
`;

/** A running background checkpointer. */
export interface Checkpointer {
  /** Stops the thread (its connection closed) and lets the main connection checkpoint itself again. */
  stop(): Promise<void>;
}

/**
 * Moves `sqlite`'s checkpoints (database `file`, in WAL mode) to a worker thread; `onError` hears of a failing
 * checkpoint once until one succeeds; `timing` replaces the intervals (tests).
 */
export function startCheckpointer(sqlite: SQLite.Database, file: string, onError: (message: string) => void = () => {}, timing: { intervalMs?: number; idleMs?: number } = {}): Checkpointer {
  const module = createRequire(import.meta.url).resolve('better-sqlite3');
  const worker = new Worker(THREAD_CODE, { eval: true, workerData: { module, file, intervalMs: timing.intervalMs ?? INTERVAL_MS, idleMs: timing.idleMs ?? IDLE_INTERVAL_MS } });
  worker.unref();
  let running = true;
  const selfCheckpointing = () => {
    if (!running) return;
    running = false;
    if (sqlite.open) sqlite.pragma(`wal_autocheckpoint = ${AUTO_CHECKPOINT_PAGES}`);
  };
  sqlite.pragma('wal_autocheckpoint = 0');
  worker.on('message', (m: { t: string; message?: string }) => { if (m.t === 'error') onError(m.message ?? ''); });
  worker.on('error', (err) => { onError(err.message); selfCheckpointing(); });
  worker.on('exit', selfCheckpointing);
  return {
    async stop() {
      if (!running) return;
      const exited = new Promise<void>((resolve) => worker.once('exit', () => resolve()));
      // Held until it exits: an unreferenced thread would let a process with nothing else to do end with this
      // promise unsettled (a library user's `await running.close()`).
      worker.ref();
      worker.postMessage('stop');
      await exited;
    },
  };
}
