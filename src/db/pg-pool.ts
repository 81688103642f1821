/**
 * PostgreSQL connection pools that survive the server going away. `pg` emits 'error' on a client whose
 * connection breaks; on a client checked out of the pool (inside a transaction, between two queries) nobody
 * listens and Node ends the process (`Unhandled 'error' event`, 57P01 on a terminated backend). Every client
 * of these pools gets a listener for its whole life, so a broken connection only fails the queries on it;
 * the pool drops it on release (it is no longer queryable) and opens a new one when next needed.
 *
 * A connection that stops answering (a network that drops packets, a stalled proxy) would hold its requests
 * forever: connecting gives up after `connectTimeoutMs`, and a query without an answer after `queryTimeoutMs`
 * destroys its connection, which fails that query and everything queued on the connection.
 *
 * Ending the pool (shutdown) fails at once the connects still waiting for a connection: pg-pool would leave
 * them waiting until `connectTimeoutMs`, holding up every write queued behind them.
 */
import pg from 'pg';
import { recordConnectionError, trackPool } from '../shared/probes.js';

/** Options of {@link createPool}. */
export interface PoolOptions {
  url: string;
  /** Most connections (default 10). */
  max?: number;
  types?: pg.CustomTypesConfig;
  /** A query without an answer this long breaks its connection (ms; default 30 000). */
  queryTimeoutMs?: number;
  /** Opening a connection gives up after this long (ms; default 5 000). */
  connectTimeoutMs?: number;
  /** Told of every connection that breaks, idle or in use. */
  onConnectionError(err: Error): void;
  /** The pool's name in metrics (`core`: accounts, zones and records; `buckets`: bucket metadata). */
  name?: string;
}

/** Default of {@link PoolOptions.queryTimeoutMs}. */
export const DEFAULT_QUERY_TIMEOUT_MS = 30_000;

/** A pool whose broken connections never crash the process and never hang forever. */
export function createPool(opts: PoolOptions): pg.Pool {
  const pool = new pg.Pool({
    connectionString: opts.url,
    max: opts.max ?? 10,
    connectionTimeoutMillis: opts.connectTimeoutMs ?? 5_000,
    keepAlive: true,
    ...(opts.types ? { types: opts.types } : {}),
  });
  const queryTimeoutMs = opts.queryTimeoutMs ?? DEFAULT_QUERY_TIMEOUT_MS;
  const name = opts.name ?? 'postgres';
  trackPool(name, pool);
  // An idle connection's error reaches both listeners below (its own, and the pool's, which discards it):
  // report each connection once.
  const reported = new WeakSet<pg.PoolClient>();
  const broken = (err: Error, client: pg.PoolClient) => {
    if (reported.has(client)) return;
    reported.add(client);
    recordConnectionError(name);
    opts.onConnectionError(err);
  };
  // Idle connections: the pool forwards their errors here (and discards them).
  pool.on('error', broken);
  pool.on('connect', (client) => {
    // Connections in use: without this listener their 'error' event would be unhandled.
    client.on('error', (err) => broken(err, client));
    watchQueries(client, queryTimeoutMs);
  });
  failWaitersOnEnd(pool);
  return pool;
}

/** pg-pool's own error for a pool used after `end()` (shared/faults.ts reads it as the database closed). */
const ENDED = 'Cannot use a pool after calling end on the pool';

/** Makes `pool.end()` fail the promise-style `connect()` calls still waiting, at once. */
function failWaitersOnEnd(pool: pg.Pool): void {
  const waiting = new Set<(err: Error) => void>();
  const connect = pool.connect.bind(pool) as (cb?: unknown) => Promise<pg.PoolClient> | void;
  (pool as unknown as { connect: typeof connect }).connect = (cb?: unknown) => {
    if (cb !== undefined) return connect(cb);
    return new Promise<pg.PoolClient>((resolve, reject) => {
      let settled = false;
      const fail = (err: Error) => {
        waiting.delete(fail);
        if (!settled) { settled = true; reject(err); }
      };
      waiting.add(fail);
      (connect() as Promise<pg.PoolClient>).then((client) => {
        waiting.delete(fail);
        if (settled) client.release();
        else { settled = true; resolve(client); }
      }, fail);
    });
  };
  const end = pool.end.bind(pool) as (cb?: unknown) => Promise<void> | void;
  (pool as unknown as { end: typeof end }).end = (cb?: unknown) => {
    for (const fail of [...waiting]) fail(new Error(ENDED));
    return end(cb);
  };
}

type AnyQuery = (...args: unknown[]) => unknown;

/** Makes every query of `client` break the connection when no answer comes within `ms`. */
function watchQueries(client: pg.PoolClient, ms: number): void {
  const query = client.query.bind(client) as AnyQuery;
  const guarded: AnyQuery = (...args) => {
    const timer = setTimeout(() => breakConnection(client, new Error(`PostgreSQL did not answer within ${ms} ms; the connection was closed`)), ms);
    timer.unref();
    const last = args.length - 1;
    const callback = args[last];
    if (typeof callback === 'function') {
      args[last] = (...result: unknown[]) => { clearTimeout(timer); (callback as AnyQuery)(...result); };
      return query(...args);
    }
    const out = query(...args);
    if (out instanceof Promise) out.then(() => clearTimeout(timer), () => clearTimeout(timer));
    else clearTimeout(timer);
    return out;
  };
  (client as unknown as { query: AnyQuery }).query = guarded;
}

/** Destroys the socket: pg fails the queries on it and marks the client unusable, so the pool drops it. */
function breakConnection(client: pg.PoolClient, err: Error): void {
  const stream = (client as unknown as { connection?: { stream?: { destroy(err?: Error): void } } }).connection?.stream;
  if (stream) stream.destroy(err);
  else client.release(err);
}
