/**
 * Which runtime slot runs each account's scripts (`runtime-slot.ts`). Slots 1..N are account runtimes; an
 * account is assigned one the first time one of its scripts is asked for, and keeps it for the node's life:
 * the slot with the fewest accounts, the lowest number first. So the first N accounts each get a runtime of
 * their own, and past N accounts share, spread evenly (at most ceil(accounts / N) to a runtime). With N = 0
 * every account's scripts run in slot 0, the shared runtime.
 */

/** The account -> slot assignment. */
export class AccountSlots {
  private readonly byAccount = new Map<string, number>();
  /** Accounts per slot, index 0 unused. */
  private readonly counts: number[];

  /** `slots`: the number of account runtimes (0: every script in the shared runtime). */
  constructor(readonly slots: number) {
    this.counts = new Array<number>(slots + 1).fill(0);
  }

  /** The slot running `accountId`'s scripts, assigned now if the account has none. */
  slotOf(accountId: string): number {
    if (this.slots === 0) return 0;
    const known = this.byAccount.get(accountId);
    if (known !== undefined) return known;
    let best = 1;
    for (let i = 2; i <= this.slots; i++) if (this.counts[i]! < this.counts[best]!) best = i;
    this.counts[best]!++;
    this.byAccount.set(accountId, best);
    return best;
  }

  /** The slot `accountId` was assigned, if any (assigns nothing). */
  assigned(accountId: string): number | undefined {
    return this.slots === 0 ? 0 : this.byAccount.get(accountId);
  }

  /** How many accounts each account slot (1..N) runs. */
  load(): number[] {
    return this.counts.slice(1);
  }
}
