/**
 * Faults of the backing stores, told apart from bugs and bad input: a store that cannot be reached (PostgreSQL
 * restarting or cut off, an S3 blob endpoint down or answering 5xx) and a disk that is full. Adapters turn
 * such failures into {@link UnavailableError} or {@link StorageFullError}; each edge renders them in its own
 * format (v4: 503 + 1280 with `Retry-After`, or 507 + 1281; S3: 503 `ServiceUnavailable` or 507
 * `InsufficientStorage`; the binding: `"<action>: <message> (10043)"`). {@link faultOf} also recognises the raw
 * errors (pg, Node sockets, SQLite, file system), so an error that reaches an edge unwrapped is still answered
 * as the fault it is and not as a 500.
 */
import { AppError } from './errors.js';

/** v4 code of a temporary failure of a backing store (503). */
export const UNAVAILABLE_CODE = 1280;
/** v4 code of a write refused because the disk is full (507). */
export const STORAGE_FULL_CODE = 1281;
/** Seconds clients are asked to wait before retrying (`Retry-After`). */
export const RETRY_AFTER_SECONDS = 5;

/** The stores a fault can be about; also the components of the health state. */
export type FaultComponent = 'database' | 'blob-store' | 'disk';

/** Who hears about faults and the next success after them (the health state, shared/health.ts). */
export interface FaultReporter {
  down(component: FaultComponent, err: unknown): void;
  /**
   * A success of `component`. `startedAt` (epoch ms) is when the operation began: one that began before the
   * outage (a query already answered when the connection was cut) proves nothing about the outage's end.
   */
  up(component: FaultComponent, startedAt?: number): void;
}

/** Reports nothing (library use without a health state). */
export const NO_FAULT_REPORTER: FaultReporter = { down: () => {}, up: () => {} };

/** The two kinds of fault. */
export type FaultKind = 'unavailable' | 'storage-full';

const LABEL: Record<FaultComponent, string> = { database: 'database', 'blob-store': 'object body store', disk: 'local storage' };

/** A backing store cannot be reached right now; retrying later may succeed. Nothing was changed. */
export class UnavailableError extends AppError {
  readonly retryAfterSeconds = RETRY_AFTER_SECONDS;

  constructor(readonly component: FaultComponent, cause?: unknown) {
    super(UNAVAILABLE_CODE, `Service temporarily unavailable: the ${LABEL[component]} cannot be reached. Retry in a few seconds.`, 503);
    this.name = 'UnavailableError';
    if (cause !== undefined) this.cause = cause;
  }
}

/** A write was refused because the disk is full. Nothing was changed; reads keep working. */
export class StorageFullError extends AppError {
  readonly component: FaultComponent = 'disk';

  constructor(cause?: unknown) {
    super(STORAGE_FULL_CODE, 'Insufficient storage: the server\'s disk is full, nothing was changed. Retry once space is freed.', 507);
    this.name = 'StorageFullError';
    if (cause !== undefined) this.cause = cause;
  }
}

/**
 * PostgreSQL SQLSTATEs of a server that is going away or starting up (57P01 admin shutdown, 57P02 crash
 * shutdown, 57P03 cannot connect now), or whose storage fails (58030).
 */
const PG_UNAVAILABLE = new Set(['57P01', '57P02', '57P03', '58030']);
/**
 * SQLSTATE classes that are faults as a whole: 08 (connection exception) and 53 (insufficient resources:
 * 53300 too many clients, out of memory; 53100 disk full is told apart below).
 */
const PG_UNAVAILABLE_CLASSES = ['08', '53'];
/** SQLSTATE of a PostgreSQL server whose disk is full. */
const PG_DISK_FULL = '53100';
/**
 * 55000 (object not in prerequisite state) is a fault only as a connection's refusal: a database that does not
 * accept connections (`ALTER DATABASE … ALLOW_CONNECTIONS false`, maintenance, a failover). Its other uses are
 * errors of the statement.
 */
const PG_NOT_IN_STATE = '55000';
const PG_NOT_ACCEPTING = /not currently accepting connections/i;
/** Socket and resolver errors: the peer is away. */
const NET_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'ENOTFOUND', 'EHOSTUNREACH', 'ENETUNREACH', 'EAI_AGAIN', 'ECONNABORTED', 'EHOSTDOWN', 'ENETDOWN']);
/** Messages of the pg driver when its connection is gone (these errors carry no code). */
const PG_GONE = /Connection terminated|not queryable|timeout exceeded when trying to connect|did not answer within|Client was closed/i;
/**
 * A database closed at shutdown: Kysely after `db.destroy()`, a pg pool after `end()`, better-sqlite3 after
 * `close()`. Such a handle never works again.
 */
const CLOSED = /driver has already been destroyed|Cannot use a pool after calling end|The database connection is not open/;

/** Classifies one error (not its causes). */
function kindOf(err: unknown): FaultKind | undefined {
  if (err instanceof UnavailableError) return 'unavailable';
  if (err instanceof StorageFullError) return 'storage-full';
  if (!(err instanceof Error)) return undefined;
  const code = (err as { code?: unknown }).code;
  if (typeof code === 'string') {
    if (code === 'SQLITE_FULL' || code === 'ENOSPC' || code === 'EDQUOT' || code === PG_DISK_FULL) return 'storage-full';
    if (PG_UNAVAILABLE.has(code) || NET_CODES.has(code) || code.startsWith('SQLITE_IOERR')) return 'unavailable';
    if (code.length === 5 && PG_UNAVAILABLE_CLASSES.includes(code.slice(0, 2))) return 'unavailable';
    if (code === PG_NOT_IN_STATE && PG_NOT_ACCEPTING.test(err.message)) return 'unavailable';
  }
  if (err instanceof AppError) return undefined;
  return PG_GONE.test(err.message) || CLOSED.test(err.message) ? 'unavailable' : undefined;
}

/** True when `err` (or its cause) says the database was closed (at shutdown): the handle cannot be used again. */
export function isClosedDatabase(err: unknown): boolean {
  let e: unknown = err;
  for (let depth = 0; depth < 5 && e instanceof Error; depth++) {
    if (CLOSED.test(e.message)) return true;
    e = e.cause;
  }
  return false;
}

/** The fault an error is, looking through its `cause` chain; undefined for everything else. */
export function faultOf(err: unknown): FaultKind | undefined {
  let e: unknown = err;
  for (let depth = 0; depth < 5 && e !== undefined && e !== null; depth++) {
    const kind = kindOf(e);
    if (kind) return kind;
    e = (e as { cause?: unknown }).cause;
  }
  return undefined;
}

/** The error as a fault of `component` (an UnavailableError or StorageFullError), or undefined when it is none. */
export function asFault(err: unknown, component: FaultComponent): UnavailableError | StorageFullError | undefined {
  if (err instanceof UnavailableError || err instanceof StorageFullError) return err;
  const kind = faultOf(err);
  if (kind === 'unavailable') return new UnavailableError(component, err);
  if (kind === 'storage-full') return new StorageFullError(err);
  return undefined;
}

/**
 * Runs one operation of a backing store and reports its outcome: an error that `toFault` turns into a fault is
 * reported down and thrown as that fault (anything else is rethrown as it is); a success is reported up for
 * `upComponent` (when given), dated from the operation's start so that an answer to a request sent before an
 * outage does not end it. The one guard of the database dialect and the store adapters.
 */
export async function reportingFaults<T>(
  reporter: FaultReporter,
  upComponent: FaultComponent | undefined,
  toFault: (err: unknown) => UnavailableError | StorageFullError | undefined,
  fn: () => Promise<T>,
): Promise<T> {
  const started = Date.now();
  let out: T;
  try {
    out = await fn();
  } catch (err) {
    const fault = toFault(err);
    if (!fault) throw err;
    reporter.down(fault.component, err);
    throw fault;
  }
  if (upComponent !== undefined) reporter.up(upComponent, started);
  return out;
}
