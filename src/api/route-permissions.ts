/**
 * What an API token needs for each v4 route: the capability (any one of a list) and the resource it is
 * checked on (the zone of the path, the account of the path, or the token's user). The global key needs
 * none of this. A route that is not listed grants a token nothing: resource access fails closed
 * (`zone-access.ts`, `token-access.ts`), so a new route must add its row here.
 */
import type { Capability } from '../accounts/permission-groups.js';

/** The resource a requirement is checked on. */
export type RequirementScope = 'zone' | 'account' | 'user' | 'none';

/** What a token needs for one request. */
export interface RouteRequirement {
  scope: RequirementScope;
  /** Any one of these suffices; empty with scope `zone` means "any capability on the zone". */
  anyOf: readonly Capability[];
  /** The account of the path (`/accounts/:account_id/…`), for scope `account`. */
  accountId?: string;
}

interface Rule extends RouteRequirement {
  methods: readonly string[];
  pattern: RegExp;
}

const READ = ['GET', 'HEAD'];
const WRITE = ['POST', 'PUT', 'PATCH', 'DELETE'];
const ID = '[^/]+';

const rule = (methods: readonly string[], path: string, scope: RequirementScope, anyOf: readonly Capability[]): Rule =>
  ({ methods, pattern: new RegExp(`^${path}/?$`), scope, anyOf });

/** The rules, most specific first. */
const RULES: readonly Rule[] = [
  rule(READ, '/user', 'none', []), // production asks for User Details Read; Stratus lets any token see its user
  rule(READ, '/user/tokens/verify', 'none', []),
  rule(READ, `/accounts/${ID}/tokens/verify`, 'none', []),
  rule(READ, '/user/tokens(?:/.*)?', 'user', ['user_tokens:read']),
  rule(WRITE, '/user/tokens(?:/.*)?', 'user', ['user_tokens:edit']),
  rule(READ, `/accounts/${ID}/tokens(?:/.*)?`, 'account', ['account_tokens:read']),
  rule(WRITE, `/accounts/${ID}/tokens(?:/.*)?`, 'account', ['account_tokens:edit']),
  // Secondary DNS (TSIG keys, peers, ACLs): production lists Account Settings Read/Write for these routes' kind.
  rule(READ, `/accounts/${ID}/secondary_dns/(?:tsigs|peers|acls)(?:/${ID})?`, 'account', ['account_settings:read']),
  rule(WRITE, `/accounts/${ID}/secondary_dns/(?:tsigs|peers|acls)(?:/${ID})?`, 'account', ['account_settings:edit']),
  rule(READ, `/accounts/${ID}/dns_settings`, 'account', ['account_dns_settings:read']),
  rule(WRITE, `/accounts/${ID}/dns_settings`, 'account', ['account_dns_settings:edit']),
  // Objects: the route checks the Bucket Item groups on the bucket itself (bucket-scoped tokens included).
  rule(READ, `/accounts/${ID}/r2/buckets/${ID}/objects(?:/.*)?`, 'none', []),
  rule(WRITE, `/accounts/${ID}/r2/buckets/${ID}/objects(?:/.*)?`, 'none', []),
  rule(READ, `/accounts/${ID}/r2/buckets(?:/.*)?`, 'account', ['storage:read']),
  rule(WRITE, `/accounts/${ID}/r2/buckets(?:/.*)?`, 'account', ['storage:edit']),
  rule(['POST'], `/accounts/${ID}/r2/temp-access-credentials`, 'account', ['storage:edit']),
  rule(['POST'], '/graphql', 'none', []), // the account is in the query: the route checks Workers R2 Storage Read on it
  rule(READ, `/accounts/${ID}/workers/(?:scripts|services|subdomain|subdomains|tails)(?:/.*)?`, 'account', ['workers_scripts:read']),
  rule(WRITE, `/accounts/${ID}/workers/(?:scripts|services|subdomain)(?:/.*)?`, 'account', ['workers_scripts:edit']),
  // wrangler delete lists KV namespaces to clean up a Workers Site; Stratus has none, so Workers Scripts Read suffices.
  rule(READ, `/accounts/${ID}/storage/kv/namespaces`, 'account', ['workers_scripts:read']),
  rule(WRITE, `/accounts/${ID}`, 'account', ['account_settings:edit']),
  rule(READ, `/accounts(?:/${ID})?`, 'none', []),
  rule(READ, `/zones/${ID}/dns_records(?:/.*)?`, 'zone', ['dns:read']),
  rule(WRITE, `/zones/${ID}/dns_records(?:/.*)?`, 'zone', ['dns:edit']),
  rule(READ, `/zones/${ID}/dns_settings(?:/.*)?`, 'zone', ['zone_dns_settings:read', 'dns:read']),
  rule(WRITE, `/zones/${ID}/dns_settings(?:/.*)?`, 'zone', ['zone_dns_settings:edit', 'dns:edit']),
  rule(READ, `/zones/${ID}/secondary_dns/outgoing(?:/status)?`, 'zone', ['dns:read']),
  rule(['POST', 'PUT', 'DELETE'], `/zones/${ID}/secondary_dns/outgoing(?:/enable|/disable|/force_notify)?`, 'zone', ['dns:edit']),
  rule(READ, `/zones/${ID}/secondary_dns/incoming`, 'zone', ['dns:read']),
  rule(['POST', 'PUT', 'DELETE'], `/zones/${ID}/secondary_dns/incoming`, 'zone', ['dns:edit']),
  rule(['POST'], `/zones/${ID}/secondary_dns/force_axfr`, 'zone', ['dns:edit']),
  rule(READ, `/zones/${ID}/ssl/(?:universal/settings|certificate_packs(?:/${ID})?|verification)`, 'zone', ['ssl:read']),
  rule(WRITE, `/zones/${ID}/ssl/(?:universal/settings|certificate_packs(?:/${ID})?|verification(?:/${ID})?)`, 'zone', ['ssl:edit']),
  rule(READ, `/zones/${ID}/custom_certificates(?:/${ID})?`, 'zone', ['ssl:read']),
  rule(WRITE, `/zones/${ID}/custom_certificates(?:/${ID})?`, 'zone', ['ssl:edit']),
  rule(READ, `/zones/${ID}/dnssec(?:/zsk)?`, 'zone', ['dns:read']), // production: DNS Read / DNS Write
  rule(WRITE, `/zones/${ID}/dnssec`, 'zone', ['dns:edit']),
  rule(READ, `/zones/${ID}/workers/routes(?:/.*)?`, 'zone', ['workers_routes:read']),
  rule(WRITE, `/zones/${ID}/workers/routes(?:/.*)?`, 'zone', ['workers_routes:edit']),
  rule(READ, `/zones/${ID}/settings(?:/.*)?`, 'zone', ['zone_settings:read']),
  rule(WRITE, `/zones/${ID}/settings(?:/.*)?`, 'zone', ['zone_settings:edit']),
  rule(READ, `/zones/${ID}/hold`, 'zone', ['zone:read']),
  rule(WRITE, `/zones/${ID}/hold`, 'zone', ['zone:edit']),
  rule(['PUT'], `/zones/${ID}/activation_check`, 'zone', ['zone:edit']),
  rule(READ, `/zones/${ID}`, 'zone', []),
  rule(WRITE, `/zones/${ID}`, 'zone', ['zone:edit']),
  rule(READ, '/zones', 'none', []),
  rule(['POST'], '/zones', 'account', ['zone:edit']),
];

/** The requirement of a request (method, path below `/client/v4`), or undefined when a token may not call it. */
export function routeRequirement(method: string, path: string): RouteRequirement | undefined {
  const found = RULES.find((r) => r.methods.includes(method) && r.pattern.test(path));
  if (!found) return undefined;
  const accountId = found.scope === 'account' ? /^\/accounts\/([^/]+)/.exec(path)?.[1] : undefined;
  return { scope: found.scope, anyOf: found.anyOf, ...(accountId !== undefined ? { accountId } : {}) };
}
