/**
 * The instance's pool of name server names (`--name-server-pool`) and the pair an account is given from it
 * (docs/security.md, "Name servers per account"). Pure.
 *
 * Production gives every account a stable pair of its name servers (`ada.ns.<provider>` / `bob.ns.<provider>`);
 * a delegation naming that pair says which account it is for. Stratus does the same: the pool is a list of
 * labels under the instance's name-server domain (the first `--nameservers` name without its first label:
 * `stratus.invalid` for `ns1.stratus.invalid`), and the n-th account to be given a pair gets {@link pairAt}(n).
 * Pairs are stored when given (name-server-assignments.ts), never recomputed, so changing the pool later
 * changes only what accounts given a pair afterwards get.
 */

/** Labels of the default pool: 24 labels, 276 pairs before a pair is given twice. */
export const DEFAULT_POOL_LABELS: readonly string[] = [
  'ada', 'bob', 'cruz', 'dee', 'eli', 'fay', 'gus', 'hal', 'ike', 'jo', 'kai', 'lou',
  'max', 'ned', 'oli', 'pam', 'quin', 'rae', 'sam', 'tess', 'uma', 'val', 'wes', 'zed',
];

const LABEL = /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/;

/** The instance's name-server domain: the first instance name server without its first label. */
export function nameServerDomain(instanceNames: readonly string[]): string {
  const first = instanceNames[0] ?? 'ns1.stratus.invalid';
  const dot = first.indexOf('.');
  return dot >= 0 ? first.slice(dot + 1) : first;
}

/**
 * The pool's host names from `--name-server-pool` labels (`off`: no pool, every account gets the instance
 * names). Returns an error message for a bad list: labels must be DNS labels, distinct, at least two, and no
 * pool name may be one of the instance names (those stay the admin's).
 */
export function poolNames(labels: readonly string[] | 'off', instanceNames: readonly string[]): string[] | string {
  if (labels === 'off') return [];
  const domain = nameServerDomain(instanceNames);
  const clean = labels.map((l) => l.trim().toLowerCase()).filter((l) => l !== '');
  const bad = clean.find((l) => !LABEL.test(l));
  if (bad !== undefined) return `--name-server-pool must be DNS labels (letters, digits, inner hyphens), got "${bad}"`;
  if (new Set(clean).size !== clean.length) return '--name-server-pool lists a label twice';
  if (clean.length < 2) return '--name-server-pool needs at least two labels (a pair per account), or off';
  const names = clean.map((l) => `${l}.${domain}`);
  const taken = names.find((n) => instanceNames.includes(n));
  if (taken !== undefined) return `--name-server-pool: ${taken} is one of --nameservers (the admin's); choose other labels`;
  return names;
}

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
