/**
 * Queries of the hot paths, built and compiled once per dialect instead of once per call. Kysely builds an
 * operation tree and compiles it to SQL for every execution, which costs more than running a small indexed
 * query on SQLite; a {@link QueryTemplate} is built with named placeholders, compiled the first time it runs on
 * a dialect, and later runs only substitute the parameter values.
 *
 * A placeholder must stand for exactly one bound parameter (a value compared, inserted or set); lists of
 * varying length (`in (…)`) cannot be templated. Templates run without Kysely plugins (Stratus uses none).
 */
import { CompiledQuery, type Compilable, type Kysely } from 'kysely';
import type { Database } from './schema.js';

/** Marks a placeholder among a compiled query's parameters (a NUL byte never appears in real values). */
const PLACEHOLDER = '\u0000stratus-param:';

/** Stands for the named parameter while the template is built (typed as the value it will hold). */
export type Placeholder<P> = <K extends keyof P & string>(name: K) => P[K];

interface Compiled {
  sql: string;
  /** For each bound parameter: the name of a placeholder, or a constant fixed at build time. */
  slots: ({ name: string } | { value: unknown })[];
}

/** A query compiled once per dialect and run with new parameter values. */
export class QueryTemplate<P extends Record<string, unknown>, Row> {
  /** Keyed by the dialect adapter, shared by a database and its transactions. */
  private readonly compiled = new WeakMap<object, Compiled>();

  constructor(private readonly build: (db: Kysely<Database>, param: Placeholder<P>) => Compilable<Row>) {}

  /** Runs the query on `db` (a database or an open transaction) with these values; returns the rows. */
  async execute(db: Kysely<Database>, params: P): Promise<Row[]> {
    const { sql, slots } = this.compile(db);
    const values = slots.map((slot) => ('name' in slot ? params[slot.name] : slot.value));
    const result = await db.executeQuery<Row>(CompiledQuery.raw(sql, values));
    return result.rows;
  }

  /** The first row, or undefined. */
  async executeTakeFirst(db: Kysely<Database>, params: P): Promise<Row | undefined> {
    return (await this.execute(db, params))[0];
  }

  private compile(db: Kysely<Database>): Compiled {
    const adapter = db.getExecutor().adapter;
    let compiled = this.compiled.get(adapter);
    if (!compiled) {
      const query = this.build(db, ((name: string) => `${PLACEHOLDER}${name}`) as Placeholder<P>).compile();
      compiled = {
        sql: query.sql,
        slots: query.parameters.map((v) => (typeof v === 'string' && v.startsWith(PLACEHOLDER) ? { name: v.slice(PLACEHOLDER.length) } : { value: v })),
      };
      this.compiled.set(adapter, compiled);
    }
    return compiled;
  }
}
