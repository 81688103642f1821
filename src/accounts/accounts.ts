/** Reading accounts on behalf of a caller: only the accounts the caller is a member of exist for it. */
import type { Kysely, Selectable } from 'kysely';
import type { AccountsTable, Database } from '../db/schema.js';
import { newId } from '../shared/ids.js';
import './unique-keys.js';

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

/** Creates an account with the given user as its member; returns the stored row. */
export async function createAccount(db: Kysely<Database>, userId: string, name: string, settings: Record<string, unknown>, createdOn: string): Promise<AccountRow> {
  const row: AccountRow = { id: newId(), name, settings: JSON.stringify(settings), created_on: createdOn };
  await db.transaction().execute(async (trx) => {
    await trx.insertInto('accounts').values(row).execute();
    await trx.insertInto('memberships').values({ user_id: userId, account_id: row.id }).execute();
  });
  return row;
}

/** Renames an account (the caller has checked that it may). */
export async function renameAccount(db: Kysely<Database>, id: string, name: string): Promise<void> {
  await db.updateTable('accounts').set({ name }).where('id', '=', id).execute();
}

/** An account's stored row (the caller has checked that it may see it); throws when it does not exist. */
export function accountRow(db: Kysely<Database>, id: string): Promise<AccountRow> {
  return db.selectFrom('accounts').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
}
