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
 */
import pg from 'pg';

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
  // Idle connections: the pool forwards their errors here (and discards them).
  pool.on('error', (err) => opts.onConnectionError(err));
  pool.on('connect', (client) => {
    // Connections in use: without this listener their 'error' event would be unhandled.
    client.on('error', (err) => opts.onConnectionError(err));
    watchQueries(client, queryTimeoutMs);
  });
  return pool;
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
