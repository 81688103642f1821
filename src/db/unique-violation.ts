/**
 * Unique-constraint violations of the relational store, mapped to AppErrors at the data layer, so that a
 * write that loses a race (two nodes on one PostgreSQL creating the same zone, the same user, the same
 * bootstrap token at once) is answered with the error of its resource and never as a 500.
 *
 * Every query runs through {@link withUniqueViolations}, which rethrows the driver's violation (SQLite
 * `SQLITE_CONSTRAINT_UNIQUE` / `_PRIMARYKEY`, PostgreSQL SQLSTATE 23505) as a {@link UniqueViolationError}
 * chosen by table, whichever unique index the table has (the mapping names tables, not indexes; each table's
 * owner describes its own, {@link describeUniqueKeys}). Services
 * that know more (the zone's name) catch it by table and refine the message; nothing else needs to.
 * The violating value is never copied into the error (PostgreSQL's `detail` names it; it may be a key hash).
 */
import type { CompiledQuery, DatabaseConnection, Dialect, Driver, QueryResult, TransactionSettings } from 'kysely';
import { AppError } from '../shared/errors.js';

/** Code of a unique violation on a table without a more specific mapping (stratus). */
export const ALREADY_EXISTS = 1199;

/** Where a unique violation happened. */
export interface UniqueViolation {
  /** Table name, when the driver reports it (PostgreSQL always, SQLite from its message). */
  table: string | undefined;
  /** Constraint or index name (PostgreSQL). */
  constraint: string | undefined;
  /** Columns of the violated key, when known. */
  columns: string[];
}

/** The AppError of a unique violation: the resource's code, by table. */
export class UniqueViolationError extends AppError {
  constructor(readonly violation: UniqueViolation) {
    const { code, message } = describe(violation);
    super(code, message, 400);
    this.name = 'UniqueViolationError';
  }

  /** True when the violation is on `table`. */
  on(table: string): boolean {
    return this.violation.table === table;
  }
}

/** A table's error for a unique violation: the code and message its owner answers with. */
export interface UniqueKeyError {
  code: number;
  message: string;
}

/** Code and message by table, as each table's owner described them (tables not described get {@link ALREADY_EXISTS}). */
const BY_TABLE = new Map<string, UniqueKeyError>();

/**
 * Tells the data layer which error a unique violation on each of these tables is: called by the room that owns
 * the tables (zones/unique-keys.ts, accounts/unique-keys.ts), when its code is first loaded, which is before
 * any of its writes.
 */
export function describeUniqueKeys(tables: Record<string, UniqueKeyError>): void {
  for (const [table, entry] of Object.entries(tables)) BY_TABLE.set(table, entry);
}

function describe(v: UniqueViolation): UniqueKeyError {
  return (v.table !== undefined ? BY_TABLE.get(v.table) : undefined)
    ?? { code: ALREADY_EXISTS, message: `${v.table ?? 'The object'} already exists: a concurrent request created it first` };
}

/** The unique violation a driver error reports, or undefined for any other error. */
export function uniqueViolationOf(err: unknown): UniqueViolation | undefined {
  if (err === null || typeof err !== 'object') return undefined;
  const e = err as { code?: unknown; message?: unknown; table?: unknown; constraint?: unknown; detail?: unknown };
  if (e.code === '23505') {
    const columns = typeof e.detail === 'string' ? /^Key \(([^)]*)\)=/.exec(e.detail)?.[1]?.split(',').map((c) => c.trim()) ?? [] : [];
    return { table: typeof e.table === 'string' ? e.table : undefined, constraint: typeof e.constraint === 'string' ? e.constraint : undefined, columns };
  }
  if (e.code === 'SQLITE_CONSTRAINT_UNIQUE' || e.code === 'SQLITE_CONSTRAINT_PRIMARYKEY') {
    // "UNIQUE constraint failed: zones.account_id, zones.name"
    const list = typeof e.message === 'string' ? /constraint failed: (.+)$/.exec(e.message)?.[1] ?? '' : '';
    const pairs = list.split(',').map((p) => p.trim().split('.')).filter((p) => p.length === 2);
    return { table: pairs[0]?.[0], constraint: undefined, columns: pairs.map((p) => p[1]!) };
  }
  return undefined;
}

/** Rethrows a unique violation as its {@link UniqueViolationError}; anything else unchanged. */
export function translateUniqueViolation(err: unknown): never {
  const violation = uniqueViolationOf(err);
  throw violation ? new UniqueViolationError(violation) : err;
}

/** The dialect with every query's unique violations translated (see the module comment). */
export function withUniqueViolations(dialect: Dialect): Dialect {
  return {
    createAdapter: () => dialect.createAdapter(),
    createQueryCompiler: () => dialect.createQueryCompiler(),
    createIntrospector: (db) => dialect.createIntrospector(db),
    createDriver: () => translatingDriver(dialect.createDriver()),
  };
}

/** A driver whose connections translate unique violations; the inner driver always gets its own connections. */
function translatingDriver(inner: Driver): Driver {
  const innerOf = new WeakMap<DatabaseConnection, DatabaseConnection>();
  /** One wrapper per inner connection (Kysely keeps the connections it has seen). */
  const wrapperOf = new WeakMap<DatabaseConnection, DatabaseConnection>();
  const unwrap = (c: DatabaseConnection): DatabaseConnection => innerOf.get(c) ?? c;
  const wrap = (connection: DatabaseConnection): DatabaseConnection => {
    let wrapped = wrapperOf.get(connection);
    if (!wrapped) {
      wrapped = {
        // async: some drivers (SQLite) throw synchronously.
        executeQuery: async <R>(q: CompiledQuery): Promise<QueryResult<R>> => {
          try {
            return await connection.executeQuery<R>(q);
          } catch (err) {
            return translateUniqueViolation(err);
          }
        },
        streamQuery: <R>(q: CompiledQuery, chunkSize?: number) => connection.streamQuery<R>(q, chunkSize),
      };
      wrapperOf.set(connection, wrapped);
      innerOf.set(wrapped, connection);
    }
    return wrapped;
  };
  const driver: Driver = {
    init: () => inner.init(),
    acquireConnection: async () => wrap(await inner.acquireConnection()),
    beginTransaction: (c: DatabaseConnection, settings: TransactionSettings) => inner.beginTransaction(unwrap(c), settings),
    commitTransaction: (c) => inner.commitTransaction(unwrap(c)).catch(translateUniqueViolation),
    rollbackTransaction: (c) => inner.rollbackTransaction(unwrap(c)),
    releaseConnection: (c) => inner.releaseConnection(unwrap(c)),
    destroy: () => inner.destroy(),
  };
  if (inner.savepoint) driver.savepoint = (c, name, compile) => inner.savepoint!(unwrap(c), name, compile);
  if (inner.rollbackToSavepoint) driver.rollbackToSavepoint = (c, name, compile) => inner.rollbackToSavepoint!(unwrap(c), name, compile);
  if (inner.releaseSavepoint) driver.releaseSavepoint = (c, name, compile) => inner.releaseSavepoint!(unwrap(c), name, compile);
  return driver;
}
