/**
 * `--name-server-pool`: the instance's pool of name server names, read from the flag's labels (docs/security.md,
 * "Name servers per account"). Which pair an account is given from it is the zones' part
 * (zones/name-server-pool.ts). Pure.
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
