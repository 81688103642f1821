/**
 * The pair an account is given from the instance's pool of name server names (`--name-server-pool`, read in
 * config/name-server-pool.ts)
 * (docs/security.md, "Name servers per account"). Pure.
 *
 * Production gives every account a stable pair of its name servers (`ada.ns.<provider>` / `bob.ns.<provider>`);
 * a delegation naming that pair says which account it is for. Stratus does the same: the pool is a list of
 * labels under the instance's name-server domain (the first `--nameservers` name without its first label:
 * `stratus.invalid` for `ns1.stratus.invalid`), and the n-th account to be given a pair gets {@link pairAt}(n).
 * Pairs are stored when given (name-server-assignments.ts), never recomputed, so changing the pool later
 * changes only what accounts given a pair afterwards get.
 */

/** How many distinct pairs the pool holds. */
export function pairCount(pool: readonly string[]): number {
  return (pool.length * (pool.length - 1)) / 2;
}

/**
 * The pair given to the `ordinal`-th account (0-based): pairs of neighbours first (ada/bob, bob/cruz, …), then
 * of names two apart, and so on; after every pair was given once, the order starts again.
 */
export function pairAt(pool: readonly string[], ordinal: number): [string, string] {
  const n = pool.length;
  let k = ordinal % pairCount(pool);
  for (let gap = 1; gap < n; gap++) {
    const inRound = n - gap;
    if (k < inRound) return [pool[k]!, pool[k + gap]!];
    k -= inRound;
  }
  throw new Error('unreachable: ordinal within the pair count');
}
