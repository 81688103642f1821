/** Reading accounts on behalf of a caller: only the accounts the caller is a member of exist for it. */
import type { Kysely, Selectable } from 'kysely';
import type { AccountsTable, Database } from '../db/schema.js';

/** A stored account row. */
export type AccountRow = Selectable<AccountsTable>;

/** The caller's accounts, by name then id, and how many there are in all. */
export async function listAccounts(db: Kysely<Database>, accountIds: readonly string[], page: number, perPage: number): Promise<{ accounts: AccountRow[]; total: number }> {
  if (accountIds.length === 0) return { accounts: [], total: 0 };
  const accounts = await db.selectFrom('accounts').selectAll().where('id', 'in', accountIds)
    .orderBy('name').orderBy('id').limit(perPage).offset((page - 1) * perPage).execute();
  return { accounts, total: accountIds.length };
}

/** The caller's account with this id, or undefined (unknown and foreign look the same). */
export async function getAccount(db: Kysely<Database>, accountIds: readonly string[], id: string): Promise<AccountRow | undefined> {
  if (!accountIds.includes(id)) return undefined;
  return db.selectFrom('accounts').selectAll().where('id', '=', id).executeTakeFirst();
}
