/**
 * What an API token may reach, checked on the resources a request touches. Callers authenticated by the
 * global key pass every check (their accounts bound them, as before). For a token:
 *
 * - no requirement for the route (not in `route-permissions.ts`): 403, 9109;
 * - a zone on which the token holds nothing: 403, 10000 `Authentication error`;
 * - a zone, account or user on which it lacks the route's capability: 403, 9109 `Unauthorized to access requested resource`.
 */
import type { Context } from 'hono';
import type { ApiEnv, AuthUser } from './context.js';
import type { ZonesService } from '../zones/zones-service.js';
import type { Capability } from '../accounts/permission-groups.js';
import { AppError } from '../shared/errors.js';

/** The 9109 refusal. */
export function unauthorized(): AppError {
  return new AppError(9109, 'Unauthorized to access requested resource', 403);
}

/** Checks user- and account-scoped requirements of a token request (zone ones wait for the zone). */
export function checkTokenRequirement(c: Context<ApiEnv>): void {
  const user = c.get('user');
  const token = user.token;
  if (!token) return;
  const req = c.get('requirement');
  if (!req) return; // fails closed where a resource is touched
  if (req.scope === 'user') {
    if (token.accountId !== null || !req.anyOf.some((cap) => token.grants.allowsUser(cap, user.id))) throw unauthorized();
  }
  if (req.scope === 'account' && req.accountId !== undefined) authorizeAccount(c, req.accountId, req.anyOf);
}

/** Refuses a token that lacks every one of `anyOf` on the account (members only; the route checks membership). */
export function authorizeAccount(c: Context<ApiEnv>, accountId: string, anyOf: readonly Capability[]): void {
  const token = c.get('user').token;
  if (!token) return;
  if (!anyOf.some((cap) => token.grants.allowsAccount(cap, accountId))) throw unauthorized();
}

/** Refuses a token that may not use the zone for this route (see the module comment). */
export function authorizeZone(c: Context<ApiEnv>, zone: { id: string; account_id: string }): void {
  const token = c.get('user').token;
  if (!token) return;
  const req = c.get('requirement');
  if (!req || req.scope !== 'zone') throw unauthorized();
  if (!token.grants.seesZone(zone.id, zone.account_id)) throw new AppError(10000, 'Authentication error', 403);
  if (req.anyOf.length > 0 && !req.anyOf.some((cap) => token.grants.allowsZone(cap, zone.id, zone.account_id))) throw unauthorized();
}

/** Which zones a zone list shows a token (within the user's accounts): all, those of some accounts, some zones. */
export interface ZoneListScope {
  all: boolean;
  accountIds: string[];
  zoneIds: string[];
}

/** The zones a caller's zone list may show: undefined for the global key (all of its accounts). */
export async function zoneListScope(zones: ZonesService, user: AuthUser): Promise<ZoneListScope | undefined> {
  const token = user.token;
  if (!token) return undefined;
  if (!token.grants.hasDeny()) return token.grants.zoneReach();
  // Deny policies can hide single zones: decide zone by zone.
  if (user.accountIds.length === 0) return { all: false, accountIds: [], zoneIds: [] };
  const rows = await zones.zonesOfAccounts(user.accountIds);
  return { all: false, accountIds: [], zoneIds: rows.filter((z) => token.grants.seesZone(z.id, z.account_id)).map((z) => z.id) };
}

/** The accounts a caller's account list may show: those the token reaches directly or through a zone. */
export async function visibleAccountIds(zoneService: ZonesService, user: AuthUser): Promise<string[]> {
  const token = user.token;
  if (!token) return user.accountIds;
  const direct = token.grants.accountReach();
  const zones = token.grants.zoneReach();
  if (direct.all || zones.all) return user.accountIds;
  const viaZones = await zoneService.accountsOfZones(zones.zoneIds);
  const reached = new Set([...direct.accountIds, ...zones.accountIds, ...viaZones]);
  return user.accountIds.filter((a) => reached.has(a));
}
