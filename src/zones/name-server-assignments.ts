/**
 * Which name servers each account's zones are given (docs/security.md, "Name servers per account"), stored
 * in `account_name_servers` when first needed and never recomputed.
 *
 * Invariants: an account's pair never changes once stored; the admin's account holds the instance's own
 * `--nameservers` (ordinal null), every other account the pair {@link pairAt}(ordinal) of the pool it was
 * given from; ordinals are unique (a unique index), so two nodes giving pairs at once never give the same
 * position twice: the loser of a race reads what was stored and tries the next position. With the pool
 * off, every account holds the instance names.
 */
import type { Kysely, Transaction } from 'kysely';
import type { Database } from '../db/schema.js';
import { isoTimestamp, type Clock } from '../shared/clock.js';
import { isUniqueViolation } from './unique-violation.js';
import { pairAt } from './name-server-pool.js';

/** Work done in the transaction that stores an account's pair (the upgrade's rewrite of its zones). */
export type OnAssigned = (trx: Transaction<Database>, nameServers: string[]) => Promise<void>;

/** Reads and gives out accounts' name server pairs. */
export class NameServerAssignments {
  private readonly known = new Map<string, string[]>();

  constructor(
    private readonly db: Kysely<Database>,
    private readonly clock: Clock,
    /** The instance's own names (`--nameservers`): the admin's, and everyone's with the pool off. */
    readonly instanceNames: readonly string[],
    /** The pool's host names (`--name-server-pool`); empty: off. */
    readonly pool: readonly string[],
  ) {}

  /** The stored pair of the account, if it has one. */
  async stored(accountId: string): Promise<string[] | undefined> {
    const cached = this.known.get(accountId);
    if (cached) return cached;
    const row = await this.db.selectFrom('account_name_servers').select('name_servers').where('account_id', '=', accountId).executeTakeFirst();
    if (!row) return undefined;
    const pair = JSON.parse(row.name_servers) as string[];
    this.known.set(accountId, pair);
    return pair;
  }

  /** The account's pair, given from the pool (and stored) when it has none yet. */
  async forAccount(accountId: string, onAssigned?: OnAssigned): Promise<string[]> {
    return (await this.stored(accountId)) ?? this.give(accountId, this.pool.length >= 2 ? 'pool' : 'instance', onAssigned);
  }

  /** Gives the admin's account the instance names, unless it holds a pair already. */
  async ensureAdmin(accountId: string): Promise<string[]> {
    return (await this.stored(accountId)) ?? this.give(accountId, 'instance');
  }

  /** Stores a pair for the account: the instance names, or the pool's next free position. */
  private async give(accountId: string, from: 'pool' | 'instance', onAssigned?: OnAssigned): Promise<string[]> {
    for (let attempt = 0; attempt < 50; attempt++) {
      try {
        const pair = await this.db.transaction().execute(async (trx) => {
          let ordinal: number | null = null;
          let names = [...this.instanceNames];
          if (from === 'pool') {
            const top = await trx.selectFrom('account_name_servers').select((eb) => eb.fn.max('ordinal').as('top')).executeTakeFirst();
            ordinal = top?.top === null || top?.top === undefined ? 0 : Number(top.top) + 1;
            names = pairAt(this.pool, ordinal);
          }
          await trx.insertInto('account_name_servers').values({
            account_id: accountId, ordinal, name_servers: JSON.stringify(names), assigned_on: isoTimestamp(this.clock.now()),
          }).execute();
          if (onAssigned) await onAssigned(trx, names);
          return names;
        });
        this.known.set(accountId, pair);
        return pair;
      } catch (err) {
        if (!isUniqueViolation(err)) throw err;
        // Another node gave this account a pair (read it), or took this position (try the next).
        const won = await this.stored(accountId);
        if (won) return won;
      }
    }
    throw new Error(`could not give account ${accountId} a name server pair: too many concurrent assignments`);
  }
}
