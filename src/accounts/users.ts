/**
 * Users, accounts and memberships. A user holds an e-mail address and a global API key; each user created
 * here gets one account of its own (named like production: `<email>'s Account`). Used by the credential
 * bootstrap at start, by `stratus user add`, and by tests that need a second, isolated account.
 */
import type { Kysely } from 'kysely';
import type { Database } from '../db/schema.js';
import { AppError } from '../shared/errors.js';
import { UniqueViolationError } from '../db/unique-violation.js';
import { isoTimestamp, type Clock, systemClock } from '../shared/clock.js';
import { newId } from '../shared/ids.js';
import { generateKey, hashKey, isValidEmail, isValidKey, keyMatches } from './keys.js';
import './unique-keys.js';

/** A user as the API sees it after authentication. */
export interface AuthenticatedUser {
  id: string;
  email: string;
  /** Accounts the user is a member of. */
  accountIds: string[];
}

/** The result of {@link upsertUser}. */
export interface UserCredentials {
  userId: string;
  accountId: string;
  email: string;
  /** The key in clear (only known at creation time; never stored). */
  key: string;
  /** True when the user did not exist before. */
  created: boolean;
}

/** Options of {@link upsertUser}. */
export interface UpsertUserOptions {
  email: string;
  /** The key to set; generated (37 hex) when omitted. */
  key?: string;
  /** Name of the user's account when it is created. */
  accountName?: string;
  clock?: Clock;
}

/**
 * Creates the user with its own account, or, when the e-mail exists, sets its key (and makes sure it has an
 * account). E-mail addresses are compared case-insensitively and stored lowercase. When another process
 * creates the same user at the same moment (two nodes starting on one PostgreSQL), the loser's insert
 * violates `users.email`; it then runs again and finds the user.
 */
export async function upsertUser(db: Kysely<Database>, opts: UpsertUserOptions): Promise<UserCredentials> {
  try {
    return await upsertUserOnce(db, opts);
  } catch (err) {
    if (!(err instanceof UniqueViolationError)) throw err;
    return { ...(await upsertUserOnce(db, opts)), created: false };
  }
}

async function upsertUserOnce(db: Kysely<Database>, opts: UpsertUserOptions): Promise<UserCredentials> {
  const email = opts.email.trim().toLowerCase();
  if (!isValidEmail(email)) throw new AppError(6102, `Invalid e-mail address "${opts.email}"`);
  const key = opts.key ?? generateKey();
  if (!isValidKey(key)) throw new AppError(6103, 'Invalid API key: use 1 to 200 characters of A-Z a-z 0-9 _ . ~ + / = -');
  const now = isoTimestamp((opts.clock ?? systemClock).now());
  return db.transaction().execute(async (trx) => {
    const existing = await trx.selectFrom('users').select('id').where('email', '=', email).executeTakeFirst();
    let userId: string;
    if (existing) {
      userId = existing.id;
      await trx.updateTable('users').set({ key_hash: hashKey(key) }).where('id', '=', userId).execute();
    } else {
      userId = newId();
      await trx.insertInto('users').values({ id: userId, email, key_hash: hashKey(key), created_on: now }).execute();
    }
    const membership = await trx.selectFrom('memberships').select('account_id').where('user_id', '=', userId).executeTakeFirst();
    let accountId = membership?.account_id;
    if (accountId === undefined) {
      accountId = newId();
      await trx.insertInto('accounts').values({ id: accountId, name: opts.accountName ?? `${email}'s Account`, settings: '{}', created_on: now }).execute();
      await trx.insertInto('memberships').values({ user_id: userId, account_id: accountId }).execute();
    }
    return { userId, accountId, email, key, created: !existing };
  });
}

/** The user holding this e-mail and key, or undefined when the pair is unknown. */
export async function authenticate(db: Kysely<Database>, email: string, key: string): Promise<AuthenticatedUser | undefined> {
  const user = await db.selectFrom('users').select(['id', 'email', 'key_hash']).where('email', '=', email.toLowerCase()).executeTakeFirst();
  if (!user || !keyMatches(key, user.key_hash)) return undefined;
  const rows = await db.selectFrom('memberships').select('account_id').where('user_id', '=', user.id).execute();
  return { id: user.id, email: user.email, accountIds: rows.map((r) => r.account_id) };
}

/** Number of users (the bootstrap generates credentials only for an empty store). */
export async function countUsers(db: Kysely<Database>): Promise<number> {
  const row = await db.selectFrom('users').select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow();
  return Number(row.n);
}

/** A user's profile as stored (id, e-mail, creation time); throws when the user does not exist. */
export function userProfile(db: Kysely<Database>, userId: string): Promise<{ id: string; email: string; created_on: string }> {
  return db.selectFrom('users').select(['id', 'email', 'created_on']).where('id', '=', userId).executeTakeFirstOrThrow();
}
