/**
 * API token policies: their validation (as `POST /user/tokens` receives them) and their evaluation (what a
 * token may do on a zone, an account or a user). The production model:
 *
 * - a policy is `{effect: allow|deny, permission_groups: [{id}], resources: {<key>: "*" | {<zone key>: "*"}}}`;
 * - resource keys: `com.cloudflare.api.account.zone.<zone id>` (or `.zone.*`: every zone),
 *   `com.cloudflare.api.account.<account id>` (or `.account.*`), `com.cloudflare.api.user.<user id>`,
 *   `com.cloudflare.edge.r2.bucket.<account id>_default_<bucket or *>`;
 *   an account key with `"*"` also covers every zone of the account for zone groups; an account key whose
 *   value is an object covers the zones named inside it (`{"com.cloudflare.api.account.zone.*": "*"}`: all);
 * - a capability is granted when an allow policy grants it on a covering resource and no deny policy names
 *   a group granting it on a covering resource.
 * - `condition.request_ip.in` / `not_in`: CIDR lists the client address must (not) fall in.
 */
import { AppError } from '../shared/errors.js';
import { cidrContains, parseCidr, parseIPv4, parseIPv6, type Cidr } from '../dns/ip.js';
import { permissionGroup, type Capability, type PermissionScope } from './permission-groups.js';

/** A stored policy. */
export interface TokenPolicy {
  id: string;
  effect: 'allow' | 'deny';
  permission_groups: { id: string }[];
  resources: Record<string, string | Record<string, string>>;
}

/** A stored condition. */
export interface TokenCondition {
  request_ip?: { in?: string[]; not_in?: string[] };
}

/** Who a token belongs to: resources outside this owner are refused at creation. */
export type TokenOwner = { kind: 'user'; userId: string } | { kind: 'account'; accountId: string };

const ZONE_KEY = /^com\.cloudflare\.api\.account\.zone\.(\*|[0-9a-f]{32})$/;
const ACCOUNT_KEY = /^com\.cloudflare\.api\.account\.(\*|[0-9a-f]{32})$/;
const USER_KEY = /^com\.cloudflare\.api\.user\.(\*|[0-9a-f]{32})$/;
/** `com.cloudflare.edge.r2.bucket.<account id>_default_<bucket name or *>`. */
const BUCKET_KEY = /^com\.cloudflare\.edge\.r2\.bucket\.([0-9a-f]{32})_default_(\*|[a-z0-9][a-z0-9-]{1,61}[a-z0-9])$/;

/** Code of every policy or condition validation error. */
export const TOKEN_POLICY_ERROR = 1150;

function invalid(message: string): AppError {
  return new AppError(TOKEN_POLICY_ERROR, message, 400);
}

/** The scopes a resource key (with its value) applies to. */
function keyScopes(key: string, value: unknown): PermissionScope[] {
  if (ZONE_KEY.test(key)) return ['com.cloudflare.api.account.zone'];
  if (ACCOUNT_KEY.test(key)) return typeof value === 'string' ? ['com.cloudflare.api.account', 'com.cloudflare.api.account.zone'] : ['com.cloudflare.api.account.zone'];
  if (USER_KEY.test(key)) return ['com.cloudflare.api.user'];
  if (BUCKET_KEY.test(key)) return ['com.cloudflare.edge.r2.bucket'];
  return [];
}

/**
 * Validates `policies` of a token body; returns them with policy ids assigned (kept from `previous` by
 * position when updating). Zone and account ids named are returned too, for the caller to check ownership.
 */
export function parsePolicies(value: unknown, owner: TokenOwner, newPolicyId: () => string): { policies: TokenPolicy[]; zoneIds: string[]; accountIds: string[] } {
  if (!Array.isArray(value) || value.length === 0) throw invalid('Invalid policies: send "policies", a non-empty array of {effect, permission_groups, resources}');
  const zoneIds = new Set<string>();
  const accountIds = new Set<string>();
  const policies = value.map((raw, i): TokenPolicy => {
    const where = `policies[${i}]`;
    if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) throw invalid(`Invalid ${where}: expected an object`);
    const p = raw as Record<string, unknown>;
    const effect = p.effect ?? 'allow';
    if (effect !== 'allow' && effect !== 'deny') throw invalid(`Invalid ${where}.effect ${JSON.stringify(p.effect)}: use "allow" or "deny"`);
    if (!Array.isArray(p.permission_groups) || p.permission_groups.length === 0) throw invalid(`Invalid ${where}.permission_groups: send a non-empty array of {"id": "<permission group id>"}`);
    const scopes = new Set<PermissionScope>();
    const groups = p.permission_groups.map((g, j) => {
      const id = typeof g === 'object' && g !== null ? (g as { id?: unknown }).id : undefined;
      const group = typeof id === 'string' ? permissionGroup(id) : undefined;
      if (!group) throw invalid(`Invalid ${where}.permission_groups[${j}]: unknown permission group ${JSON.stringify(id)} (GET /user/tokens/permission_groups lists them)`);
      scopes.add(group.scope);
      return { id: group.id };
    });
    const resources = p.resources;
    if (typeof resources !== 'object' || resources === null || Array.isArray(resources) || Object.keys(resources).length === 0) {
      throw invalid(`Invalid ${where}.resources: send an object such as {"com.cloudflare.api.account.zone.<zone id>": "*"}`);
    }
    for (const [key, v] of Object.entries(resources as Record<string, unknown>)) {
      checkResource(where, key, v, owner, zoneIds, accountIds);
      if (!keyScopes(key, v).some((s) => scopes.has(s))) throw invalid(`Invalid ${where}.resources: ${key} does not apply to any of the policy's permission groups`);
    }
    return { id: newPolicyId(), effect, permission_groups: groups, resources: resources as TokenPolicy['resources'] };
  });
  return { policies, zoneIds: [...zoneIds], accountIds: [...accountIds] };
}

/** Checks one resource key and value against the key forms and the owner. */
function checkResource(where: string, key: string, value: unknown, owner: TokenOwner, zoneIds: Set<string>, accountIds: Set<string>): void {
  const zone = ZONE_KEY.exec(key);
  const account = ACCOUNT_KEY.exec(key);
  const user = USER_KEY.exec(key);
  const bucket = BUCKET_KEY.exec(key);
  if (!zone && !account && !user && !bucket) throw invalid(`Invalid ${where}.resources key ${JSON.stringify(key)}: use com.cloudflare.api.account.zone.<zone id>, com.cloudflare.api.account.<account id>, com.cloudflare.api.user.<user id> or com.cloudflare.edge.r2.bucket.<account id>_default_<bucket>`);
  if (bucket) {
    if (owner.kind === 'account' && bucket[1] !== owner.accountId) throw invalid(`Invalid ${where}.resources: an account token covers its own account's buckets only (${key})`);
    accountIds.add(bucket[1]!);
  }
  if (user) {
    if (owner.kind === 'account') throw invalid(`Invalid ${where}.resources: an account token cannot hold user resources (${key})`);
    if (user[1] !== '*' && user[1] !== owner.userId) throw invalid(`Invalid ${where}.resources: ${key} is not the token owner's user`);
  }
  if (account) {
    if (account[1] === '*' && owner.kind === 'account') throw invalid(`Invalid ${where}.resources: an account token covers its own account only (${key})`);
    if (account[1] !== '*') accountIds.add(account[1]!);
  }
  if (zone) {
    if (zone[1] === '*' && owner.kind === 'account') throw invalid(`Invalid ${where}.resources: an account token names its zones, or its account for all of them (${key})`);
    if (zone[1] !== '*') zoneIds.add(zone[1]!);
  }
  if (value === '*') return;
  if (account && typeof value === 'object' && value !== null && !Array.isArray(value)) {
    for (const [inner, v] of Object.entries(value as Record<string, unknown>)) {
      const z = ZONE_KEY.exec(inner);
      if (!z || v !== '*') throw invalid(`Invalid ${where}.resources["${key}"]: inside an account, use {"com.cloudflare.api.account.zone.<zone id or *>": "*"}`);
      if (z[1] !== '*') zoneIds.add(z[1]!);
    }
    return;
  }
  throw invalid(`Invalid ${where}.resources["${key}"]: the value must be "*"${account ? ' or an object of zone keys' : ''}`);
}

/** Validates `condition` of a token body (CIDR lists); undefined when absent. */
export function parseCondition(value: unknown): TokenCondition | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'object' || Array.isArray(value)) throw invalid('Invalid condition: expected {"request_ip": {"in": [...], "not_in": [...]}}');
  const ip = (value as { request_ip?: unknown }).request_ip;
  if (ip === undefined || ip === null) return {};
  if (typeof ip !== 'object' || Array.isArray(ip)) throw invalid('Invalid condition.request_ip: expected {"in": [...], "not_in": [...]}');
  const out: NonNullable<TokenCondition['request_ip']> = {};
  for (const side of ['in', 'not_in'] as const) {
    const list = (ip as Record<string, unknown>)[side];
    if (list === undefined) continue;
    if (!Array.isArray(list) || list.some((r) => typeof r !== 'string' || parseCidr(r) === undefined)) {
      throw invalid(`Invalid condition.request_ip.${side}: expected an array of IPv4/IPv6 addresses or CIDR ranges`);
    }
    out[side] = list as string[];
  }
  return { request_ip: out };
}

/** What one token may do, evaluated from its policies and condition. */
export class TokenGrants {
  private readonly inRanges: Cidr[] | undefined;
  private readonly notInRanges: Cidr[];

  constructor(private readonly policies: readonly TokenPolicy[], condition: TokenCondition | undefined) {
    const ip = condition?.request_ip;
    this.inRanges = ip?.in?.map((r) => parseCidr(r)!);
    this.notInRanges = ip?.not_in?.map((r) => parseCidr(r)!) ?? [];
  }

  /** True when the client address satisfies the token's `request_ip` condition (always without one). */
  allowsAddress(address: string | undefined): boolean {
    if (this.inRanges === undefined && this.notInRanges.length === 0) return true;
    const text = address?.startsWith('::ffff:') && address.includes('.') ? address.slice(7) : address;
    const bytes = text === undefined ? undefined : parseIPv4(text) ?? parseIPv6(text);
    if (!bytes) return false;
    if (this.inRanges !== undefined && !this.inRanges.some((r) => cidrContains(r, bytes))) return false;
    return !this.notInRanges.some((r) => cidrContains(r, bytes));
  }

  /** True when the token holds `cap` on the zone (of `accountId`). */
  allowsZone(cap: Capability, zoneId: string, accountId: string): boolean {
    return this.decide(cap, (key, value) => coversZone(key, value, zoneId, accountId));
  }

  /** True when the token holds any zone capability on the zone (what makes it visible in zone lists). */
  seesZone(zoneId: string, accountId: string): boolean {
    return ZONE_CAPABILITIES.some((cap) => this.allowsZone(cap, zoneId, accountId));
  }

  /** True when the token holds `cap` on the account. */
  allowsAccount(cap: Capability, accountId: string): boolean {
    return this.decide(cap, (key, value) => value === '*' && (key === `com.cloudflare.api.account.${accountId}` || key === 'com.cloudflare.api.account.*'));
  }

  /** True when the token holds `cap` on the bucket, through one of `accountIds` (buckets are shared by the accounts). */
  allowsBucket(cap: Capability, bucket: string, accountIds: readonly string[]): boolean {
    return this.decide(cap, (key, value) => {
      if (value !== '*') return false;
      if (key === 'com.cloudflare.api.account.*') return true;
      const account = ACCOUNT_KEY.exec(key)?.[1];
      if (account !== undefined) return accountIds.includes(account);
      const m = BUCKET_KEY.exec(key);
      return m !== null && accountIds.includes(m[1]!) && (m[2] === '*' || m[2] === bucket);
    });
  }

  /** True when the token holds `cap` (a bucket-level one) on one of `accountIds`. */
  allowsAnyAccount(cap: Capability, accountIds: readonly string[]): boolean {
    return accountIds.some((a) => this.allowsAccount(cap, a));
  }

  /** True when the token holds `cap` on the user. */
  allowsUser(cap: Capability, userId: string): boolean {
    return this.decide(cap, (key) => key === `com.cloudflare.api.user.${userId}` || key === 'com.cloudflare.api.user.*');
  }

  /** True when some policy has a deny effect (zone lists are then filtered zone by zone). */
  hasDeny(): boolean {
    return this.policies.some((p) => p.effect === 'deny');
  }

  /**
   * Where allow policies grant zone capabilities: every zone (`all`), the zones of some accounts, some zones.
   * Deny policies are not applied here (see {@link seesZone}).
   */
  zoneReach(): { all: boolean; accountIds: string[]; zoneIds: string[] } {
    const reach = { all: false, accountIds: new Set<string>(), zoneIds: new Set<string>() };
    for (const p of this.policies) {
      if (p.effect !== 'allow' || !p.permission_groups.some((g) => permissionGroup(g.id)?.scope === 'com.cloudflare.api.account.zone')) continue;
      for (const [key, value] of Object.entries(p.resources)) {
        const account = ACCOUNT_KEY.exec(key)?.[1];
        const zone = ZONE_KEY.exec(key)?.[1];
        if (typeof value === 'string') {
          if (value !== '*') continue;
          if (zone === '*' || account === '*') reach.all = true;
          else if (zone) reach.zoneIds.add(zone);
          else if (account) reach.accountIds.add(account);
          continue;
        }
        if (!account) continue;
        for (const [inner, v] of Object.entries(value)) {
          const z = ZONE_KEY.exec(inner)?.[1];
          if (v !== '*' || !z) continue;
          if (z !== '*') reach.zoneIds.add(z);
          else if (account === '*') reach.all = true;
          else reach.accountIds.add(account);
        }
      }
    }
    return { all: reach.all, accountIds: [...reach.accountIds], zoneIds: [...reach.zoneIds] };
  }

  /** Account ids named by account keys (`*` for all), for account lists. */
  accountReach(): { all: boolean; accountIds: string[] } {
    const ids = new Set<string>();
    let all = false;
    for (const p of this.policies) {
      if (p.effect !== 'allow') continue;
      for (const key of Object.keys(p.resources)) {
        const m = ACCOUNT_KEY.exec(key);
        if (m?.[1] === '*') all = true;
        else if (m) ids.add(m[1]!);
      }
    }
    return { all, accountIds: [...ids] };
  }

  private decide(cap: Capability, covers: (key: string, value: string | Record<string, string>) => boolean): boolean {
    let allowed = false;
    for (const p of this.policies) {
      if (!p.permission_groups.some((g) => permissionGroup(g.id)?.grants.includes(cap))) continue;
      if (!Object.entries(p.resources).some(([k, v]) => covers(k, v))) continue;
      if (p.effect === 'deny') return false;
      allowed = true;
    }
    return allowed;
  }
}

/** Every capability of zone-scoped groups. */
const ZONE_CAPABILITIES: readonly Capability[] = ['zone:read', 'dns:read', 'zone_settings:read', 'zone_dns_settings:read', 'workers_routes:read', 'ssl:read'];

/** True when a resource entry covers the zone. */
function coversZone(key: string, value: string | Record<string, string>, zoneId: string, accountId: string): boolean {
  const zoneKeys = [`com.cloudflare.api.account.zone.${zoneId}`, 'com.cloudflare.api.account.zone.*'];
  if (value === '*' && zoneKeys.includes(key)) return true;
  if (key !== `com.cloudflare.api.account.${accountId}` && key !== 'com.cloudflare.api.account.*') return false;
  if (value === '*') return true;
  return typeof value === 'object' && zoneKeys.some((z) => value[z] === '*');
}
