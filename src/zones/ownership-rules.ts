/**
 * Who may have an active zone of a name (docs/security.md). Pure: the callers read the zones at the name and
 * at every name above it, and the NS records of the closest enclosing active zone at the name.
 *
 * A zone may be active only when
 * 1. no other account's zone of the same name is active (at most one active zone per name; the database
 *    enforces it too, with a partial unique index);
 * 2. no other account's active zone holds the name: a hold in force at the same name, or at a name above
 *    it with `include_subdomains`;
 * 3. the closest enclosing active zone, when it belongs to another account, delegates the name to the
 *    zone: NS records at exactly the zone's name whose targets are exactly the zone's assigned name servers
 *    (a "subdomain setup"). Under the same account no delegation is needed (production's simpler path for
 *    one owner; docs/compatibility.md). Each account's zones are assigned the account's own pair
 *    (name-server-pool.ts), so a delegation says which account it is for; where two accounts' zones of the
 *    name hold the same pair (the pool off or given out twice, zones kept from before pairs), the delegation
 *    activates neither (a squatter can delay a subdomain setup, never take it over);
 * 4. (docs/security.md rule 5) a zone that is not active yet displaces no active zone of another account below it: each such zone that
 *    would have the candidate as its closest enclosing active zone must be delegated by the candidate's own NS
 *    records to its assigned name servers (a later parent waits, pending, until the names inside it are free
 *    or delegated; an active zone is never deactivated by this rule).
 */

/** The columns of a zone the rules read. */
export interface ZoneClaim {
  id: string;
  account_id: string;
  name: string;
  status: string;
  /** JSON array of assigned name servers. */
  name_servers: string;
  hold_after: string | null;
  hold_include_subdomains: number;
}

/** The zone whose status is decided (id undefined while it is being created). */
export interface Candidate {
  id?: string;
  account_id: string;
  name: string;
  nameServers: readonly string[];
  /** The zone's current status (undefined while it is being created). */
  status?: string;
}

/** An active zone strictly below a candidate, as rule 4 (docs/security.md rule 5) reads it. */
export interface ActiveBelow {
  account_id: string;
  name: string;
  /** JSON array of its assigned name servers. */
  name_servers: string;
}

/** Why a zone may not be active. */
export type Obstacle = 'name-active-elsewhere' | 'held' | 'not-delegated' | 'ambiguous-delegation' | 'occupied-below';

/** The proper ancestors of a name, nearest first (`a.b.example.com` -> `b.example.com`, `example.com`, `com`). */
export function ancestorsOf(name: string): string[] {
  const out: string[] = [];
  let rest = name;
  for (let dot = rest.indexOf('.'); dot >= 0; dot = rest.indexOf('.')) {
    rest = rest.slice(dot + 1);
    out.push(rest);
  }
  return out;
}

/** A name server name as compared: lowercase, no trailing dot. */
export function hostKey(name: string): string {
  return name.trim().toLowerCase().replace(/\.+$/, '');
}

/** The assigned name servers of a stored zone. */
export function assignedNameServers(claim: Pick<ZoneClaim, 'name_servers'>): string[] {
  try {
    const list = JSON.parse(claim.name_servers) as unknown;
    return Array.isArray(list) ? list.map((n) => hostKey(String(n))) : [];
  } catch {
    return [];
  }
}

/** True when the zone's hold is in force at `now`. */
export function holdInForce(claim: Pick<ZoneClaim, 'hold_after'>, now: Date): boolean {
  if (claim.hold_after === null) return false;
  const at = Date.parse(claim.hold_after);
  return Number.isFinite(at) && at <= now.getTime();
}

/** True when an active zone of another account holds `name` (rule 2). */
export function isHeldAgainst(candidate: Pick<Candidate, 'account_id' | 'name'>, claims: readonly ZoneClaim[], now: Date): boolean {
  return claims.some((c) => c.account_id !== candidate.account_id && c.status === 'active' && holdInForce(c, now)
    && (c.name === candidate.name || (c.hold_include_subdomains === 1 && candidate.name.endsWith(`.${c.name}`))));
}

/** The closest active zone strictly above `name`, if any. */
export function closestEnclosingActive(name: string, claims: readonly ZoneClaim[]): ZoneClaim | undefined {
  for (const above of ancestorsOf(name)) {
    const found = claims.find((c) => c.name === above && c.status === 'active');
    if (found) return found;
  }
  return undefined;
}

/** True when NS targets at the zone's name are exactly its assigned name servers (order and case aside). */
export function delegatesTo(nsTargets: readonly string[], assigned: readonly string[]): boolean {
  const have = new Set(nsTargets.map(hostKey));
  const want = new Set(assigned.map(hostKey));
  return want.size > 0 && have.size === want.size && [...want].every((n) => have.has(n));
}

/**
 * Rule 4 here (docs/security.md rule 5): true when making the (inactive) candidate active would put an active zone of another account
 * below it under a parent that does not delegate to it. `below` are the active zones strictly below the
 * candidate; `candidateNs(name)` the candidate's own NS targets at a name.
 */
export function displacesBelow(candidate: Candidate, below: readonly ActiveBelow[], candidateNs: (name: string) => readonly string[]): boolean {
  if (candidate.status === 'active') return false;
  const names = new Set(below.map((z) => z.name));
  return below.some((z) => {
    if (z.account_id === candidate.account_id) return false;
    // Another active zone between the two stays its closest enclosing zone: the candidate changes nothing for it.
    const between = ancestorsOf(z.name).filter((n) => n.endsWith(`.${candidate.name}`));
    if (between.some((n) => names.has(n))) return false;
    return !delegatesTo(candidateNs(z.name), assignedNameServers(z));
  });
}

/**
 * What keeps the candidate from being active, or undefined when it may be. `parentNs` are the NS targets at
 * the candidate's name in the closest enclosing active zone (only read when that zone is another account's);
 * `below` and `candidateNs` feed rule 4 (see {@link displacesBelow}).
 */
export function obstacleTo(candidate: Candidate, claims: readonly ZoneClaim[], parentNs: readonly string[], now: Date,
  below: readonly ActiveBelow[] = [], candidateNs: (name: string) => readonly string[] = () => []): Obstacle | undefined {
  if (claims.some((c) => c.name === candidate.name && c.status === 'active' && c.id !== candidate.id && c.account_id !== candidate.account_id)) return 'name-active-elsewhere';
  if (isHeldAgainst(candidate, claims, now)) return 'held';
  const parent = closestEnclosingActive(candidate.name, claims);
  if (parent && parent.account_id !== candidate.account_id) {
    if (!delegatesTo(parentNs, candidate.nameServers)) return 'not-delegated';
    if (claims.some((c) => c.name === candidate.name && c.id !== candidate.id && c.account_id !== candidate.account_id
      && delegatesTo(assignedNameServers(c), candidate.nameServers))) return 'ambiguous-delegation';
  }
  if (displacesBelow(candidate, below, candidateNs)) return 'occupied-below';
  return undefined;
}
