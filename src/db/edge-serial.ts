/**
 * The edge serial: one row that every committed change of scripts, versions, deployments, routes or
 * subdomains bumps in its own transaction. Nodes sharing a PostgreSQL database poll it (one indexed read of one
 * row) to learn that their route snapshot is stale; the node that made the change is told at once
 * (`EdgeChanges`).
 */
import { sql, type Kysely, type Transaction } from 'kysely';
import type { Database } from './schema.js';

/** Bumps the serial inside the caller's transaction. */
export async function bumpEdgeSerial(trx: Transaction<Database> | Kysely<Database>): Promise<void> {
  await trx.updateTable('edge_serial').set({ serial: sql<number>`serial + 1` }).where('id', '=', 1).execute();
}

/** The current serial. */
export async function readEdgeSerial(db: Kysely<Database>): Promise<number> {
  const row = await db.selectFrom('edge_serial').select('serial').where('id', '=', 1).executeTakeFirst();
  return Number(row?.serial ?? 0);
}

/** Local listeners of committed edge changes (the catalog subscribes; services publish after commit). */
export class EdgeChanges {
  private readonly listeners = new Set<() => void>();

  /** Announces a committed change. */
  publish(): void {
    for (const l of [...this.listeners]) l();
  }

  /** Registers a listener; returns its removal. */
  subscribe(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => { this.listeners.delete(listener); };
  }
}
