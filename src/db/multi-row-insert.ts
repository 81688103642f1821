/**
 * Many rows into one table in few statements, without Kysely building and compiling an insert per chunk
 * (for 500 rows of 17 columns that cost about as much as SQLite's own work): the statement for a chunk of
 * `rows` rows is compiled once per dialect and row count, and later chunks only bind their values. Bulk
 * writes (zone-file imports, batches) use it.
 */
import { CompiledQuery, type Kysely } from 'kysely';
import type { Database } from './schema.js';

/** Inserts rows of one shape into `table`; `columns` fixes the order of the bound values. */
export class MultiRowInsert<Row extends Record<string, unknown>> {
  /** SQL text by dialect adapter and row count. */
  private readonly texts = new WeakMap<object, Map<number, string>>();

  constructor(
    private readonly table: keyof Database & string,
    private readonly columns: readonly (keyof Row & string)[],
    /** Rows per statement (keep rows x columns under SQLite's 32,766 and PostgreSQL's 65,535 parameters). */
    private readonly chunk = 500,
  ) {}

  /** Inserts every row, `chunk` per statement, in order. */
  async execute(db: Kysely<Database>, rows: readonly Row[]): Promise<void> {
    for (let i = 0; i < rows.length; i += this.chunk) {
      const part = rows.slice(i, i + this.chunk);
      const values: unknown[] = [];
      for (const row of part) for (const c of this.columns) values.push(row[c] ?? null);
      await db.executeQuery(CompiledQuery.raw(this.sql(db, part.length), values));
    }
  }

  private sql(db: Kysely<Database>, count: number): string {
    const adapter = db.getExecutor().adapter;
    let byCount = this.texts.get(adapter);
    if (!byCount) { byCount = new Map(); this.texts.set(adapter, byCount); }
    let text = byCount.get(count);
    if (!text) {
      // Kysely writes the dialect's quoting and placeholders ($1 or ?); the values given here are dummies.
      const row = Object.fromEntries(this.columns.map((c) => [c, null]));
      text = db.insertInto(this.table).values(Array.from({ length: count }, () => row) as never).compile().sql;
      byCount.set(count, text);
    }
    return text;
  }
}
