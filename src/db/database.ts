/**
 * Opens the relational store: the embedded SQLite file in the data folder by default, or PostgreSQL when a
 * connection string is configured. Both run the same migrations and are used through one Kysely instance,
 * whose unique-constraint violations arrive as AppErrors (`unique-violation.ts`).
 */
import fs from 'node:fs';
import SQLite from 'better-sqlite3';
import pg from 'pg';
import { Kysely, PostgresDialect, SqliteDialect, type Dialect } from 'kysely';
import { createPool } from './pg-pool.js';
import { faultReportingDialect } from './fault-dialect.js';
import { NO_FAULT_REPORTER, type FaultReporter } from '../shared/faults.js';
import type { Database } from './schema.js';
import { migrateToLatest } from './migrations.js';
import { withUniqueViolations } from './unique-violation.js';
import { startCheckpointer } from './sqlite-checkpointer.js';
import { enableWal } from '../shared/sqlite-wal.js';
import { dataPath, CORE_DATABASE } from '../shared/data-dir.js';

/** An open relational store. */
export interface OpenDatabase {
  db: Kysely<Database>;
  dialect: 'sqlite' | 'postgres';
  close(): Promise<void>;
}

/** Options for {@link openDatabase}. */
export interface DatabaseOptions {
  /** Folder holding `stratus.sqlite` when no URL is given. */
  dataDir: string;
  /** `postgres://…` connection string. */
  url?: string | undefined;
  /** Told when a PostgreSQL connection breaks, idle or in use (server restart, admin termination, network). */
  onConnectionLost?: (err: Error) => void;
  /** Told of every fault (database away, disk full) and of the next success; see db/fault-dialect.ts. */
  health?: FaultReporter;
  /** A PostgreSQL query without an answer this long breaks its connection (ms; default 30 000). */
  queryTimeoutMs?: number;
  /** SQLite: checkpoint the write-ahead log in a worker thread instead of inside commits (sqlite-checkpointer.ts). */
  backgroundCheckpoints?: boolean;
  /** Told when the background checkpoint fails (once until one succeeds again). */
  onCheckpointError?: (message: string) => void;
}



/** Opens (and migrates) the configured database. */
export async function openDatabase(opts: DatabaseOptions): Promise<OpenDatabase> {
  if (opts.url) {
    const reporter = opts.health ?? NO_FAULT_REPORTER;
    // A connection that breaks (idle or in use) fails only its own queries and is replaced when next needed.
    const pool = createPool({
      url: opts.url, max: 10, name: 'core', ...(opts.queryTimeoutMs !== undefined ? { queryTimeoutMs: opts.queryTimeoutMs } : {}),
      onConnectionError: (err) => { reporter.down('database', err); opts.onConnectionLost?.(err); },
    });
    // bigint columns (the serial) come back as numbers: serials stay far below 2^53.
    pg.types.setTypeParser(20, (v) => Number(v));
    const db = new Kysely<Database>({ dialect: withFaults(withUniqueViolations(new PostgresDialect({ pool })), opts.health, 'postgres') });
    await migrateToLatest(db);
    return { db, dialect: 'postgres', close: () => db.destroy() };
  }
  fs.mkdirSync(opts.dataDir, { recursive: true });
  const file = dataPath(opts.dataDir, CORE_DATABASE);
  const sqlite = new SQLite(file);
  enableWal(sqlite);
  sqlite.pragma('synchronous = NORMAL');
  sqlite.pragma('busy_timeout = 5000');
  sqlite.pragma('foreign_keys = ON');
  // Reads of a large zone touch pages all over the file: keep more of them in SQLite's own cache (bounded).
  sqlite.pragma(`cache_size = -${PAGE_CACHE_KIB}`);
  sqlite.pragma(`mmap_size = ${MMAP_BYTES}`);
  const db = new Kysely<Database>({ dialect: withFaults(withUniqueViolations(new SqliteDialect({ database: cachingStatements(sqlite) })), opts.health, 'sqlite') });
  await migrateToLatest(db);
  const checkpointer = opts.backgroundCheckpoints ? startCheckpointer(sqlite, file, opts.onCheckpointError) : undefined;
  return {
    db, dialect: 'sqlite',
    close: async () => {
      await checkpointer?.stop();
      await db.destroy();
    },
  };
}

/** The dialect, translating faults (and reporting them when a health state listens). */
function withFaults(dialect: Dialect, health: FaultReporter | undefined, kind: 'sqlite' | 'postgres'): Dialect {
  return faultReportingDialect(dialect, health ?? NO_FAULT_REPORTER, kind);
}

/** SQLite's page cache per connection, in KiB. */
const PAGE_CACHE_KIB = 64 * 1024;
/**
 * Bytes of the database file mapped into memory: none. Mapped pages a process has touched count in its RSS
 * (with a 1 GiB mapping, 530 MiB of a server holding a zone of a million records, more than the zone itself);
 * read through SQLite's bounded page cache instead, the file's pages stay in the OS cache, shared and
 * reclaimable, and the server's memory is what it holds (issue 19).
 */
const MMAP_BYTES = 0;

/** Most prepared statements kept per connection; the cache starts over when full. */
const STATEMENT_CACHE_SIZE = 1000;

/**
 * The connection as Kysely sees it, with prepared statements reused by SQL text: Kysely prepares every query
 * anew, and preparing costs about as much as running a small indexed query. Safe because Kysely runs one
 * query at a time per connection (its SQLite driver holds a mutex), so a cached statement is never in use twice.
 */
function cachingStatements(sqlite: SQLite.Database): { prepare(sql: string): SQLite.Statement; close(): void } {
  const cache = new Map<string, SQLite.Statement>();
  return {
    prepare(text: string) {
      let stmt = cache.get(text);
      if (!stmt) {
        stmt = sqlite.prepare(text);
        if (cache.size >= STATEMENT_CACHE_SIZE) cache.clear();
        cache.set(text, stmt);
      }
      return stmt;
    },
    close() {
      cache.clear();
      sqlite.close();
    },
  };
}
