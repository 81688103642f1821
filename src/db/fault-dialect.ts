/**
 * A Kysely dialect around another one that turns backing-store faults into the service's fault errors and
 * reports them: a query that fails because PostgreSQL is away becomes an {@link UnavailableError}
 * (`database`), one that fails because the disk is full a {@link StorageFullError}; both are told to the
 * {@link FaultReporter}, and so is the next success. Other errors (constraint violations, bugs) pass unchanged.
 */
import type { DatabaseConnection, Dialect, Driver, Kysely, QueryResult, TransactionSettings, CompiledQuery, QueryCompiler, DatabaseIntrospector, DialectAdapter } from 'kysely';
import { asFault, reportingFaults, type FaultComponent, type FaultReporter } from '../shared/faults.js';

export type { FaultReporter };

/** Wraps `inner` so that its faults are reported and translated. */
export function faultReportingDialect(inner: Dialect, reporter: FaultReporter, kind: 'sqlite' | 'postgres'): Dialect {
  return {
    createAdapter: (): DialectAdapter => inner.createAdapter(),
    createQueryCompiler: (): QueryCompiler => inner.createQueryCompiler(),
    createIntrospector: (db: Kysely<unknown>): DatabaseIntrospector => inner.createIntrospector(db),
    createDriver: (): Driver => new FaultReportingDriver(inner.createDriver(), reporter, kind),
  };
}

const WRAPPED = Symbol('stratus.faultReporting');
/** Statements that write (SQLite: their success shows the disk takes writes again). */
const WRITE = /^\s*(insert|update|delete|replace|commit|release|create|alter|drop)\b/i;

class FaultReportingDriver implements Driver {
  /** The component a fault of this database is about. */
  private readonly component: FaultComponent;

  constructor(private readonly inner: Driver, private readonly reporter: FaultReporter, private readonly kind: 'sqlite' | 'postgres') {
    this.component = kind === 'postgres' ? 'database' : 'disk';
  }

  init(): Promise<void> { return this.guard(() => this.inner.init()); }

  async acquireConnection(): Promise<DatabaseConnection> {
    const conn = await this.guard(() => this.inner.acquireConnection());
    this.wrap(conn);
    return conn;
  }

  beginTransaction(conn: DatabaseConnection, settings: TransactionSettings): Promise<void> { return this.inner.beginTransaction(conn, settings); }
  commitTransaction(conn: DatabaseConnection): Promise<void> { return this.inner.commitTransaction(conn); }
  /** SQLite rolls a transaction back by itself on some errors (a full disk): then there is nothing left to undo. */
  async rollbackTransaction(conn: DatabaseConnection): Promise<void> {
    try {
      await this.inner.rollbackTransaction(conn);
    } catch (err) {
      if (this.kind === 'sqlite' && /no transaction is active/i.test((err as Error).message)) return;
      throw err;
    }
  }
  savepoint(conn: DatabaseConnection, name: string, compile: QueryCompiler['compileQuery']): Promise<void> { return this.inner.savepoint!(conn, name, compile); }
  rollbackToSavepoint(conn: DatabaseConnection, name: string, compile: QueryCompiler['compileQuery']): Promise<void> { return this.inner.rollbackToSavepoint!(conn, name, compile); }
  releaseSavepoint(conn: DatabaseConnection, name: string, compile: QueryCompiler['compileQuery']): Promise<void> { return this.inner.releaseSavepoint!(conn, name, compile); }
  releaseConnection(conn: DatabaseConnection): Promise<void> { return this.inner.releaseConnection(conn); }
  destroy(): Promise<void> { return this.inner.destroy(); }

  /** Patches the connection's executeQuery once (the driver hands out the same object for a pooled client). */
  private wrap(conn: DatabaseConnection): void {
    const marked = conn as DatabaseConnection & { [WRAPPED]?: true };
    if (marked[WRAPPED]) return;
    marked[WRAPPED] = true;
    const execute = conn.executeQuery.bind(conn);
    conn.executeQuery = async <R>(query: CompiledQuery): Promise<QueryResult<R>> => {
      const out = await this.guard(() => execute<R>(query));
      if (this.kind === 'sqlite' && WRITE.test(query.sql)) this.reporter.up('disk');
      return out;
    };
  }

  private guard<T>(fn: () => Promise<T>): Promise<T> {
    return reportingFaults(this.reporter, this.kind === 'postgres' ? 'database' : undefined, (err) => asFault(err, this.component), fn);
  }
}
